/**
 * The store's statements are written with Kysely (its query builder or its `sql` tag) and
 * compiled here for the executor's engine: identifiers given as `sql.id`, `sql.table` or
 * `sql.ref` are quoted by the engine's compiler and values become parameters (`$n` or `?`), so
 * nothing a caller sends becomes statement text. The store runs the compiled text on its own
 * executor (src/store/executor.ts).
 */
import {
  type CompiledQuery,
  type DatabaseIntrospector,
  type DialectAdapter,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type RawBuilder,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { SqlExecutor, StatementHints } from "./executor.js";

export type Engine = SqlExecutor["engine"];

const ENGINES: Record<
  Engine,
  {
    adapter: new () => DialectAdapter;
    introspector: new (db: Kysely<unknown>) => DatabaseIntrospector;
    compiler: new () => QueryCompiler;
  }
> = {
  postgres: {
    adapter: PostgresAdapter,
    introspector: PostgresIntrospector,
    compiler: PostgresQueryCompiler,
  },
  sqlite: {
    adapter: SqliteAdapter,
    introspector: SqliteIntrospector,
    compiler: SqliteQueryCompiler,
  },
};

/** A Kysely instance that only compiles (its driver runs nothing), typed with `Tables`. */
export function compilingKysely<Tables>(engine: Engine): Kysely<Tables> {
  const { adapter, introspector, compiler } = ENGINES[engine];
  return new Kysely<Tables>({
    dialect: {
      createAdapter: () => new adapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new introspector(db),
      createQueryCompiler: () => new compiler(),
    },
  });
}

const compilers: Record<Engine, Kysely<object>> = {
  postgres: compilingKysely("postgres"),
  sqlite: compilingKysely("sqlite"),
};

/** A statement of the `sql` tag as text and parameters for the engine. */
export function compile<Row>(engine: Engine, statement: RawBuilder<Row>): CompiledQuery<Row> {
  return statement.compile(compilers[engine]);
}

/** Runs a statement of the `sql` tag on `db`. */
export function run<Row>(
  db: SqlExecutor,
  statement: RawBuilder<Row>,
  hints?: StatementHints,
): Promise<Row[]> {
  const { sql, parameters } = compile(db.engine, statement);
  return db.query<Row>(sql, parameters, hints);
}

/**
 * Runs a statement that recurs with other values (`SqlExecutor.prepared`): its values must be
 * strings, each written as `CAST(${value} AS <type>)`.
 */
export function runPrepared<Row>(
  db: SqlExecutor,
  statement: RawBuilder<Row>,
  hints?: StatementHints,
): Promise<Row[]> {
  const { sql, parameters } = compile(db.engine, statement);
  return db.prepared<Row>(sql, parameters as readonly string[], hints);
}
