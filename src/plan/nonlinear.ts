/**
 * Non-linear recursion: a conjunction of a rule that calls its own recursive component more
 * than once (`path(x, z) if path(x, y) and path(y, z)`). One recursive CTE cannot express it;
 * local questions refuse it naming the rule, the central service computes it by iteration in
 * the store (src/fixpoint, docs/fixpoint.md).
 */
import { type Clause, type PredicateKey, type Program, predicateKey } from "../check/program.js";
import type { Expr } from "../polar/ast.js";
import { positionOf } from "../source/source.js";

/** The most calls of `members` in one conjunction of `expr` (an `or` takes its largest side). */
export function callsPerConjunction(expr: Expr, members: ReadonlySet<PredicateKey>): number {
  switch (expr.kind) {
    case "call":
      return members.has(predicateKey(expr.name.name, expr.args.length)) ? 1 : 0;
    case "and":
      return expr.operands.reduce((n, operand) => n + callsPerConjunction(operand, members), 0);
    case "or":
      return Math.max(0, ...expr.operands.map((operand) => callsPerConjunction(operand, members)));
    case "not":
    case "compare":
    case "in":
    case "matches":
    case "bool":
      return 0;
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

/** The first rule of these predicates with a conjunction that calls `members` more than once. */
export function nonLinearRule(
  program: Program,
  predicates: readonly PredicateKey[],
  members: ReadonlySet<PredicateKey>,
): Clause | null {
  for (const key of predicates) {
    for (const clause of program.rules.get(key) ?? []) {
      if (clause.body && callsPerConjunction(clause.body, members) > 1) return clause;
    }
  }
  return null;
}

/**
 * `policy.polar:12`: where a clause starts.
 *
 *   ruleLocation(program, clause) // "policy.polar:4"
 */
export function ruleLocation(program: Program, clause: Clause): string {
  const source = program.sources.find((s) => s.name === clause.span.file);
  if (!source) return clause.span.file;
  return `${source.name}:${positionOf(source, clause.span.start).line}`;
}

/**
 * ` (policy.polar:4)`: where the first non-linear rule of `name`'s recursive component is,
 * for messages; empty when none is found.
 */
export function nonLinearWhere(
  program: Program,
  keys: readonly PredicateKey[],
  members: ReadonlySet<PredicateKey>,
): string {
  const clause = nonLinearRule(program, keys, members);
  return clause ? ` (${ruleLocation(program, clause)})` : "";
}

/** How the refusals of non-linear recursion end: where it is answered instead. */
export const ITERATED = "; the central service answers it by iteration (docs/fixpoint.md)";
