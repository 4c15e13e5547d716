/**
 * The fact store's tables. Facts live in one table with up to MAX_FACT_ARITY (type, id)
 * argument pairs; unused pairs hold ''. `fact_key` (a hash of the canonical fact) makes facts a
 * set. Migrations run under an advisory lock so that instances starting together do not race.
 */
import { type RawBuilder, sql } from "kysely";
import { run } from "./compile.js";
import type { SqlExecutor } from "./executor.js";

export const MAX_FACT_ARITY = 8;
export const FACT_TABLE = "polar_fact";
export const POLICY_TABLE = "polar_policy";
export const META_TABLE = "polar_meta";
/** The distinct argument-type combinations stored per predicate (never shrinks on delete). */
export const SHAPE_TABLE = "polar_fact_shape";

const fact = sql.table(FACT_TABLE);
const policy = sql.table(POLICY_TABLE);
const meta = sql.table(META_TABLE);
const shape = sql.table(SHAPE_TABLE);
/** The fact table's index on argument `n`'s id and type. */
const argIndex = (n: number) => sql.id(`${FACT_TABLE}_a${n}`);

const argColumns = sql.join(
  Array.from(
    { length: MAX_FACT_ARITY },
    (_, i) =>
      sql`${sql.id(`t${i}`)} text NOT NULL DEFAULT '', ${sql.id(`i${i}`)} text NOT NULL DEFAULT ''`,
  ),
  sql`,\n  `,
);

type Migration = readonly RawBuilder<unknown>[];

/** Migration n brings the schema from version n to n + 1. Never edit a released step. */
const MIGRATIONS: readonly Migration[] = [
  [
    sql`CREATE TABLE ${fact} (
  fact_key text PRIMARY KEY,
  predicate text NOT NULL,
  arity smallint NOT NULL,
  ${argColumns}
)`,
    sql`CREATE INDEX ${argIndex(0)} ON ${fact} (predicate, arity, i0, t0)`,
    sql`CREATE INDEX ${argIndex(1)} ON ${fact} (predicate, arity, i1, t1)`,
    sql`CREATE INDEX ${argIndex(2)} ON ${fact} (predicate, arity, i2, t2)`,
    sql`CREATE TABLE ${policy} (
  version bigserial PRIMARY KEY,
  src text NOT NULL,
  filename text,
  created_at timestamptz NOT NULL DEFAULT now()
)`,
    sql`CREATE TABLE ${meta} (key text PRIMARY KEY, value text NOT NULL)`,
    sql`CREATE TABLE ${shape} (
  predicate text NOT NULL,
  types text[] NOT NULL,
  PRIMARY KEY (predicate, types)
)`,
    sql`INSERT INTO ${meta} (key, value) VALUES ('data_version', '0')`,
    sql`INSERT INTO ${meta} (key, value)
  SELECT 'token_secret', md5(random()::text || clock_timestamp()::text) || md5(random()::text)`,
  ],
  // The middle argument (a role or relation name, usually) joins the first and last position
  // indexes: a folder's parent link is found among its 100 documents' links in the index.
  [
    sql`DROP INDEX ${argIndex(0)}`,
    sql`CREATE INDEX ${argIndex(0)} ON ${fact} (predicate, arity, i0, t0, i1)`,
    sql`DROP INDEX ${argIndex(2)}`,
    sql`CREATE INDEX ${argIndex(2)} ON ${fact} (predicate, arity, i2, t2, i1)`,
  ],
];

/**
 * The same tables in SQLite (src/store/sqlite-connection.ts): integer keys instead of serials,
 * the shape's types as a JSON array, and the page-token secret from `randomblob`. Strings
 * compare by byte (the BINARY collation), which for UTF-8 is code point order.
 */
const SQLITE_MIGRATIONS: readonly Migration[] = [
  [
    sql`CREATE TABLE ${fact} (
  fact_key text PRIMARY KEY,
  predicate text NOT NULL,
  arity integer NOT NULL,
  ${argColumns}
) WITHOUT ROWID`,
    sql`CREATE INDEX ${argIndex(0)} ON ${fact} (predicate, arity, i0, t0, i1)`,
    sql`CREATE INDEX ${argIndex(1)} ON ${fact} (predicate, arity, i1, t1)`,
    sql`CREATE INDEX ${argIndex(2)} ON ${fact} (predicate, arity, i2, t2, i1)`,
    sql`CREATE TABLE ${policy} (
  version integer PRIMARY KEY AUTOINCREMENT,
  src text NOT NULL,
  filename text,
  created_at text NOT NULL DEFAULT CURRENT_TIMESTAMP
)`,
    sql`CREATE TABLE ${meta} (key text PRIMARY KEY, value text NOT NULL)`,
    sql`CREATE TABLE ${shape} (
  predicate text NOT NULL,
  types text NOT NULL,
  PRIMARY KEY (predicate, types)
)`,
    sql`INSERT INTO ${meta} (key, value) VALUES ('data_version', '0')`,
    sql`INSERT INTO ${meta} (key, value) VALUES ('token_secret', lower(hex(randomblob(32))))`,
  ],
];

const LOCK_ID = 7_316_112; // arbitrary, fixed: serializes migrations across instances

/** Creates or upgrades the schema; safe to call from several instances at once. */
export async function migrate(db: SqlExecutor): Promise<void> {
  const sqlite = db.engine === "sqlite";
  const migrations = sqlite ? SQLITE_MIGRATIONS : MIGRATIONS;
  await db.transaction(async (tx) => {
    // SQLite's transaction holds the database's write lock already.
    if (!sqlite) await run(tx, sql`SELECT pg_advisory_xact_lock(${LOCK_ID})`);
    await tx.query("CREATE TABLE IF NOT EXISTS polar_schema_version (version integer NOT NULL)");
    const rows = await tx.query<{ version: number }>("SELECT version FROM polar_schema_version");
    let version = rows[0]?.version ?? 0;
    if (rows.length === 0) await tx.query("INSERT INTO polar_schema_version VALUES (0)");
    for (; version < migrations.length; version++) {
      for (const statement of migrations[version]!) await run(tx, statement);
      await run(tx, sql`UPDATE polar_schema_version SET version = ${version + 1}`);
    }
  });
}
