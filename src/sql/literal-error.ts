import type { LiteralProblem } from "../source/problems.js";
import { StageError } from "../source/stage-error.js";

/**
 * A value that has no literal in the dialect (NUL, malformed integer, invalid SQL type name):
 * a `StageError` with code P713 and no span (the value may come from the request).
 */
export class LiteralError extends StageError {
  override readonly name = "LiteralError";
  declare readonly code: "P713";
  declare readonly problem: LiteralProblem;
  // biome-ignore lint/complexity/noUselessConstructor: it narrows the problem to a literal's
  constructor(problem: LiteralProblem) {
    super(problem);
  }
}
