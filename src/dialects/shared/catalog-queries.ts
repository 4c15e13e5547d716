/**
 * What the catalog statements of the database sessions (`bindings check` and `bindings init`;
 * each dialect's catalog-queries.ts) share: a Kysely instance that only compiles, with the
 * engine's own query compiler, as the fact store builds its statements
 * (src/store/statements.ts), and the duplicate count. Values are always parameters; table and
 * column names read from the catalog or the bindings are identifier nodes, quoted by the
 * compiler. Engine syntax Kysely has no node for is a `sql` fragment of fixed text whose values
 * are parameters too. The sessions run the compiled text on their own connection.
 */
import {
  type CompiledQuery,
  type DialectAdapter,
  DummyDriver,
  Kysely,
  type Kysely as KyselyInstance,
  type QueryCompiler,
  type RawBuilder,
  sql,
} from "kysely";
import type { TableName } from "../../database/types.js";

/** Catalog tables are not typed here: their rows are read by name in each session. */
// biome-ignore lint/suspicious/noExplicitAny: the system catalogs of the engines, untyped.
export type Catalogs = any;

/** A builder that only compiles, with the engine's adapter and query compiler. */
export function compileOnly(
  adapter: () => DialectAdapter,
  compiler: () => QueryCompiler,
): Kysely<Catalogs> {
  return new Kysely<Catalogs>({
    dialect: {
      createDriver: () => new DummyDriver(),
      createAdapter: adapter,
      createIntrospector: () => {
        throw new Error("internal: catalog statements do not introspect");
      },
      createQueryCompiler: compiler,
    },
  });
}

/** `schema.name` (or `name`) as identifier nodes. */
function tableRef(table: TableName): RawBuilder<unknown> {
  return table.schema === null ? sql.id(table.name) : sql.id(table.schema, table.name);
}

/**
 * `SELECT count(*) AS n FROM (SELECT 1 FROM table GROUP BY columns HAVING count(*) > 1) AS d`:
 * how many values of `columns` occur more than once in `table`; `count` is how the engine
 * returns `count(*)` as a number.
 */
export function duplicateCount(
  db: KyselyInstance<Catalogs>,
  table: TableName,
  columns: readonly string[],
  count: RawBuilder<number> = sql<number>`count(*)`,
): CompiledQuery {
  const repeated = db
    .selectFrom(tableRef(table).as("t"))
    .select(sql.lit(1).as("one"))
    .groupBy(columns.map((column) => sql.id(column)))
    .having((eb) => eb(eb.fn.countAll(), ">", 1));
  return db.selectFrom(repeated.as("d")).select(count.as("n")).compile();
}
