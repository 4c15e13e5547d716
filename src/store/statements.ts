/**
 * The fact store's statements whose conditions depend on the request (which argument positions
 * a pattern fixes), built with Kysely's query builder and compiled by its PostgreSQL compiler:
 * values are always parameters, and column names come from the schema, never from a caller.
 * The store runs the compiled text on its own executor (src/store/executor.ts).
 */
import {
  type CompiledQuery,
  DummyDriver,
  type Expression,
  type ExpressionBuilder,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type SqlBool,
  sql,
} from "kysely";
import { FACT_TABLE } from "./schema.js";

type TypeColumn = `t${number}`;
type IdColumn = `i${number}`;

/** The fact table as Kysely sees it: `t<n>`/`i<n>` are argument n's type and id. */
type FactTable = { fact_key: string; predicate: string; arity: number } & Record<
  TypeColumn | IdColumn,
  string
>;
interface StoreTables {
  [FACT_TABLE]: FactTable;
}

/** A builder that only compiles: the store executes the text itself. */
const builder = new Kysely<StoreTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Facts = ExpressionBuilder<StoreTables, typeof FACT_TABLE>;

/** What a pattern fixes at one argument position: its type, its id, both, or neither. */
export interface PositionCondition {
  readonly position: number;
  readonly type?: string | null | undefined;
  readonly id?: string | null | undefined;
}

/**
 * `predicate = … and arity = …` (or `arity >= …`) and the fixed types and ids. With `typed`,
 * every parameter is cast to its column type, so that a prepared statement's parameter types do
 * not depend on the values.
 */
function factConditions(
  eb: Facts,
  predicate: string,
  arity: { readonly exactly: number } | { readonly atLeast: number },
  positions: readonly PositionCondition[],
  typed = false,
): Expression<SqlBool> {
  const text = (value: string) => (typed ? eb.cast<string>(eb.val(value), "text") : eb.val(value));
  const conditions: Expression<SqlBool>[] = [eb("predicate", "=", text(predicate))];
  if ("exactly" in arity) {
    // Prepared statements take text parameters (src/store/executor.ts).
    const value = typed
      ? eb.cast<number>(eb.val(String(arity.exactly)), "smallint")
      : arity.exactly;
    conditions.push(eb("arity", "=", value));
  } else if (arity.atLeast > 0) {
    conditions.push(eb("arity", ">=", arity.atLeast));
  }
  for (const { position, type, id } of positions) {
    if (type != null) conditions.push(eb(`t${position}` as TypeColumn, "=", text(type)));
    if (id != null) conditions.push(eb(`i${position}` as IdColumn, "=", text(id)));
  }
  return eb.and(conditions);
}

/** Deletes the facts of one predicate and arity that match; answers `n`, how many. */
export function deleteMatchingStatement(
  predicate: string,
  arity: number,
  positions: readonly PositionCondition[],
): CompiledQuery<{ n: number }> {
  return builder
    .with("gone", (db) =>
      db
        .deleteFrom(FACT_TABLE)
        .where((eb) => factConditions(eb, predicate, { exactly: arity }, positions))
        .returning(sql<number>`1`.as("one")),
    )
    .selectFrom("gone")
    .select(sql<number>`count(*)::int`.as("n"))
    .compile();
}

/** Whole rows of one predicate and arity that match. */
export function matchingRowsStatement(
  predicate: string,
  arity: number,
  positions: readonly PositionCondition[],
): CompiledQuery<Record<string, string | number>> {
  return builder
    .selectFrom(FACT_TABLE)
    .selectAll()
    .where((eb) => factConditions(eb, predicate, { exactly: arity }, positions))
    .compile();
}

/** One lookup of `matchingRowsOfEachStatement`. */
export interface RowLookup {
  readonly predicate: string;
  readonly arity: number;
  readonly positions: readonly PositionCondition[];
}

/**
 * Several lookups in one statement (`union all`), each row tagged with its lookup's index; the
 * parameters are typed so that the statement can be prepared once per shape of lookups.
 */
export function matchingRowsOfEachStatement(
  lookups: readonly RowLookup[],
): CompiledQuery<Record<string, string | number>> | null {
  const selects = lookups.map(({ predicate, arity, positions }, index) =>
    builder
      .selectFrom(FACT_TABLE)
      .select(sql.lit(index).as("lookup"))
      .selectAll()
      .where((eb) => factConditions(eb, predicate, { exactly: arity }, positions, true)),
  );
  const [first, ...rest] = selects;
  if (!first) return null;
  return rest.reduce((union, select) => union.unionAll(select), first).compile();
}

/**
 * Facts of a predicate that have at least `minArity` arguments and match, one JSON array
 * `[arity, t0, i0, t1, i1, …]` per fact (PGlite decodes one column per row far faster than
 * seventeen), in a stable order.
 */
export function factArraysStatement(
  predicate: string,
  minArity: number,
  positions: readonly PositionCondition[],
  maxArity: number,
): CompiledQuery<{ fact: string }> {
  const pairs = Array.from({ length: maxArity }, (_, i) => [
    sql.ref(`t${i}`),
    sql.ref(`i${i}`),
  ]).flat();
  return builder
    .selectFrom(FACT_TABLE)
    .select(sql<string>`json_build_array(arity, ${sql.join(pairs)})::text`.as("fact"))
    .where((eb) => factConditions(eb, predicate, { atLeast: minArity }, positions))
    .orderBy(sql`arity, ${sql.join(pairs)}`)
    .compile();
}
