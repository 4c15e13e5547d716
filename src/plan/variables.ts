/**
 * Variable occurrences in a clause: how often each name occurs, and which variables of each
 * `not` also occur outside it (those must be bound before the `not` is planned).
 */
import type { Clause } from "../check/program.js";
import type { Term as AstTerm, Expr, Not } from "../polar/ast.js";

/**
 * Occurrence counts of the clause's variables, and for each `not E`: the variables of `E`
 * that also occur outside it (head included). They must be bound before `E` is planned; the
 * others are local to `E`.
 */
export function analyseVariables(
  clause: Clause | null,
  body: Expr,
): { outerOfNot: Map<Not, Set<string>>; occurrences: Map<string, number> } {
  const total = new Map<string, number>();
  const count = (name: string, into: Map<string, number>) => {
    if (name !== "_") into.set(name, (into.get(name) ?? 0) + 1);
  };
  for (const param of clause?.params ?? []) {
    if (param.kind === "typed") count(param.variable.name, total);
    else if (param.kind === "variable") count(param.name, total);
  }
  const nots: Not[] = [];
  walkVariables(body, (name) => count(name, total), nots);
  const result = new Map<Not, Set<string>>();
  for (const not of nots) {
    const inside = new Map<string, number>();
    walkVariables(not.operand, (name) => count(name, inside), []);
    const outer = new Set<string>();
    for (const [name, n] of inside) if ((total.get(name) ?? 0) > n) outer.add(name);
    result.set(not, outer);
  }
  return { outerOfNot: result, occurrences: total };
}

function walkVariables(expr: Expr, visit: (name: string) => void, nots: Not[]): void {
  const term = (t: AstTerm) => {
    if (t.kind === "variable") visit(t.name);
  };
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) walkVariables(operand, visit, nots);
      return;
    case "not":
      nots.push(expr);
      walkVariables(expr.operand, visit, nots);
      return;
    case "call":
      expr.args.forEach(term);
      return;
    case "compare":
      term(expr.left);
      term(expr.right);
      return;
    case "in":
      term(expr.element);
      expr.list.forEach(term);
      return;
    case "matches":
      visit(expr.variable.name);
      return;
    case "bool":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected expression ${String(_never)}`);
    }
  }
}
