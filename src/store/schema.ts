/**
 * The fact store's tables. Facts live in one table with up to MAX_FACT_ARITY (type, id)
 * argument pairs; unused pairs hold ''. `fact_key` (a hash of the canonical fact) makes facts a
 * set. Migrations run under an advisory lock so that instances starting together do not race.
 */
import type { SqlExecutor } from "./executor.js";

export const MAX_FACT_ARITY = 8;
export const FACT_TABLE = "polar_fact";
export const POLICY_TABLE = "polar_policy";
export const META_TABLE = "polar_meta";
/** The distinct argument-type combinations stored per predicate (never shrinks on delete). */
export const SHAPE_TABLE = "polar_fact_shape";

const argColumns = Array.from(
  { length: MAX_FACT_ARITY },
  (_, i) => `t${i} text NOT NULL DEFAULT '', i${i} text NOT NULL DEFAULT ''`,
).join(",\n  ");

/** Migration n brings the schema from version n to n + 1. Never edit a released step. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${FACT_TABLE} (
  fact_key text PRIMARY KEY,
  predicate text NOT NULL,
  arity smallint NOT NULL,
  ${argColumns}
);
CREATE INDEX ${FACT_TABLE}_a0 ON ${FACT_TABLE} (predicate, arity, i0, t0);
CREATE INDEX ${FACT_TABLE}_a1 ON ${FACT_TABLE} (predicate, arity, i1, t1);
CREATE INDEX ${FACT_TABLE}_a2 ON ${FACT_TABLE} (predicate, arity, i2, t2);
CREATE TABLE ${POLICY_TABLE} (
  version bigserial PRIMARY KEY,
  src text NOT NULL,
  filename text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${META_TABLE} (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE ${SHAPE_TABLE} (
  predicate text NOT NULL,
  types text[] NOT NULL,
  PRIMARY KEY (predicate, types)
);
INSERT INTO ${META_TABLE} (key, value) VALUES ('data_version', '0');
INSERT INTO ${META_TABLE} (key, value)
  SELECT 'token_secret', md5(random()::text || clock_timestamp()::text) || md5(random()::text);`,
  // The middle argument (a role or relation name, usually) joins the first and last position
  // indexes: a folder's parent link is found among its 100 documents' links in the index.
  `DROP INDEX ${FACT_TABLE}_a0;
CREATE INDEX ${FACT_TABLE}_a0 ON ${FACT_TABLE} (predicate, arity, i0, t0, i1);
DROP INDEX ${FACT_TABLE}_a2;
CREATE INDEX ${FACT_TABLE}_a2 ON ${FACT_TABLE} (predicate, arity, i2, t2, i1);`,
];

/**
 * The same tables in SQLite (src/store/sqlite-connection.ts): integer keys instead of serials,
 * the shape's types as a JSON array, and the page-token secret from `randomblob`. Strings
 * compare by byte (the BINARY collation), which for UTF-8 is code point order.
 */
const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${FACT_TABLE} (
  fact_key text PRIMARY KEY,
  predicate text NOT NULL,
  arity integer NOT NULL,
  ${argColumns}
) WITHOUT ROWID;
CREATE INDEX ${FACT_TABLE}_a0 ON ${FACT_TABLE} (predicate, arity, i0, t0, i1);
CREATE INDEX ${FACT_TABLE}_a1 ON ${FACT_TABLE} (predicate, arity, i1, t1);
CREATE INDEX ${FACT_TABLE}_a2 ON ${FACT_TABLE} (predicate, arity, i2, t2, i1);
CREATE TABLE ${POLICY_TABLE} (
  version integer PRIMARY KEY AUTOINCREMENT,
  src text NOT NULL,
  filename text,
  created_at text NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE ${META_TABLE} (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE ${SHAPE_TABLE} (
  predicate text NOT NULL,
  types text NOT NULL,
  PRIMARY KEY (predicate, types)
);
INSERT INTO ${META_TABLE} (key, value) VALUES ('data_version', '0');
INSERT INTO ${META_TABLE} (key, value) VALUES ('token_secret', lower(hex(randomblob(32))));`,
];

const LOCK_ID = 7_316_112; // arbitrary, fixed: serializes migrations across instances

/** Creates or upgrades the schema; safe to call from several instances at once. */
export async function migrate(db: SqlExecutor): Promise<void> {
  const sqlite = db.engine === "sqlite";
  const migrations = sqlite ? SQLITE_MIGRATIONS : MIGRATIONS;
  await db.transaction(async (tx) => {
    // SQLite's transaction holds the database's write lock already.
    if (!sqlite) await tx.query(`SELECT pg_advisory_xact_lock(${LOCK_ID})`);
    await tx.query("CREATE TABLE IF NOT EXISTS polar_schema_version (version integer NOT NULL)");
    const rows = await tx.query<{ version: number }>("SELECT version FROM polar_schema_version");
    let version = rows[0]?.version ?? 0;
    if (rows.length === 0) await tx.query("INSERT INTO polar_schema_version VALUES (0)");
    for (; version < migrations.length; version++) {
      for (const statement of migrations[version]!.split(/;\n/)) {
        if (statement.trim()) await tx.query(statement);
      }
      await tx.query(`UPDATE polar_schema_version SET version = ${version + 1}`);
    }
  });
}
