/**
 * The request logger: pino, one JSON line per event on stdout (or a given stream).
 */
import { pino } from "pino";
import type { HttpLogger } from "./app.js";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/**
 * A pino logger for the adapter.
 *
 *   createLogger("info"); // {"level":30,"reqId":"…","method":"POST","route":"…","status":200,"ms":1.2}
 */
export function createLogger(
  level: LogLevel = "info",
  destination?: { write(line: string): void },
): HttpLogger {
  const options = { level, base: { service: "polar-sql" } };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that discards everything. */
export const silentLogger: HttpLogger = { info: () => {}, error: () => {} };
