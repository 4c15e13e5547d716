/**
 * The PostgreSQL dialect of `DatabaseSession` (see `src/database/types.ts`): the catalog from
 * `pg_catalog`, a query's columns from `SELECT * FROM (query) LIMIT 0` (PostgreSQL plans the
 * query but reads no row), uniqueness from constraints and unique indexes, and a `GROUP BY …
 * HAVING count(*) > 1` count where none says so. Every operation runs in its own
 * `BEGIN READ ONLY … ROLLBACK` with a statement timeout, over one connection.
 */
import type { CompiledQuery } from "kysely";
import pg from "pg";
import type {
  Catalog,
  CatalogTable,
  ColumnFamily,
  DatabaseSession,
  Described,
} from "../../database/types.js";
import {
  postgresColumns,
  postgresConstraints,
  postgresDuplicateCount,
  postgresLocalSetting,
  postgresTables,
  postgresTypeNames,
  postgresUniqueIndexes,
} from "./catalog-queries.js";

/** Runs one statement with parameters over one connection (extended protocol). */
export type PgRunner = (
  text: string,
  params: readonly unknown[],
) => Promise<{
  readonly rows: readonly Record<string, unknown>[];
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
}>;

export interface PostgresSessionOptions {
  /** Milliseconds any one statement may run; default 30 000. */
  readonly statementTimeout?: number;
  /** Called by `close()`. */
  readonly close?: () => Promise<void>;
}

const RESERVED = new Set(
  (
    "all analyse analyze and any array as asc asymmetric authorization binary both case cast " +
    "check collate collation column concurrently constraint create cross current_catalog " +
    "current_date current_role current_schema current_time current_timestamp current_user " +
    "default deferrable desc distinct do else end except false fetch for foreign freeze from " +
    "full grant group having ilike in initially inner intersect into is isnull join lateral " +
    "leading left like limit localtime localtimestamp natural not notnull null offset on only " +
    "or order outer overlaps placing primary references returning right select session_user " +
    "similar some symmetric system_user table tablesample then to trailing true union unique " +
    "user using variadic verbose when where window with"
  ).split(" "),
);

/** A PostgreSQL identifier, quoted unless it is a plain lower-case name. */
export function postgresIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name)
    ? name
    : `"${name.replaceAll('"', '""')}"`;
}

const INTEGER = new Set([
  "smallint",
  "integer",
  "int",
  "int2",
  "int4",
  "int8",
  "bigint",
  "smallserial",
  "serial",
  "bigserial",
  "serial2",
  "serial4",
  "serial8",
]);
const TEXT = new Set([
  "text",
  "character varying",
  "varchar",
  "character",
  "char",
  "bpchar",
  "citext",
  "name",
  "string",
]);

