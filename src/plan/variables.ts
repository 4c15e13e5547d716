/**
 * Variable occurrences in a clause: how often each name occurs, and which variables of each
 * `not` and each `or` also occur outside it (a `not` is planned once those are bound; an `or`
 * whose shared variables are bound can be kept whole, src/plan/body.ts).
 */
import type { Clause } from "../check/program.js";
import type { Term as AstTerm, Expr, Not, Or } from "../polar/ast.js";

interface VariableUse {
  readonly outerOfNot: Map<Not, Set<string>>;
  readonly outerOfOr: Map<Or, Set<string>>;
  readonly occurrences: Map<string, number>;
}

/**
 * Occurrence counts of the clause's variables, and for each `not E` and each `E1 or E2`: the
 * variables that also occur outside it (head included). The others are local to it.
 */
export function analyseVariables(clause: Clause | null, body: Expr): VariableUse {
  const total = new Map<string, number>();
  const count = (name: string, into: Map<string, number>) => {
    if (name !== "_") into.set(name, (into.get(name) ?? 0) + 1);
  };
  for (const param of clause?.params ?? []) {
    if (param.kind === "typed") count(param.variable.name, total);
    else if (param.kind === "variable") count(param.name, total);
  }
  const nots: Not[] = [];
  const ors: Or[] = [];
  walkVariables(body, (name) => count(name, total), nots, ors);
  const outerOf = (expr: Expr) => {
    const inside = variableCounts(expr);
    const outer = new Set<string>();
    for (const [name, n] of inside) if ((total.get(name) ?? 0) > n) outer.add(name);
    return outer;
  };
  return {
    outerOfNot: new Map(nots.map((not) => [not, outerOf(not.operand)])),
    outerOfOr: new Map(ors.map((or) => [or, outerOf(or)])),
    occurrences: total,
  };
}

/** How often each named variable (not `_`) occurs in `expr`. */
export function variableCounts(expr: Expr): Map<string, number> {
  const counts = new Map<string, number>();
  walkVariables(
    expr,
    (name) => {
      if (name !== "_") counts.set(name, (counts.get(name) ?? 0) + 1);
    },
    [],
    [],
  );
  return counts;
}

/** How often each named variable occurs in the clause's head. */
export function headCounts(clause: Clause | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const param of clause?.params ?? []) {
    const name =
      param.kind === "typed" ? param.variable.name : param.kind === "variable" ? param.name : "_";
    if (name !== "_") counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function walkVariables(expr: Expr, visit: (name: string) => void, nots: Not[], ors: Or[]): void {
  const term = (t: AstTerm) => {
    if (t.kind === "variable") visit(t.name);
  };
  switch (expr.kind) {
    case "or":
      ors.push(expr);
      for (const operand of expr.operands) walkVariables(operand, visit, nots, ors);
      return;
    case "and":
      for (const operand of expr.operands) walkVariables(operand, visit, nots, ors);
      return;
    case "not":
      nots.push(expr);
      walkVariables(expr.operand, visit, nots, ors);
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
