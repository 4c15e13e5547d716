import { readFileSync } from "node:fs";

let version: string | undefined;

/**
 * The package version, read once from package.json (two levels up from src/core and
 * dist/core).
 *
 * @example
 * packageVersion(); // "0.1.0"
 */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
  return version;
}
