/**
 * Filters moved into an `or` (issue 13): in `(a(d, x) or b(d, x)) and x != u`, the `or` alone
 * binds `x` and only filters read it after; planned as written, each such `or` multiplies the
 * rest of its conjunction by its branches. Rewritten as
 * `(a(d, x) and x != u) or (b(d, x) and x != u)`, `x` is local to the `or`, which is then kept
 * whole (src/plan/body.ts `planOr`). The meaning is the same (`and` distributes over `or`).
 *
 * A filter is a `matches`, a comparison other than `=`, or a `not`. It moves into an `or` when
 * it reads a variable of the `or` that occurs nowhere else but in such filters of the same
 * conjunction (not in the head).
 */
import type { Clause } from "../check/program.js";
import type { Expr, Or } from "../polar/ast.js";
import { headCounts, variableCounts } from "./variables.js";

const rewritten = new WeakMap<Expr, Expr>();

/**
 * The body with filters moved into the `or`s they filter; the body itself when none moves.
 *
 *   fuseOrFilters(clause, body) // `(a(d, x) and x != u) or (b(d, x) and x != u)`
 */
export function fuseOrFilters(clause: Clause | null, body: Expr): Expr {
  const known = rewritten.get(body);
  if (known) return known;
  const totals = headCounts(clause);
  for (const [name, n] of variableCounts(body)) totals.set(name, (totals.get(name) ?? 0) + n);
  const result = rewrite(body, totals);
  rewritten.set(body, result);
  return result;
}

function isFilter(expr: Expr): boolean {
  return (
    expr.kind === "matches" || expr.kind === "not" || (expr.kind === "compare" && expr.op !== "=")
  );
}

/** `totals` counts every variable of the body as rewritten so far. */
function rewrite(expr: Expr, totals: Map<string, number>): Expr {
  switch (expr.kind) {
    case "and":
      return fuseConjunction(
        expr.operands.map((operand) => rewrite(operand, totals)),
        expr,
        totals,
      );
    case "or": {
      const operands = expr.operands.map((operand) => rewrite(operand, totals));
      return operands.every((o, i) => o === expr.operands[i]) ? expr : { ...expr, operands };
    }
    case "not": {
      const operand = rewrite(expr.operand, totals);
      return operand === expr.operand ? expr : { ...expr, operand };
    }
    case "call":
    case "compare":
    case "in":
    case "matches":
    case "bool":
      return expr;
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

function fuseConjunction(
  conjuncts: readonly Expr[],
  original: Expr & { kind: "and" },
  totals: Map<string, number>,
): Expr {
  const parts = conjuncts.flatMap((c) => (c.kind === "and" ? c.operands : [c]));
  const moved = new Set<Expr>();
  const counts = new Map<Expr, Map<string, number>>();
  const countsOf = (e: Expr) => {
    const known = counts.get(e);
    if (known) return known;
    const fresh = variableCounts(e);
    counts.set(e, fresh);
    return fresh;
  };
  // The filters of the conjunction that read each variable.
  const readersOf = new Map<string, Expr[]>();
  for (const part of parts) {
    if (!isFilter(part)) continue;
    for (const name of countsOf(part).keys()) {
      const readers = readersOf.get(name);
      if (readers) readers.push(part);
      else readersOf.set(name, [part]);
    }
  }
  let changed = false;
  const result = parts.map((part) => {
    if (part.kind !== "or") return part;
    const chosen = new Set<Expr>();
    for (const [name, n] of countsOf(part)) {
      const readers = (readersOf.get(name) ?? []).filter((f) => !moved.has(f));
      const inReaders = readers.reduce((sum, f) => sum + countsOf(f).get(name)!, 0);
      if (readers.length > 0 && totals.get(name)! - n === inReaders) {
        for (const f of readers) chosen.add(f);
      }
    }
    if (chosen.size === 0) return part;
    changed = true;
    const fused = parts.filter((f) => chosen.has(f));
    for (const f of fused) {
      moved.add(f);
      // Each filter now occurs once per operand.
      for (const [name, n] of countsOf(f))
        totals.set(name, totals.get(name)! + n * (part.operands.length - 1));
    }
    const or: Or = {
      ...part,
      operands: part.operands.map((operand) => ({
        kind: "and",
        operands: [operand, ...fused],
        span: operand.span,
      })),
    };
    return or;
  });
  if (!changed) {
    const same = conjuncts.every((c, i) => c === original.operands[i]);
    return same ? original : { ...original, operands: conjuncts };
  }
  return { ...original, operands: result.filter((part) => !moved.has(part)) };
}
