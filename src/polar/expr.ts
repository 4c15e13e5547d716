/**
 * The one walk over the structure of a rule body: `and`, `or` and `not` down to atoms. Passes
 * that need their own treatment of `and` (binding order, scheduling) switch on the kinds
 * themselves; every pass that only wants the atoms uses these.
 */
import type { BoolAtom, Call, Compare, Expr, In, Matches, Not, Term } from "./ast.js";

/** The leaves of a body: everything but `and`, `or` and `not`. */
export type Atom = Call | Compare | In | Matches | BoolAtom;

/**
 * Visits each atom of `expr` in source order with the outermost `not` above it (null when the
 * atom is positive).
 *
 * @example
 * forEachAtom(parsed(`p(x) and not (q(x) or x = 1)`), (atom, not) => log(atom.kind, not !== null));
 * // call false, call true, compare true
 */
export function forEachAtom(
  expr: Expr,
  visit: (atom: Atom, negation: Not | null) => void,
  negation: Not | null = null,
): void {
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) forEachAtom(operand, visit, negation);
      return;
    case "not":
      forEachAtom(expr.operand, visit, negation ?? expr);
      return;
    case "call":
    case "compare":
    case "in":
    case "matches":
    case "bool":
      visit(expr, negation);
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

/**
 * The terms an atom mentions, in source order (a `matches` atom's variable included).
 *
 * @example
 * atomTerms(parsed(`x in [1, y]`)); // [x, 1, y]
 */
export function atomTerms(atom: Atom): readonly Term[] {
  switch (atom.kind) {
    case "call":
      return atom.args;
    case "compare":
      return [atom.left, atom.right];
    case "in":
      return [atom.element, ...atom.list];
    case "matches":
      return [atom.variable];
    case "bool":
      return [];
    default: {
      const _never: never = atom;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

/**
 * The conjuncts of `expr`: nested `and`s flattened, anything else as one conjunct.
 *
 * @example
 * flattenAnd(parsed(`a() and (b() and c())`)).length; // 3
 */
export function flattenAnd(expr: Expr): Expr[] {
  return expr.kind === "and" ? expr.operands.flatMap(flattenAnd) : [expr];
}
