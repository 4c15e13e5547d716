/** The PostgreSQL catalog statements of its session (./catalog.ts): pg_catalog, `::` casts, `ARRAY(…)`. */
import {
  type CompiledQuery,
  type Expression,
  PostgresAdapter,
  PostgresQueryCompiler,
  type RawBuilder,
  type SqlBool,
  sql,
} from "kysely";
import type { TableName } from "../../database/types.js";
import { compileOnly, duplicateCount } from "../shared/catalog-queries.js";

const postgres = compileOnly(
  () => new PostgresAdapter(),
  () => new PostgresQueryCompiler(),
);

/** How many values of `columns` occur more than once in `table` (an `int`, not pg's bigint text). */
export function postgresDuplicateCount(
  table: TableName,
  columns: readonly string[],
): CompiledQuery {
  return duplicateCount(postgres, table, columns, sql<number>`count(*)::int`);
}

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
