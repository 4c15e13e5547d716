/**
 * The messages between the main thread and a store thread (src/store/store-thread.ts): plain
 * data, copied between threads. Each request carries an id; its reply carries the same id.
 */
import type { StatementHints } from "./executor.js";

/** What a store thread opens. */
export type ThreadDatabase =
  | { readonly engine: "sqlite"; readonly path: string; readonly temporary: boolean }
  | {
      readonly engine: "pglite";
      readonly dataDir?: string;
      readonly settings?: readonly string[];
      /** The cached empty image (src/store/pglite-setup.ts), found by the main thread. */
      readonly imagePath: string;
    };

export type ThreadRequest =
  | {
      readonly id: number;
      readonly op: "query" | "prepared";
      readonly sql: string;
      readonly params: readonly unknown[];
      /** Without the deadline, which the main thread keeps. */
      readonly hints: Omit<StatementHints, "deadline">;
      /** The transaction the statement belongs to, if any. */
      readonly tx: number | null;
    }
  /** Starts a transaction; answered with its number once it holds the connection. */
  | { readonly id: number; readonly op: "begin" }
  /** Ends a transaction: commits it, or rolls it back. */
  | { readonly id: number; readonly op: "end"; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: "listen"; readonly channel: string }
  | { readonly id: number; readonly op: "close" };

/** An error as data: enough to tell its kind and show its message. */
interface ThreadError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

export type ThreadReply =
  | { readonly ready: true }
  | { readonly ready: false; readonly error: ThreadError }
  | { readonly id: number; readonly rows: readonly unknown[] }
  | { readonly id: number; readonly tx: number }
  | { readonly id: number; readonly done: true }
  | { readonly id: number; readonly error: ThreadError }
  /** A notification on a channel the thread listens to. */
  | { readonly channel: string; readonly payload: string };

export function threadError(cause: unknown): ThreadError {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === "string" && { code }),
  };
}

/** The error back on the main thread, with the name and code it had in the store thread. */
export function rebuiltError(data: ThreadError): Error {
  const error = new Error(data.message) as Error & { code?: string };
  error.name = data.name;
  if (data.code !== undefined) error.code = data.code;
  return error;
}
