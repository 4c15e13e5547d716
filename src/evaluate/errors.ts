/**
 * Errors raised while evaluating a question: bad queries (P601) and answers the evaluator cannot
 * represent, such as `not` over a wildcard (P602). The problems and their messages are in
 * src/source/problems.ts; a problem inside a rule carries the span of the atom that raised it.
 */
import type { Problem } from "../source/problems.js";
import { type Located, StageError } from "../source/stage-error.js";

export type { Located };

export type EvaluationErrorCode = "P601" | "P602";

type EvaluationProblem = Extract<Problem, { code: EvaluationErrorCode }>;

export class EvaluationError extends StageError {
  override readonly name: string = "EvaluationError";
  declare readonly code: EvaluationErrorCode;
  declare readonly problem: EvaluationProblem;
  constructor(problem: EvaluationProblem, at?: Located | null) {
    super(problem, at);
  }
}

/** A malformed question: unknown predicate, missing constraint, empty type or id. */
export function invalidQuery(problem: Extract<Problem, { code: "P601" }>): EvaluationError {
  return new EvaluationError(problem);
}

/** An answer that holds for unboundedly many values and cannot be negated or compared. */
export function unbounded(
  problem: Extract<Problem, { code: "P602" }>,
  at: Located | null = null,
): EvaluationError {
  return new EvaluationError(problem, at);
}
