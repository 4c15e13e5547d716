/**
 * The keys file of `polar-sql serve --keys` (docs/operations.md, "Environments and scoped
 * keys"): each key, or the SHA-256 of it, with its environment and access.
 *
 *   keys:
 *     - key: psk_…
 *       environment: production
 *       access: read-only
 *
 * Every problem is reported as `<file>:<line>:<column>: <what is wrong>`.
 */
import { readFile } from "node:fs/promises";
import { isNode, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { environmentNameProblem } from "../store/environment.js";
import { type ApiKey, keySha256, SHA256_HEX } from "./auth.js";

/** A keys file that cannot be used; the message names the file, line and column. */
export class KeysFileError extends Error {
  override name = "KeysFileError";
}

const entrySchema = z
  .strictObject({
    key: z.string().regex(/^\S+$/, "a key must be non-empty, without whitespace").optional(),
    key_sha256: z
      .string()
      .regex(SHA256_HEX, "expected 64 hexadecimal digits (the SHA-256 of the key)")
      .optional(),
    environment: z.string().superRefine((name, ctx) => {
      const problem = environmentNameProblem(name);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    access: z.enum(["read-write", "read-only"], {
      error: "expected `read-write` or `read-only`",
    }),
  })
  .superRefine((entry, ctx) => {
    if (entry.key !== undefined && entry.key_sha256 !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["key_sha256"],
        message: "give `key` or `key_sha256`, not both",
      });
    if (entry.key === undefined && entry.key_sha256 === undefined)
      ctx.addIssue({ code: "custom", message: "missing `key` (or `key_sha256`)" });
  });

const fileSchema = z.strictObject(
  { keys: z.array(entrySchema, { error: "expected a list of keys" }).min(1, "no keys listed") },
  { error: "expected a mapping with a `keys` list" },
);

/**
 * Reads and checks a keys file.
 *
 *   await loadKeysFile("keys.yaml"); // [{ key: "psk_…", environment: "production", access: "read-only" }]
 */
export async function loadKeysFile(path: string): Promise<ApiKey[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : (cause as Error).message;
    throw new KeysFileError(`cannot read keys file \`${path}\`: ${reason}`);
  }
  return parseKeysFile(text, path);
}

/** Checks the text of a keys file named `file` (for messages). */
export function parseKeysFile(text: string, file: string): ApiKey[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number, message: string) => {
    const { line, col } = lines.linePos(offset);
    return new KeysFileError(`${file}:${line}:${col}: ${message}`);
  };
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    throw at(first.pos[0], `invalid YAML: ${first.message.split("\n")[0]}`);
  }
  const parsed = fileSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path as (string | number)[];
    // The deepest node the path reaches: a missing field is reported at its entry.
    let node: unknown;
    for (let depth = path.length; depth >= 0 && !isNode(node); depth--)
      node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const offset = isNode(node) ? (node.range?.[0] ?? 0) : 0;
    const field = path.length > 0 && typeof path.at(-1) === "string" ? `\`${path.at(-1)}\`: ` : "";
    const missing = isNode(doc.getIn(path, true)) || path.length === 0 ? "" : "missing; ";
    throw at(offset, `${field}${missing}${issue.message}`);
  }
  return keysOf(parsed.data.keys, (index) => {
    const node = doc.getIn(["keys", index], true);
    return (message) => at(isNode(node) ? (node.range?.[0] ?? 0) : 0, message);
  });
}

type Entry = z.infer<typeof entrySchema>;

/** The entries as keys; one key given to two environments, or with two accesses, is refused. */
function keysOf(
  entries: readonly Entry[],
  errorAt: (index: number) => (message: string) => Error,
): ApiKey[] {
  const seen = new Map<string, { entry: Entry; index: number }>();
  const keys: ApiKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const sha256 = (entry.key_sha256 ?? keySha256(entry.key!)).toLowerCase();
    const earlier = seen.get(sha256);
    if (earlier) {
      if (earlier.entry.environment === entry.environment && earlier.entry.access === entry.access)
        continue;
      throw errorAt(index)(
        `this key is listed already (entry ${earlier.index + 1}) with environment \`${earlier.entry.environment}\` and access \`${earlier.entry.access}\`; a key has one environment and one access`,
      );
    }
    seen.set(sha256, { entry, index });
    const { environment, access } = entry;
    keys.push(
      entry.key === undefined
        ? { keySha256: sha256, environment, access }
        : { key: entry.key, environment, access },
    );
  }
  return keys;
}

/**
 * The keys of a keys file together with others (the read-write keys of `default` from
 * `--api-key-file`): the same conflicts are refused.
 */
export function mergeKeys(file: string, listed: readonly ApiKey[], others: readonly ApiKey[]) {
  const all = [...listed, ...others];
  const byDigest = new Map<string, ApiKey>();
  for (const key of all) {
    const sha256 = ("key" in key ? keySha256(key.key) : key.keySha256).toLowerCase();
    const earlier = byDigest.get(sha256);
    if (earlier && (earlier.environment !== key.environment || earlier.access !== key.access))
      throw new KeysFileError(
        `${file}: a key of environment \`${earlier.environment}\` (${earlier.access}) is also given as a ${key.access} key of \`${key.environment}\` (--api-key-file or POLAR_SQL_API_KEYS)`,
      );
    byDigest.set(sha256, key);
  }
  return all;
}
