/**
 * The fact sync file, in the format of Oso's sync configurations (docs/migrating-from-oso-cloud.md):
 *
 *   facts:
 *     has_role(User:_, admin, Company:_):    # a data bindings signature
 *       db: app-db
 *       query: SELECT user_id, company_id FROM users WHERE is_admin
 *   dbs:
 *     app-db:
 *       connection_string: $DATABASE_URL     # $NAME and ${NAME} read the environment
 *
 * Optional `version: 1` and `source: postgres` are accepted. Every problem names the file and
 * line; connection strings never appear in messages.
 */
import { isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import { formatSignature, parseSignature } from "../bindings/signature.js";
import type { BindingSlot } from "../bindings/types.js";
import { tick } from "../source/diagnostic.js";

export interface SyncedSignature {
  /** Canonical text, e.g. `has_role(User:_, String:admin, Company:_)`. */
  readonly signature: string;
  readonly predicate: string;
  readonly slots: readonly BindingSlot[];
  /** The name of its entry under `dbs`. */
  readonly db: string;
  readonly query: string;
  /** `file:line` of the signature, for messages. */
  readonly where: string;
}

export interface SyncDb {
  readonly name: string;
  /** With the environment substituted. Never print it. */
  readonly connectionString: string;
  readonly where: string;
}

export interface SyncConfig {
  readonly file: string;
  readonly facts: readonly SyncedSignature[];
  readonly dbs: ReadonlyMap<string, SyncDb>;
}

/** A problem with the sync file; the message starts with `file:line:`. */
export class SyncConfigError extends Error {
  override readonly name = "SyncConfigError";
}

const TOP_KEYS = ["version", "source", "facts", "dbs"];

/**
 * Parses a sync file.
 *
 *   parseSyncConfig(text, "sync.yaml", process.env).facts[0]?.signature;
 *   // "has_role(User:_, String:admin, Company:_)"
 */
export function parseSyncConfig(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): SyncConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (node: unknown) => `${file}:${lines.linePos(offsetOf(node)).line}`;
  const fail = (node: unknown, message: string): never => {
    throw new SyncConfigError(`${at(node)}: ${message}`);
  };
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    throw new SyncConfigError(
      `${file}:${first.linePos?.[0]?.line ?? 1}: invalid YAML: ${first.message.split("\n")[0]}`,
    );
  }
  const root = doc.contents;
  if (!isMap(root)) return fail(root, "the sync file must be a mapping with `facts` and `dbs`");
  const section = (name: string) => root.items.find((pair) => scalarText(pair.key) === name);
  for (const pair of root.items) {
    const key = scalarText(pair.key);
    if (!TOP_KEYS.includes(key))
      fail(
        pair.key,
        `unknown key ${tick(key)}; expected \`facts\`, \`dbs\`, \`version\` or \`source\``,
      );
  }
  const version = section("version");
  if (version && !(isScalar(version.value) && String(version.value.value) === "1"))
    fail(version.key, "`version` must be 1");
  const source = section("source");
  if (source && !(isScalar(source.value) && source.value.value === "postgres"))
    fail(source.key, "`source` must be `postgres` (the only source supported)");

  const dbs = new Map<string, SyncDb>();
  const dbsPair = section("dbs");
  if (!dbsPair || !isMap(dbsPair.value))
    return fail(dbsPair?.key ?? root, "`dbs` must map database names to `{ connection_string }`");
  for (const pair of dbsPair.value.items) {
    const name = scalarText(pair.key);
    const value = pair.value;
    const field = isMap(value)
      ? value.items.find((item) => scalarText(item.key) === "connection_string")
      : undefined;
    if (isMap(value)) {
      for (const item of value.items) {
        if (scalarText(item.key) !== "connection_string")
          fail(
            item.key,
            `unknown key ${tick(scalarText(item.key))} in db ${tick(name)}; expected \`connection_string\``,
          );
      }
    }
    const raw = field && isScalar(field.value) ? field.value.value : undefined;
    if (typeof raw !== "string" || raw.trim() === "")
      fail(pair.key, `db ${tick(name)} has no \`connection_string\``);
    const connectionString = substitute(raw as string, env, (variable) =>
      fail(
        field!.value,
        `environment variable ${tick(variable)} (in the connection string of db ${tick(name)}) is not set`,
      ),
    );
    if (!/^postgres(ql)?:\/\//i.test(connectionString.trim()))
      fail(
        field!.value,
        `db ${tick(name)}: only PostgreSQL connection strings (\`postgres://…\`) are supported`,
      );
    dbs.set(name, { name, connectionString, where: at(pair.key) });
  }

  const facts: SyncedSignature[] = [];
  const factsPair = section("facts");
  if (!factsPair || !isMap(factsPair.value))
    return fail(factsPair?.key ?? root, "`facts` must map fact signatures to `{ db, query }`");
  const seen = new Set<string>();
  for (const pair of factsPair.value.items) {
    const raw = scalarText(pair.key);
    const keyNode = pair.key;
    const parsed = parseSignature(raw);
    if (parsed.kind === "error") return fail(keyNode, parsed.message);
    const signature = formatSignature(parsed.predicate, parsed.slots);
    if (seen.has(signature)) fail(keyNode, `signature ${tick(signature)} is listed twice`);
    seen.add(signature);
    if (!isMap(pair.value))
      return fail(keyNode, `${tick(signature)} must be a mapping with \`db\` and \`query\``);
    const fields = new Map<string, unknown>();
    for (const item of pair.value.items) {
      const key = scalarText(item.key);
      if (key !== "db" && key !== "query")
        fail(
          item.key,
          `unknown key ${tick(key)} in ${tick(signature)}; expected \`db\` and \`query\``,
        );
      fields.set(key, isScalar(item.value) ? item.value.value : undefined);
    }
    const db = fields.get("db");
    const query = fields.get("query");
    if (typeof db !== "string" || db === "")
      return fail(keyNode, `${tick(signature)} has no \`db\``);
    if (!dbs.has(db))
      fail(keyNode, `${tick(signature)} names db ${tick(db)}, which \`dbs\` does not list`);
    if (typeof query !== "string" || query.trim() === "")
      return fail(keyNode, `${tick(signature)} has no \`query\``);
    facts.push({
      signature,
      predicate: parsed.predicate,
      slots: parsed.slots,
      db,
      query: query.trim().replace(/;\s*$/, ""),
      where: at(keyNode),
    });
  }
  return { file, facts, dbs };
}

function scalarText(node: unknown): string {
  return isScalar(node) ? String(node.value) : String(node ?? "");
}

function offsetOf(node: unknown): number {
  return isNode(node) ? (node.range?.[0] ?? 0) : 0;
}

/**
 * `$NAME` and `${NAME}` replaced by the environment; `$$` is a `$`.
 *
 *   substitute("postgres://u:${PW}@h/db", { PW: "s" }, fail); // "postgres://u:s@h/db"
 */
function substitute(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: (variable: string) => never,
): string {
  return text.replace(
    /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (match, braced, bare) => {
      if (match === "$$") return "$";
      const name = (braced ?? bare) as string;
      const value = env[name];
      return value === undefined ? missing(name) : value;
    },
  );
}
