/**
 * A central question from its builder to its rows, one step after another: the store's
 * snapshot, the question, its plan, the statement, the rows. Nothing calls back up: a missing
 * plan is made by the plan step, and the planner's P703 (recursion one statement cannot
 * express) hands the question to iteration in the store.
 */

import type { LocalQuestion } from "../api/questions.js";
import type { Reading } from "../api/service.js";
import type { DataBindings } from "../bindings/types.js";
import type { Program } from "../check/program.js";
import type { FixpointBudget } from "../fixpoint/iterate.js";
import { PlanError } from "../plan/errors.js";
import type { Plan } from "../plan/ir.js";
import type { FactStore } from "../store/store.js";
import type { AnswerCache } from "./answer-cache.js";
import { type Clock, executeCentral, iterateCentral, printCentral } from "./execute.js";
import type { Planning } from "./planning.js";
import type { Snapshot } from "./snapshot.js";

/** Builds a question over the active program and the fact table's bindings. */
export type QuestionBuilder = (program: Program, bindings: DataBindings) => LocalQuestion;

export interface CentralSteps {
  readonly store: FactStore;
  /** The store as a question needing at least this data version sees it. */
  readonly snapshot: (atLeast?: number) => Promise<Snapshot>;
  readonly planning: Planning;
  readonly answers: AnswerCache | null;
  readonly clock: Clock;
  readonly fixpointBudget: FixpointBudget | undefined;
}

/**
 * The rows answering the built question, by `deadline`, at least as fresh as `reading` asks.
 *
 *   await askCentral(steps, (program) => authorizeQuestion(program, query), deadline, {});
 */
export async function askCentral<Row>(
  steps: CentralSteps,
  build: QuestionBuilder,
  deadline: number,
  reading: Reading,
): Promise<Row[]> {
  const snapshot = await steps.snapshot(reading.atLeast);
  const question = build(snapshot.program, snapshot.bindings);
  let plan: Plan;
  try {
    plan = await steps.planning.plan({ ...snapshot, goal: question.goal }, deadline);
  } catch (error) {
    if (!(error instanceof PlanError) || error.code !== "P703") throw error;
    const { store, clock, fixpointBudget } = steps;
    const rows = await iterateCentral<Row>(store, snapshot, build, clock, fixpointBudget);
    if (rows === null) throw error;
    return rows;
  }
  const statement = printCentral(steps.store, snapshot, question, plan, steps.clock);
  return executeCentral<Row>(snapshot, steps.answers, statement, deadline);
}
