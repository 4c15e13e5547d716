/**
 * API keys: loading, generating, and checking `Authorization: Bearer <key>` in constant time.
 * Keys are compared as SHA-256 digests so that neither content nor length leaks through timing.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";

/** The environment variable holding comma-separated API keys. */
export const API_KEYS_ENV = "POLAR_SQL_API_KEYS";

export type AuthResult =
  | { readonly kind: "ok" }
  | { readonly kind: "refused"; readonly message: string };

/**
 * A checker for the `Authorization` header over a fixed set of keys.
 *
 *   const check = createKeyCheck(["s3cret"]);
 *   check("Bearer s3cret"); // { kind: "ok" }
 */
export function createKeyCheck(
  keys: readonly string[],
): (header: string | undefined) => AuthResult {
  const digests = keys.map((key) => digest(key.trim()));
  if (digests.length === 0) throw new Error("at least one API key is required");
  return (header) => {
    if (header === undefined || header.trim() === "") {
      return refused("missing `Authorization: Bearer <key>` header");
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
    if (!match) return refused("malformed `Authorization` header; expected `Bearer <key>`");
    const candidate = digest(match[1]!);
    let found = false;
    // No early exit: every key is compared on every request.
    for (const known of digests) found = timingSafeEqual(candidate, known) || found;
    return found ? { kind: "ok" } : refused("invalid API key");
  };
}

function digest(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

function refused(message: string): AuthResult {
  return { kind: "refused", message };
}

/**
 * Keys from `POLAR_SQL_API_KEYS` (comma-separated) and from a key file (one key per line;
 * blank lines and `#` comments skipped). Throws with a plain message when the file is unreadable.
 *
 *   await loadApiKeys({ env: { POLAR_SQL_API_KEYS: "a,b" } }); // ["a", "b"]
 */
export async function loadApiKeys(options: {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly keyFile?: string;
}): Promise<string[]> {
  const keys = (options.env?.[API_KEYS_ENV] ?? "").split(",");
  if (options.keyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.keyFile, "utf8");
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      const reason = code === "ENOENT" ? "no such file" : (cause as Error).message;
      throw new Error(`cannot read API key file \`${options.keyFile}\`: ${reason}`);
    }
    keys.push(...text.split(/\r?\n/).filter((line) => !line.trim().startsWith("#")));
  }
  const found = [...new Set(keys.map((key) => key.trim()).filter((key) => key !== ""))];
  if (found.some((key) => /\s/.test(key)))
    throw new Error("an API key must not contain whitespace");
  return found;
}

/**
 * A fresh random API key (256 bits, URL-safe).
 *
 *   generateApiKey(); // "psk_3q2-…"
 */
export function generateApiKey(): string {
  return `psk_${randomBytes(32).toString("base64url")}`;
}
