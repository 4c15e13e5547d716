/**
 * A value the dialect has no literal for (P713), located. The printer sees plan values, not
 * the policy text, so the plan's constants carry their spans beside the terms
 * (`Plan.constants`, src/plan/constants.ts): a refused constant of the policy points at the
 * first place the policy writes it. A value of the request (a param, a builtin, a literal of
 * the question) has no place in the policy: its refusal has no span and says where it came
 * from.
 */
import type { SqlValue } from "../lower/sql-value.js";
import { at } from "../plan/errors.js";
import type { PolicyConstant } from "../plan/ir.js";
import type { LiteralProblem } from "../source/problems.js";
import type { SourceFile } from "../source/source.js";
import { StageError } from "../source/stage-error.js";
import { LiteralError } from "../sql/literal-error.js";

/** Where a statement's constants are written in the policy. */
export interface ValueSpans {
  readonly constants: readonly PolicyConstant[];
  readonly sources: readonly SourceFile[];
}

/**
 * `write()`, the text of a plan value; a `LiteralError` it throws comes out located.
 *
 *   writingValue(value, spans, () => dialect.literal(origin.value, sqlType, typed))
 */
export function writingValue<T>(value: SqlValue, spans: ValueSpans | undefined, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (!(error instanceof LiteralError)) throw error;
    throw locatedRefusal(error.problem, value, spans);
  }
}

function locatedRefusal(
  problem: LiteralProblem,
  value: SqlValue,
  spans: ValueSpans | undefined,
): StageError {
  const { origin } = value;
  const constant =
    origin.kind === "literal"
      ? spans?.constants.find(
          (c) => c.value.type === origin.value.type && c.value.id === origin.value.id,
        )
      : undefined;
  if (constant && spans) return new StageError(problem, at(constant.span, spans.sources));
  return new StageError(fromRequest(problem));
}

function fromRequest(problem: LiteralProblem): LiteralProblem {
  switch (problem.kind) {
    case "literal-nul":
    case "literal-surrogate":
    case "literal-integer":
    case "literal-boolean":
      return { ...problem, from: "request" };
    case "empty-identifier":
    case "long-identifier":
    case "invalid-sql-type-name":
      return problem;
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}
