/** The MySQL and MariaDB catalog statements of its session (./catalog.ts): `information_schema`. */
import {
  type CompiledQuery,
  MysqlAdapter,
  MysqlQueryCompiler,
  type SelectQueryBuilder,
  sql,
} from "kysely";
import type { TableName } from "../../database/types.js";
import { type Catalogs, compileOnly, duplicateCount } from "../shared/catalog-queries.js";

const mysql = compileOnly(
  () => new MysqlAdapter(),
  () => new MysqlQueryCompiler(),
);

/** How many values of `columns` occur more than once in `table`. */
export function mysqlDuplicateCount(table: TableName, columns: readonly string[]): CompiledQuery {
  return duplicateCount(mysql, table, columns);
}

/** Base tables and views of `schema` with their kind (`information_schema.TABLES`). */
export function mysqlTables(schema: string): CompiledQuery {
  return mysql
    .selectFrom("information_schema.TABLES")
    .select(["TABLE_SCHEMA as schema", "TABLE_NAME as name", "TABLE_TYPE as kind"])
    .where("TABLE_SCHEMA", "=", schema)
    .compile();
}

type InformationSchema = SelectQueryBuilder<Catalogs, string, object>;

function ofTables(query: InformationSchema, schema: string, names: readonly string[]) {
  return query.where("TABLE_SCHEMA", "=", schema).where("TABLE_NAME", "in", [...names]);
}

/** The columns of tables `names` of `schema`, in table then column order. */
export function mysqlColumns(schema: string, names: readonly string[]): CompiledQuery {
  return ofTables(
    mysql
      .selectFrom("information_schema.COLUMNS")
      .select([
        "TABLE_NAME as tbl",
        "COLUMN_NAME as name",
        "COLUMN_TYPE as type",
        "IS_NULLABLE as nullable",
      ]),
    schema,
    names,
  )
    .orderBy("TABLE_NAME")
    .orderBy("ORDINAL_POSITION")
    .compile();
}

/**
 * The columns of the unique indexes of tables `names` of `schema`, the primary key first; an
 * index on an expression has a NULL column.
 */
export function mysqlUniqueIndexes(schema: string, names: readonly string[]): CompiledQuery {
  return ofTables(
    mysql
      .selectFrom("information_schema.STATISTICS")
      .select(["TABLE_NAME as tbl", "INDEX_NAME as idx", "COLUMN_NAME as name"]),
    schema,
    names,
  )
    .where("NON_UNIQUE", "=", 0)
    .orderBy("TABLE_NAME")
    .orderBy(sql`${sql.ref("INDEX_NAME")} = ${"PRIMARY"}`, "desc")
    .orderBy("INDEX_NAME")
    .orderBy("SEQ_IN_INDEX")
    .compile();
}

/** The foreign key columns of tables `names` of `schema` and what they reference. */
export function mysqlForeignKeys(schema: string, names: readonly string[]): CompiledQuery {
  return ofTables(
    mysql
      .selectFrom("information_schema.KEY_COLUMN_USAGE")
      .select([
        "TABLE_NAME as tbl",
        "CONSTRAINT_NAME as con",
        "COLUMN_NAME as name",
        "REFERENCED_TABLE_SCHEMA as ref_schema",
        "REFERENCED_TABLE_NAME as ref_name",
        "REFERENCED_COLUMN_NAME as ref_column",
      ]),
    schema,
    names,
  )
    .where("REFERENCED_TABLE_NAME", "is not", null)
    .orderBy("TABLE_NAME")
    .orderBy("CONSTRAINT_NAME")
    .orderBy("ORDINAL_POSITION")
    .compile();
}

/** The declared types of these columns (schema, table, column), where they exist. */
export function mysqlColumnTypes(
  columns: readonly { readonly schema: string; readonly table: string; readonly column: string }[],
): CompiledQuery {
  return mysql
    .selectFrom("information_schema.COLUMNS")
    .select(["TABLE_SCHEMA as s", "TABLE_NAME as t", "COLUMN_NAME as c", "COLUMN_TYPE as type"])
    .where((eb) =>
      eb.or(
        columns.map(({ schema, table, column }) =>
          eb.and([
            eb("TABLE_SCHEMA", "=", schema),
            eb("TABLE_NAME", "=", table),
            eb("COLUMN_NAME", "=", column),
          ]),
        ),
      ),
    )
    .compile();
}

/** A session setting with its value as a parameter (`SET SESSION name = ?`). */
export function mysqlSessionSetting(
  name: "max_statement_time" | "max_execution_time",
  value: number,
): CompiledQuery {
  // Kysely has no SET statement; the name is ours (a fixed setting), the value a parameter.
  return sql`set session ${sql.raw(name)} = ${value}`.compile(mysql);
}
