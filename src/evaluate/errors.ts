/**
 * Errors raised while evaluating a question: bad queries (P601) and answers the evaluator cannot
 * represent, such as `not` over a wildcard (P602). Messages follow the house style: lowercase,
 * no trailing period, names in backticks.
 */
export type EvaluationErrorCode = "P601" | "P602";

export class EvaluationError extends Error {
  readonly code: EvaluationErrorCode;

  constructor(code: EvaluationErrorCode, message: string) {
    super(message);
    this.name = "EvaluationError";
    this.code = code;
  }
}

/** A malformed question: unknown predicate, missing constraint, empty type or id. */
export function invalidQuery(message: string): EvaluationError {
  return new EvaluationError("P601", message);
}

/** An answer that holds for unboundedly many values and cannot be negated or compared. */
export function unbounded(message: string): EvaluationError {
  return new EvaluationError("P602", message);
}
