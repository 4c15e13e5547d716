/**
 * API keys: loading, generating, and checking `Authorization: Bearer <key>` in constant time.
 * Keys are compared as SHA-256 digests so that neither content nor length leaks through timing.
 */
import crypto, { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { DEFAULT_ENVIRONMENT } from "../store/environment.js";

/** The environment variable holding comma-separated API keys. */
export const API_KEYS_ENV = "POLAR_SQL_API_KEYS";

/** What a key may do in its environment: ask and read, or also write. */
export type Access = "read-write" | "read-only";

/** An accepted key, given as itself or as the hex SHA-256 of itself, scoped to an environment. */
export type ApiKey = ({ readonly key: string } | { readonly keySha256: string }) & {
  readonly environment: string;
  readonly access: Access;
};

type AuthResult =
  | { readonly kind: "ok"; readonly environment: string; readonly access: Access }
  | { readonly kind: "refused"; readonly message: string };

/**
 * A checker for the `Authorization` header over a fixed set of keys: the environment and
 * access of the key sent.
 *
 *   const check = createKeyCheck([{ key: "s3cret", environment: "default", access: "read-only" }]);
 *   check("Bearer s3cret"); // { kind: "ok", environment: "default", access: "read-only" }
 */
export function createKeyCheck(
  keys: readonly ApiKey[],
): (header: string | undefined) => AuthResult {
  const known = keys.map((key) => ({
    digest: "key" in key ? digest(key.key.trim()) : sha256Digest(key.keySha256),
    environment: key.environment,
    access: key.access,
  }));
  if (known.length === 0) throw new Error("at least one API key is required");
  return (header) => {
    if (header === undefined || header.trim() === "") {
      return refused("missing `Authorization: Bearer <key>` header");
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
    if (!match) return refused("malformed `Authorization` header; expected `Bearer <key>`");
    const candidate = digest(match[1]!);
    let found: (typeof known)[number] | null = null;
    // No early exit: every key is compared on every request.
    for (const entry of known) {
      const equal = timingSafeEqual(candidate, entry.digest);
      found = equal ? entry : found;
    }
    return found
      ? { kind: "ok", environment: found.environment, access: found.access }
      : refused("invalid API key");
  };
}

/**
 * Read-write keys of the environment `default`: what `--api-key-file` and `POLAR_SQL_API_KEYS`
 * give.
 */
export function defaultEnvironmentKeys(keys: readonly string[]): ApiKey[] {
  return keys.map((key) => ({ key, environment: DEFAULT_ENVIRONMENT, access: "read-write" }));
}

/** The hex SHA-256 of a key, as a keys file's `key_sha256` holds it. */
export function keySha256(key: string): string {
  return digest(key).toString("hex");
}

/** A SHA-256 in hex, as `key_sha256` holds it. */
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** The 32 bytes of a hex SHA-256; anything else throws (a short digest could never match). */
function sha256Digest(hex: string): Buffer {
  if (!SHA256_HEX.test(hex)) throw new Error("`keySha256` must be 64 hexadecimal digits");
  return Buffer.from(hex, "hex");
}

function digest(key: string): Buffer {
  return oneShot ? oneShot("sha256", key, "buffer") : createHash("sha256").update(key).digest();
}

/** `crypto.hash` (Node 20.12 and later): no Hash object per request. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, out: "buffer") => Buffer })
  .hash;

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
