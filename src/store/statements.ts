/**
 * The fact store's statements whose conditions depend on the request (which argument positions
 * a pattern fixes), built with Kysely's query builder and compiled for the store's engine
 * (src/store/compile.ts): values are always parameters, and column names come from the schema,
 * never from a caller.
 */
import {
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type SqlBool,
  sql,
} from "kysely";
import { compilingKysely, type Engine } from "./compile.js";
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

/** Builders that only compile, one per engine: the store executes the text itself. */
const builders = {
  postgres: compilingKysely<StoreTables>("postgres"),
  sqlite: compilingKysely<StoreTables>("sqlite"),
};

type Facts = ExpressionBuilder<StoreTables, typeof FACT_TABLE>;

/** What a pattern fixes at one argument position: its type, its id, both, or neither. */
export interface PositionCondition {
  readonly position: number;
  readonly type?: string | null | undefined;
  readonly id?: string | null | undefined;
}

/** `predicate = … and arity = …` (or `arity >= …`) and the fixed types and ids. */
function factConditions(
  eb: Facts,
  predicate: string,
  arity: { readonly exactly: number } | { readonly atLeast: number },
  positions: readonly PositionCondition[],
): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb("predicate", "=", predicate)];
  if ("exactly" in arity) {
    conditions.push(eb("arity", "=", arity.exactly));
  } else if (arity.atLeast > 0) {
    conditions.push(eb("arity", ">=", arity.atLeast));
  }
  for (const { position, type, id } of positions) {
    if (type != null) conditions.push(eb(`t${position}` as TypeColumn, "=", type));
    if (id != null) conditions.push(eb(`i${position}` as IdColumn, "=", id));
  }
  return eb.and(conditions);
}

/**
 * Deletes the facts of one predicate and arity that match; answers `n`, how many (PostgreSQL),
 * or a row per deleted fact (SQLite, which has no DELETE in a CTE).
 */
export function deleteMatchingStatement(
  engine: Engine,
  predicate: string,
  arity: number,
  positions: readonly PositionCondition[],
): CompiledQuery<unknown> {
  if (engine === "sqlite") {
    return builders.sqlite
      .deleteFrom(FACT_TABLE)
      .where((eb) => factConditions(eb, predicate, { exactly: arity }, positions))
      .returning(sql<number>`1`.as("one"))
      .compile();
  }
  return builders.postgres
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
  engine: Engine,
  predicate: string,
  arity: number,
  positions: readonly PositionCondition[],
): CompiledQuery<Record<string, string | number>> {
  return builders[engine]
    .selectFrom(FACT_TABLE)
    .selectAll()
    .where((eb) => factConditions(eb, predicate, { exactly: arity }, positions))
    .compile();
}

/**
 * Facts of a predicate that have at least `minArity` arguments and match, one JSON array
 * `[arity, t0, i0, t1, i1, …]` per fact (PGlite decodes one column per row far faster than
 * seventeen), in a stable order.
 */
export function factArraysStatement(
  engine: Engine,
  predicate: string,
  minArity: number,
  positions: readonly PositionCondition[],
  maxArity: number,
): CompiledQuery<{ fact: string }> {
  const pairs = Array.from({ length: maxArity }, (_, i) => [
    sql.ref(`t${i}`),
    sql.ref(`i${i}`),
  ]).flat();
  const array =
    engine === "sqlite"
      ? sql<string>`json_array(arity, ${sql.join(pairs)})`
      : sql<string>`json_build_array(arity, ${sql.join(pairs)})::text`;
  return builders[engine]
    .selectFrom(FACT_TABLE)
    .select(array.as("fact"))
    .where((eb) => factConditions(eb, predicate, { atLeast: minArity }, positions))
    .orderBy(sql`arity, ${sql.join(pairs)}`)
    .compile();
}
