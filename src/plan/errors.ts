/**
 * Errors of the SQL path. A question the planner cannot compile correctly fails with a
 * `PlanError` naming the problem (src/source/problems.ts) and, when one exists, the span of the
 * rule or term that caused it; it never produces SQL that could be wrong.
 */
import type { Clause } from "../check/program.js";
import type { Problem } from "../source/problems.js";
import type { SourceFile, Span } from "../source/source.js";
import { type Located, StageError } from "../source/stage-error.js";

export class PlanError extends StageError {
  override readonly name: string = "PlanError";
}

/**
 * A problem that may disappear once more variables are bound: the conjunction planner
 * catches it and tries the atom again after the others.
 */
export class RetriableError extends PlanError {
  override readonly name: string = "RetriableError";
}

/** A `not`, `!=` or ordering comparison over a variable nothing binds (docs/policy-language.md#wildcards). */
export class UnboundError extends RetriableError {
  override readonly name = "UnboundError";
  constructor(problem: Extract<Problem, { kind: "unbounded" }>, at: Located | null) {
    super(problem, at);
  }
}

/** A variable whose type SQL needs and nothing determines (docs/policy-language.md#type-inference). */
export class InferenceError extends RetriableError {
  override readonly name = "InferenceError";
  constructor(variable: string, clause: Clause | null, at: Located | null) {
    super({ code: "P702", kind: "unknown-type", variable, rule: clause?.name ?? null }, at);
  }
}

/**
 * Thrown by an instance whose argument at `position` needs a concrete type (a central fact
 * list holds values of any type); the caller reports it as an `InferenceError` for its
 * variable.
 */
export class TypeNeededError extends PlanError {
  override readonly name = "TypeNeededError";
  constructor(readonly position: number) {
    super({ code: "P702", kind: "type-needed", position });
  }
}

/** `at(span, program.sources)`: a span with the files it points into, for an error. */
export function at(span: Span | null | undefined, sources: readonly SourceFile[]): Located | null {
  return span ? { span, sources } : null;
}
