/**
 * Negation checks (docs/policy-language.md#negation): stratification over the predicate dependency graph and
 * safety of the variables under `not`.
 */
import type { Expr, Term, Variable } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { dependencyGraph, findComponents } from "./graph.js";
import { checkDiagnostic } from "./problems.js";
import type { Clause, PredicateKey, Program } from "./program.js";
import { exprVariables } from "./walk.js";

/**
 * Reports every strongly connected component that contains a negative edge (P301), naming a
 * cycle that starts with the negated call.
 *
 * @example
 * // can_view(u, d) if not is_hidden(u, d);  is_hidden(u, d) if not can_view(u, d);
 * checkStratification(program, diagnostics);
 * // negation cycle: `can_view` -> `is_hidden` -> `can_view`
 */
export function checkStratification(
  program: Pick<Program, "rules">,
  diagnostics: Diagnostic[],
): void {
  const graph = dependencyGraph(program);
  const successors = (key: PredicateKey) => (graph.edges.get(key) ?? []).map((e) => e.to);
  for (const component of findComponents(graph.nodes, successors)) {
    const members = new Set(component);
    const negative = component
      .flatMap((key) => graph.edges.get(key) ?? [])
      .find((edge) => edge.negative && members.has(edge.to));
    if (!negative) continue;
    const path = [negative.from, ...pathBetween(negative.to, negative.from, members, successors)];
    const names = path.map((key) => key.slice(0, key.lastIndexOf("/")));
    diagnostics.push(
      checkDiagnostic({ code: "P301", kind: "negation-cycle", path: names }, negative.span),
    );
  }
}

/** The shortest path `from -> … -> to` inside `members`, both ends included. */
function pathBetween(
  from: PredicateKey,
  to: PredicateKey,
  members: ReadonlySet<PredicateKey>,
  successors: (key: PredicateKey) => readonly PredicateKey[],
): PredicateKey[] {
  if (from === to) return [from];
  const previous = new Map<PredicateKey, PredicateKey>([[from, from]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of successors(node)) {
      if (!members.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      if (next === to) {
        const path = [to];
        for (let at = to; at !== from; ) {
          at = previous.get(at)!;
          path.push(at);
        }
        return path.reverse();
      }
      queue.push(next);
    }
  }
  return [from, to];
}

/**
 * Reports variables that appear only under `not` (P302): every named variable under `not E`
 * must be bound outside `E` by a positive call (or `=`/`in` with a bound term), or by a
 * positive atom inside a compound `E`. Head parameters alone do not bind.
 *
 * @example
 * // p(x) if not q(x);
 * checkNegationSafety(clause, diagnostics);
 * // variable `x` in a rule for `p` appears only under `not`; …
 */
export function checkNegationSafety(clause: Clause, diagnostics: Diagnostic[]): void {
  if (!clause.body) return;
  const reported = new Set<string>();
  const report = (variable: Variable) => {
    if (variable.name.startsWith("_") || reported.has(variable.name)) return;
    reported.add(variable.name);
    diagnostics.push(
      checkDiagnostic(
        { code: "P302", kind: "only-under-not", variable: variable.name, rule: clause.name },
        variable.span,
      ),
    );
  };
  checkPositive(clause.body, new Set(), report);
}

type Report = (variable: Variable) => void;

function checkPositive(expr: Expr, bound: ReadonlySet<string>, report: Report): void {
  switch (expr.kind) {
    case "and": {
      const inner = union(bound, boundBy(expr, bound));
      for (const operand of expr.operands) checkPositive(operand, inner, report);
      return;
    }
    case "or":
      for (const operand of expr.operands) checkPositive(operand, bound, report);
      return;
    case "not":
      checkNegated(expr.operand, bound, true, report);
      return;
    case "call":
    case "compare":
    case "in":
    case "matches":
    case "bool":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

/** `top`: `expr` is the whole negated expression, so it cannot bind its own variables. */
function checkNegated(expr: Expr, bound: ReadonlySet<string>, top: boolean, report: Report): void {
  const requireBound = (local: ReadonlySet<string>) => {
    for (const variable of exprVariables(expr)) {
      if (!bound.has(variable.name) && !local.has(variable.name)) report(variable);
    }
  };
  switch (expr.kind) {
    case "and": {
      const inner = union(bound, boundBy(expr, bound));
      for (const operand of expr.operands) checkNegated(operand, inner, false, report);
      return;
    }
    case "or":
      for (const operand of expr.operands) checkNegated(operand, bound, false, report);
      return;
    case "not":
      checkNegated(expr.operand, bound, true, report);
      return;
    case "call":
      if (top) requireBound(EMPTY);
      return;
    case "compare":
    case "in":
      requireBound(top ? EMPTY : boundBy(expr, bound));
      return;
    case "matches":
      requireBound(EMPTY);
      return;
    case "bool":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** Variables that `expr` binds for certain when it succeeds, given the already bound ones. */
function boundBy(expr: Expr, bound: ReadonlySet<string>): ReadonlySet<string> {
  switch (expr.kind) {
    case "call":
      return new Set(expr.args.flatMap((arg) => (arg.kind === "variable" ? [arg.name] : [])));
    case "compare": {
      if (expr.op !== "=") return EMPTY;
      const { left, right } = expr;
      if (left.kind === "variable" && isBoundTerm(right, bound)) return new Set([left.name]);
      if (right.kind === "variable" && isBoundTerm(left, bound)) return new Set([right.name]);
      return EMPTY;
    }
    case "in":
      return expr.element.kind === "variable" && expr.list.every((t) => isBoundTerm(t, bound))
        ? new Set([expr.element.name])
        : EMPTY;
    case "and": {
      const found = new Set<string>();
      let changed = true;
      while (changed) {
        changed = false;
        const now = union(bound, found);
        for (const operand of expr.operands) {
          for (const name of boundBy(operand, now)) {
            if (!found.has(name)) {
              found.add(name);
              changed = true;
            }
          }
        }
      }
      return found;
    }
    case "or": {
      const [first, ...rest] = expr.operands.map((operand) => boundBy(operand, bound));
      if (!first) return EMPTY;
      return new Set([...first].filter((name) => rest.every((names) => names.has(name))));
    }
    case "not":
    case "matches":
    case "bool":
      return EMPTY;
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

function isBoundTerm(term: Term, bound: ReadonlySet<string>): boolean {
  return term.kind !== "variable" || bound.has(term.name);
}

function union(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  return new Set([...a, ...b]);
}