/** The family of a PostgreSQL type name (`character varying(64)` → text). */
export function postgresFamily(type: string): ColumnFamily {
  const base = type
    .trim()
    .toLowerCase()
    .replace(/\s*\(.*$/, "")
    .replace(/\s+/g, " ");
  if (INTEGER.has(base)) return "integer";
  if (base === "numeric" || base === "decimal") return "decimal";
  if (TEXT.has(base)) return "text";
  if (base === "uuid") return "uuid";
  if (base === "boolean" || base === "bool") return "boolean";
  return "other";
}

const DESCRIBE_PREFIX = "SELECT * FROM (\n";

interface TableRow {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly kind: string;
}

/**
 * A session over one PostgreSQL connection (a `pg.Client`, or PGlite through
 * `(text, params) => lite.query(text, params)`). A pool does not do: each operation's
 * statements must share a transaction.
 */
export function postgresSession(
  run: PgRunner,
  options: PostgresSessionOptions = {},
): DatabaseSession {
  const timeout = Math.max(1, Math.floor(options.statementTimeout ?? 30_000));

  /** Runs a statement of ./catalog-queries.ts. */
  const runQuery = (statement: CompiledQuery) => run(statement.sql, statement.parameters);

  async function readOnly<T>(work: () => Promise<T>): Promise<T> {
    await run("BEGIN READ ONLY", []);
    try {
      await runQuery(postgresLocalSetting("statement_timeout", String(timeout)));
      await runQuery(postgresLocalSetting("lock_timeout", "5000"));
      return await work();
    } finally {
      await run("ROLLBACK", []);
    }
  }

  async function tablesOf(rows: readonly TableRow[]): Promise<CatalogTable[]> {
    if (rows.length === 0) return [];
    const oids = rows.map((row) => row.oid);
    const columns = await runQuery(postgresColumns(oids));
    const constraints = await runQuery(postgresConstraints(oids));
    const indexes = await runQuery(postgresUniqueIndexes(oids));
    return rows.map((row) => {
      const mine = <R extends Record<string, unknown>>(list: readonly R[]) =>
        list.filter((r) => r.rel === row.oid);
      const own = mine(constraints.rows);
      const primary = own.find((c) => c.kind === "p");
      return {
        schema: row.schema,
        name: row.name,
        kind: row.kind === "v" || row.kind === "m" ? "view" : "table",
        columns: mine(columns.rows).map((c) => ({
          name: c.name as string,
          type: c.type as string,
          nullable: !(c.notnull as boolean),
        })),
        primaryKey: primary ? (primary.columns as string[]) : null,
        uniqueKeys: [
          ...own.filter((c) => c.kind === "u").map((c) => c.columns as string[]),
          ...mine(indexes.rows).map((i) => i.columns as string[]),
        ],
        foreignKeys: own
          .filter((c) => c.kind === "f")
          .map((c) => ({
            columns: c.columns as string[],
            references: { schema: c.ref_schema as string, name: c.ref_name as string },
            referencedColumns: c.ref_columns as string[],
          })),
      };
    });
  }

  return {
    dialect: "postgres",

    describe(query) {
      return readOnly(async (): Promise<Described> => {
        await run("SAVEPOINT polar_describe", []);
        try {
          const result = await run(`${DESCRIBE_PREFIX}${query}\n) AS polar_describe LIMIT 0`, []);
          const oids = [...new Set(result.fields.map((field) => field.dataTypeID))];
          const types = await runQuery(postgresTypeNames(oids));
          const typeOf = new Map(types.rows.map((row) => [row.oid as number, row.type as string]));
          return {
            kind: "columns",
            columns: result.fields.map((field) => ({
              name: field.name,
              type: typeOf.get(field.dataTypeID) ?? `oid ${field.dataTypeID}`,
            })),
          };
        } catch (cause) {
          await run("ROLLBACK TO SAVEPOINT polar_describe", []);
          const error = cause as { message?: string; position?: string };
          const position = Number(error.position);
          const offset = Number.isInteger(position) ? position - 1 - DESCRIBE_PREFIX.length : -1;
          return {
            kind: "error",
            message: String(error.message ?? cause),
            offset: offset >= 0 && offset <= query.length ? offset : null,
          };
        }
      });
    },

    catalog(schema) {
      return readOnly(async (): Promise<Catalog> => {
        const name =
          schema ?? ((await run("SELECT current_schema() AS s", [])).rows[0]?.s as string);
        const rows = await runQuery(postgresTables({ schema: name }));
        return {
          dialect: "postgres",
          schema: name,
          tables: await tablesOf(rows.rows as unknown as TableRow[]),
        };
      });
    },

    table(name) {
      return readOnly(async () => {
        const text = name.map(postgresIdentifier).join(".");
        const rows = await runQuery(postgresTables({ qualified: text }));
        const [table] = await tablesOf(rows.rows as unknown as TableRow[]);
        return table ?? null;
      });
    },

    duplicateKeys(table, columns) {
      return readOnly(async () => {
        const result = await runQuery(postgresDuplicateCount(table, columns));
        return Number(result.rows[0]?.n ?? 0);
      });
    },

    family: postgresFamily,
    identifier: postgresIdentifier,
    close: options.close ?? (async () => {}),
  };
}

/** Connects to `url` (`postgres://…`) and returns a session that closes the connection. */
export async function openPostgres(
  url: string,
  options: Omit<PostgresSessionOptions, "close"> = {},
): Promise<DatabaseSession> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // An idle connection that breaks must not crash the process.
  client.on("error", () => {});
  return postgresSession(
    async (text, params) => {
      const result = await client.query({
        text,
        values: [...params],
        queryMode: "extended",
      } as pg.QueryConfig);
      return { rows: result.rows, fields: result.fields };
    },
    { ...options, close: () => client.end() },
  );
}
