/**
 * What the store checks before it writes or reads: facts against the active policy, patterns,
 * and texts PostgreSQL cannot hold (NUL). A refusal is a `StoreError`; nothing was written.
 */
import { canonicalFact, canonicalValue, checkFact, checkFactValue } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { formatFact, type GroundFact } from "../core/value.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { Problem } from "../source/problems.js";
import { StageError } from "../source/stage-error.js";
import type { FactPattern, ValuePattern } from "./facts.js";
import { MAX_FACT_ARITY } from "./schema.js";

/**
 * A request the store refuses; nothing was written. HTTP maps it to 400. `diagnostics` are
 * the checker's (a policy's errors, a fact's problem).
 */
export class StoreError extends StageError {
  override readonly name = "StoreError";
  constructor(
    problem: Problem,
    readonly diagnostics: readonly Diagnostic[] = [],
    summary?: string,
  ) {
    super(problem, null, summary);
  }
}

/** The facts in their canonical form; the first that the policy or the store refuses throws. */
export function validateInserts(
  program: Program | null,
  facts: readonly GroundFact[],
): GroundFact[] {
  return facts.map((fact) => {
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail inside the transaction.
    if (hasNul(fact.predicate) || fact.args.some((a) => hasNul(a.type) || hasNul(a.id))) {
      throw new StoreError({ code: "P507", kind: "fact-nul", fact: formatFact(fact) });
    }
    if (fact.args.length > MAX_FACT_ARITY) {
      throw new StoreError({
        code: "P508",
        kind: "fact-arity",
        fact: formatFact(fact),
        limit: MAX_FACT_ARITY,
      });
    }
    const problem = program
      ? checkFact(program, fact)
      : fact.args.map(checkFactValue).find((d) => d !== null);
    if (problem) {
      const { code, message: reason } = problem;
      const invalid = { code, kind: "invalid-fact", reason, fact: formatFact(fact) } as const;
      throw new StoreError(invalid, [problem]);
    }
    return canonicalFact(fact);
  });
}

/** The pattern with canonical Integer ids; null when it cannot match a stored fact (NUL). */
export function validatePattern(pattern: FactPattern): FactPattern | null {
  pattern.args.forEach((arg, i) => {
    if (arg.type === null && arg.id !== null) {
      throw new StoreError({
        code: "P509",
        kind: "pattern-id-without-type",
        predicate: pattern.predicate,
        position: i + 1,
      });
    }
  });
  if (hasNul(pattern.predicate) || pattern.args.some((a) => hasNul(a.type) || hasNul(a.id)))
    return null;
  return { predicate: pattern.predicate, args: pattern.args.map(canonicalPattern) };
}

/** `{Integer, "007"}` matches the stored `{Integer, "7"}`. */
export function canonicalPattern<P extends Partial<ValuePattern>>(arg: P): P {
  if (arg.type == null || arg.id == null) return arg;
  return { ...arg, id: canonicalValue({ type: arg.type, id: arg.id }).id };
}

export function hasNul(text: string | null | undefined): boolean {
  return text?.includes("\u0000") ?? false;
}
