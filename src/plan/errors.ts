/**
 * Errors of the SQL path. A question the planner cannot compile correctly fails with a
 * `PlanError` naming the rule and the reason; it never produces SQL that could be wrong.
 */
import type { Clause } from "../check/program.js";
import { type DiagnosticCode, tick } from "../source/diagnostic.js";

export class PlanError extends Error {
  override readonly name: string = "PlanError";
  constructor(
    readonly code: DiagnosticCode,
    message: string,
  ) {
    super(message);
  }
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
  constructor(message: string) {
    super("P602", message);
  }
}

/** A variable whose type SQL needs and nothing determines (docs/policy-language.md#type-inference). */
export class InferenceError extends RetriableError {
  override readonly name = "InferenceError";
  constructor(variable: string, clause: Clause | null) {
    super(
      "P702",
      `cannot infer the type of ${tick(variable)} ${ruleContext(clause)}; add \`${variable} matches T\``,
    );
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
    super("P702", `argument ${position + 1} needs a type`);
  }
}

/** `in a rule for `has_role``, for messages about a clause. */
export function ruleContext(clause: Clause | null): string {
  return clause ? `in a rule for ${tick(clause.name)}` : "in the query";
}
