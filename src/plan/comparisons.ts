/**
 * Types from ordering comparisons (docs/policy-language.md#operators, docs/policy-language.md#type-inference): `<`, `<=`, `>`, `>=` hold only for two
 * Integers or two Strings, so the variables they compare get one of those types before any
 * call reads them from central facts, where values of any type could appear.
 */
import { BUILTINS } from "../builtins/registry.js";
import { termValue } from "../check/facts.js";
import type { Term as AstTerm, Expr } from "../polar/ast.js";
import { flattenAnd } from "../polar/expr.js";
import type { Planner } from "./context.js";
import { termType } from "./ir.js";
import { constrainVariable, type State, slotOf } from "./state.js";

/**
 * Ordering comparisons between variables hold only for two Integers or two Strings (any other
 * pair compares false, docs/policy-language.md#operators), which types variables before calls read them from
 * central facts: `level >= needed` gives `level` the type of a bound `needed`, and two
 * untyped variables are planned once as Integers and once as Strings.
 */
export function typeByComparisons(
  planner: Planner,
  state: State,
  atoms: readonly Expr[],
): State[] | null {
  let states: State[] = [state];
  let changed = false;
  for (const atom of atoms) {
    if (atom.kind !== "compare" || atom.op === "=" || atom.op === "!=") continue;
    const { left, right } = atom;
    if (left.kind !== "variable" || right.kind !== "variable") continue;
    if (left.name === "_" || right.name === "_") continue;
    states = states.flatMap((current) => {
      const a = slotOf(current, left.name);
      const b = slotOf(current, right.name);
      const typeOf = (slot: typeof a) => (slot.term ? termType(slot.term) : slot.constraint.exact);
      if (typeOf(a) !== null && typeOf(b) !== null) return [current];
      changed = true;
      const known = typeOf(a) ?? typeOf(b);
      const choices = known === null ? ["Integer", "String"] : [known];
      return choices.flatMap((type) => {
        if (type !== "Integer" && type !== "String") return [];
        const exact = { exact: type, requires: [] };
        const one = constrainVariable(planner.program, current, left.name, exact);
        const both = one && constrainVariable(planner.program, one, right.name, exact);
        return both ? [both] : [];
      });
    });
  }
  return changed ? states : null;
}

/**
 * `x >= 3` and `x < "m"` in the body's top-level conjunction hold only for an Integer (a
 * String) `x` (docs/policy-language.md#operators): the variable gets that type before any call is planned, so that
 * central facts can be read with a known type (docs/policy-language.md#type-inference).
 */
export function constrainByComparisons(planner: Planner, state: State, body: Expr): State | null {
  let current: State | null = state;
  for (const atom of flattenAnd(body)) {
    if (atom.kind !== "compare" || atom.op === "=" || atom.op === "!=") continue;
    const sides: [AstTerm, AstTerm][] = [
      [atom.left, atom.right],
      [atom.right, atom.left],
    ];
    for (const [side, other] of sides) {
      if (side.kind !== "variable" || side.name === "_" || !current) continue;
      const type =
        other.kind === "builtin"
          ? BUILTINS[other.name].type
          : other.kind === "variable"
            ? null
            : termValue(other)?.type;
      if (!type) continue;
      const next = constrainVariable(planner.program, current, side.name, {
        exact: type,
        requires: [],
      });
      if (!next) return null;
      current = next;
    }
  }
  return current;
}
