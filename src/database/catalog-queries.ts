/**
 * The catalog and duplicate-count statements of the database sessions (`bindings check` and
 * `bindings init`), built with Kysely and compiled by each engine's own query compiler, as the
 * fact store builds its statements (src/store/statements.ts). Values are always parameters;
 * table and column names read from the catalog or the bindings are identifier nodes, quoted by
 * the compiler. Engine syntax Kysely has no node for (PostgreSQL's `::` casts, `ARRAY(…)`,
 * `WITH ORDINALITY`) is a `sql` fragment of fixed text whose values are parameters too. The
 * sessions run the compiled text on their own connection.
 */
import {
  type CompiledQuery,
  DummyDriver,
  type Expression,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import type { TableName } from "./types.js";

/** Catalog tables are not typed here: their rows are read by name in each session. */
// biome-ignore lint/suspicious/noExplicitAny: the system catalogs of three engines, untyped.
type Catalogs = any;

/** A builder that only compiles, for one engine. */
function compileOnly(engine: "postgres" | "mysql" | "sqlite"): Kysely<Catalogs> {
  return new Kysely<Catalogs>({
    dialect: {
      createDriver: () => new DummyDriver(),
      createAdapter: () =>
        engine === "postgres"
          ? new PostgresAdapter()
          : engine === "mysql"
            ? new MysqlAdapter()
            : new SqliteAdapter(),
      createIntrospector: (db) =>
        engine === "postgres"
          ? new PostgresIntrospector(db)
          : engine === "mysql"
            ? new MysqlIntrospector(db)
            : new SqliteIntrospector(db),
      createQueryCompiler: () =>
        engine === "postgres"
          ? new PostgresQueryCompiler()
          : engine === "mysql"
            ? new MysqlQueryCompiler()
            : new SqliteQueryCompiler(),
    },
  });
}

const postgres = compileOnly("postgres");
const mysql = compileOnly("mysql");
const sqlite = compileOnly("sqlite");

/** `schema.name` (or `name`) as identifier nodes. */
function tableRef(table: TableName): RawBuilder<unknown> {
  return table.schema === null ? sql.id(table.name) : sql.id(table.schema, table.name);
}

/**
 * `SELECT count(*) AS n FROM (SELECT 1 FROM table GROUP BY columns HAVING count(*) > 1) AS d`:
 * how many values of `columns` occur more than once in `table`.
 */
export function duplicateCount(
  engine: "postgres" | "mysql" | "sqlite",
  table: TableName,
  columns: readonly string[],
): CompiledQuery {
  const db = engine === "postgres" ? postgres : engine === "mysql" ? mysql : sqlite;
  const repeated = db
    .selectFrom(tableRef(table).as("t"))
    .select(sql.lit(1).as("one"))
    .groupBy(columns.map((column) => sql.id(column)))
    .having((eb) => eb(eb.fn.countAll(), ">", 1));
  const count = engine === "postgres" ? sql<number>`count(*)::int` : sql<number>`count(*)`;
  return db.selectFrom(repeated.as("d")).select(count.as("n")).compile();
}

// ---------------------------------------------------------------- PostgreSQL

/** `SET LOCAL statement_timeout` with the value as a parameter (`set_config`, local). */
export function postgresLocalSetting(name: string, value: string): CompiledQuery {
  return postgres
    .selectNoFrom(sql<string>`set_config(${name}, ${value}, true)`.as("setting"))
    .compile();
}

/**
 * Tables, partitioned tables, views and materialized views with their oid, schema, name and
 * kind: of one schema (by name), or the one a qualified name resolves to (`to_regclass`).
 */
export function postgresTables(
  filter: { readonly schema: string } | { readonly qualified: string },
): CompiledQuery {
  const query = postgres
    .selectFrom("pg_class as c")
    .innerJoin("pg_namespace as n", "n.oid", "c.relnamespace")
    .select([
      sql<number>`c.oid::int`.as("oid"),
      sql<string>`n.nspname::text`.as("schema"),
      sql<string>`c.relname::text`.as("name"),
      sql<string>`c.relkind::text`.as("kind"),
    ])
    .where("c.relkind", "in", ["r", "p", "v", "m"])
    .where(sql<SqlBool>`not c.relispartition`);
  return "schema" in filter
    ? query.where("n.nspname", "=", filter.schema).orderBy("c.relname").compile()
    : query.where("c.oid", "=", sql`to_regclass(${filter.qualified})`).compile();
}

/** `attrelid = ANY($1::int[]::oid[])`-style membership of an oid column in a parameter list. */
function oidIn(column: string, oids: readonly number[]): Expression<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} = any(${[...oids]}::int[]::oid[])`;
}

/** The columns of the relations `oids`, in table then column order. */
export function postgresColumns(oids: readonly number[]): CompiledQuery {
  return postgres
    .selectFrom("pg_attribute as a")
    .select((eb) => [
      sql<number>`a.attrelid::int`.as("rel"),
      sql<string>`a.attname::text`.as("name"),
      eb.fn<string>("format_type", ["a.atttypid", "a.atttypmod"]).as("type"),
      "a.attnotnull as notnull",
    ])
    .where(oidIn("a.attrelid", oids))
    .where("a.attnum", ">", 0)
    .where(sql<SqlBool>`not a.attisdropped`)
    .orderBy("a.attrelid")
    .orderBy("a.attnum")
    .compile();
}

/** The names of the columns numbered in `array` of relation `relation`, in array order. */
function keyColumns(array: string, relation: string, limit?: string): RawBuilder<string[]> {
  const within = limit ? sql` where k.ord <= ${sql.ref(limit)}` : sql``;
  return sql<string[]>`array(select a.attname::text
    from unnest(${sql.ref(array)}::int2[]) with ordinality as k(num, ord)
    join pg_attribute a on a.attrelid = ${sql.ref(relation)} and a.attnum = k.num${within}
    order by k.ord)`;
}

/** Primary key, unique and foreign key constraints of the relations `oids`, by name. */
export function postgresConstraints(oids: readonly number[]): CompiledQuery {
  return postgres
    .selectFrom("pg_constraint as c")
    .leftJoin("pg_class as fc", "fc.oid", "c.confrelid")
    .leftJoin("pg_namespace as fn", "fn.oid", "fc.relnamespace")
    .select([
      sql<number>`c.conrelid::int`.as("rel"),
      sql<string>`c.contype::text`.as("kind"),
      keyColumns("c.conkey", "c.conrelid").as("columns"),
      sql<string>`fn.nspname::text`.as("ref_schema"),
      sql<string>`fc.relname::text`.as("ref_name"),
      keyColumns("c.confkey", "c.confrelid").as("ref_columns"),
    ])
    .where(oidIn("c.conrelid", oids))
    .where("c.contype", "in", ["p", "u", "f"])
    .orderBy("c.conname")
    .compile();
}

/**
 * Unique indexes of the relations `oids` that no constraint owns, without predicate or
 * expression: their key columns (included columns left out).
 */
export function postgresUniqueIndexes(oids: readonly number[]): CompiledQuery {
  return postgres
    .selectFrom("pg_index as i")
    .innerJoin("pg_class as ic", "ic.oid", "i.indexrelid")
    .select([
      sql<number>`i.indrelid::int`.as("rel"),
      keyColumns("i.indkey", "i.indrelid", "i.indnkeyatts").as("columns"),
    ])
    .where(oidIn("i.indrelid", oids))
    .where(sql<SqlBool>`i.indisunique and not i.indisprimary`)
    .where("i.indpred", "is", null)
    .where("i.indexprs", "is", null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("pg_constraint as c")
            .select(sql.lit(1).as("one"))
            .whereRef("c.conindid", "=", "i.indexrelid"),
        ),
      ),
    )
    .orderBy("ic.relname")
    .compile();
}

/** The names of the types `oids` (`format_type`). */
export function postgresTypeNames(oids: readonly number[]): CompiledQuery {
  return postgres
    .selectFrom("pg_type")
    .select((eb) => [
      sql<number>`oid::int`.as("oid"),
      eb.fn<string>("format_type", ["oid", sql.lit(null)]).as("type"),
    ])
    .where(oidIn("oid", oids))
    .compile();
}

// ---------------------------------------------------------------- MySQL and MariaDB

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

// ---------------------------------------------------------------- SQLite

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
