/**
 * Non-linear recursion: a conjunction of a rule that calls its own recursive component more
 * than once (`path(x, z) if path(x, y) and path(y, z)`). One recursive CTE cannot express it;
 * local questions refuse it naming the rule, the central service computes it by iteration in
 * the store (src/fixpoint, docs/fixpoint.md).
 */
import { type Clause, type PredicateKey, type Program, predicateKey } from "../check/program.js";
import type { Call, Expr } from "../polar/ast.js";

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

/** A rule of non-linear recursion and its first call of `members` beyond one per conjunction. */
interface NonLinearSite {
  readonly clause: Clause;
  readonly call: Call;
}

/**
 * Where the first non-linear rule of these predicates is, for a refusal's span: the rule and
 * the call that makes it non-linear (`path(y, z)` in `path(x, y) and path(y, z)`).
 */
export function nonLinearSite(
  program: Program,
  predicates: readonly PredicateKey[],
  members: ReadonlySet<PredicateKey>,
): NonLinearSite | null {
  const clause = nonLinearRule(program, predicates, members);
  const call = clause?.body ? extraCall(clause.body, members, 0) : null;
  return clause && call ? { clause, call } : null;
}

/**
 * The first call of `members` in `expr` that comes after `before` others in its conjunction
 * (counted as `callsPerConjunction` counts: an `or` adds its largest side).
 */
function extraCall(expr: Expr, members: ReadonlySet<PredicateKey>, before: number): Call | null {
  switch (expr.kind) {
    case "call":
      return before > 0 && members.has(predicateKey(expr.name.name, expr.args.length))
        ? expr
        : null;
    case "and": {
      let seen = before;
      for (const operand of expr.operands) {
        const found = extraCall(operand, members, seen);
        if (found) return found;
        seen += callsPerConjunction(operand, members);
      }
      return null;
    }
    case "or":
      for (const operand of expr.operands) {
        const found = extraCall(operand, members, before);
        if (found) return found;
      }
      return null;
    case "not":
    case "compare":
    case "in":
    case "matches":
    case "bool":
      return null;
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}
