/**
 * The print and execute steps of a central question: its plan printed with the request's
 * values as parameters, and the statement run on the store by the request's deadline, as a
 * prepared statement when it recurs, its answer kept per data version.
 */

import type { LocalQuestion } from "../api/questions.js";
import { localStatement } from "../api/questions.js";
import { predicateKey } from "../check/program.js";
import { answerByIteration, type FixpointBudget } from "../fixpoint/iterate.js";
import type { Plan } from "../plan/ir.js";
import { printPlan, type Statement } from "../print/statement.js";
import { readShapes } from "../store/facts.js";
import type { FactStore } from "../store/store.js";
import type { AnswerCache } from "./answer-cache.js";
import type { Snapshot } from "./snapshot.js";

/** A printed central statement; `literal` when its values are written into the text. */
interface CentralStatement extends Statement {
  readonly literal: boolean;
}

/** Parameters of one statement beyond which its values are written as literals. */
const MAX_BOUND_PARAMETERS = 30_000;

/**
 * Ids of an array parameter up to which a statement is prepared: beyond, a prepared
 * statement's generic plan, made for short lists, probes an index per id where a hash join
 * reads the list once (bench/RESULTS.md, "Id lists as one array parameter").
 */
const PREPARED_LIST_IDS = 100;

export type Clock = { readonly now?: () => bigint };

/** The print step: the question's plan as a statement for the store's dialect. */
export function printCentral(
  store: FactStore,
  snapshot: Snapshot,
  question: LocalQuestion,
  plan: Plan,
  clock: Clock,
): CentralStatement {
  const options = {
    ...clock,
    sources: snapshot.program.sources,
    dialect: store.dialect,
    central: snapshot.central,
    contextFacts: question.contextFacts,
    writing: "parameters",
  } as const;
  // A param list is one array parameter (src/print/statement.ts `longestList`).
  const printed = printPlan(plan, snapshot.bindings, question.params, question.shape, options);
  // PostgreSQL binds at most 65,535 parameters: a statement with more (many context facts) is
  // written with its values as quoted literals (src/dialects/postgres/literal.ts).
  if (printed.parameters.length <= MAX_BOUND_PARAMETERS) return { ...printed, literal: false };
  const literals = { ...options, writing: "literals", cacheText: false } as const;
  const text = printPlan(plan, snapshot.bindings, question.params, question.shape, literals);
  return { ...text, literal: true };
}

/** The execute step: the statement's rows by `deadline`, read where the snapshot reads. */
export async function executeCentral<Row>(
  { db, version }: Pick<Snapshot, "db" | "version">,
  answers: AnswerCache | null,
  statement: CentralStatement,
  deadline: number,
): Promise<Row[]> {
  // Literals are written only for many context facts: rows without an index, as an id array.
  if (statement.literal) return db.query<Row>(statement.sql, [], { deadline });
  const { sql, parameters } = statement;
  // An id array is a table without an index (SQLite indexes it for the statement).
  const hints = { joinsUnindexedRows: statement.longestList !== undefined, deadline };
  // A long id list is planned for its length each time, and its answer is not kept (the cache
  // bounds answers and rows, not the size of their keys); the rest is prepared.
  if ((statement.longestList ?? 0) > PREPARED_LIST_IDS)
    return db.query<Row>(sql, [...parameters], hints);
  const kept = answers?.get<Row>(version, sql, parameters);
  if (kept) return kept;
  const rows = await db.prepared<Row>(sql, [...parameters], hints);
  return answers ? answers.put(version, sql, parameters, rows) : rows;
}

/**
 * Recursion one statement cannot express (the planner's P703), computed by iteration in the
 * store (src/fixpoint); null when iteration cannot help either.
 */
export async function iterateCentral<Row>(
  store: FactStore,
  snapshot: Snapshot,
  build: (program: Snapshot["program"], bindings: Snapshot["bindings"]) => LocalQuestion,
  clock: Clock,
  budget: FixpointBudget | undefined,
): Promise<Row[] | null> {
  const { program, bindings, central } = snapshot;
  const question = build(program, bindings);
  const options = { ...clock, dialect: store.dialect, central, writing: "parameters" } as const;
  // Iteration writes temporary tables: on the primary (a standby cannot), which has replayed
  // at least what the snapshot's reader had.
  return answerByIteration<Row>(
    store.db,
    {
      program,
      dialect: store.dialect,
      bindings,
      shapes: await readShapes(store.db),
      central,
      contextFacts: question.contextFacts,
      roots: question.goal.calls.map((call) => predicateKey(call.name, call.args.length)),
      ...clock,
      ...(budget && { budget }),
    },
    (inner, innerBindings) =>
      localStatement(inner, innerBindings, build(inner, innerBindings), options),
  );
}
