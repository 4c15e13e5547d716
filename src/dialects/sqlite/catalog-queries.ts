/** The SQLite catalog statements of its session (./catalog.ts): `sqlite_master`. */
import { type CompiledQuery, type SqlBool, SqliteAdapter, SqliteQueryCompiler, sql } from "kysely";
import type { TableName } from "../../database/types.js";
import { compileOnly, duplicateCount } from "../shared/catalog-queries.js";

/** The type SQLite's sessions give a column without a declared type (a computed column). */
export const SQLITE_UNTYPED = "any";

const sqlite = compileOnly(
  () => new SqliteAdapter(),
  () => new SqliteQueryCompiler(),
);

/** How many values of `columns` occur more than once in `table`. */
export function sqliteDuplicateCount(table: TableName, columns: readonly string[]): CompiledQuery {
  return duplicateCount(sqlite, table, columns);
}

/**
 * Tables and views of attached database `schema` (`sqlite_master`), without SQLite's own;
 * with `name`, only the one of that name in any case.
 */
export function sqliteTables(schema: string, name?: string): CompiledQuery {
  const query = sqlite
    .selectFrom(sql.id(schema, "sqlite_master").as("m"))
    .select(["name", "type", "sql"])
    .where("type", "in", ["table", "view"])
    .where(sql<SqlBool>`name not like ${"sqlite\\_%"} escape ${"\\"}`);
  return name === undefined
    ? query.orderBy("name").compile()
    : query.where(sql<SqlBool>`name = ${name} collate nocase`).compile();
}
