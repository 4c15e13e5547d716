/**
 * Which recursive families a question needs computed in the store, and the rules that compute
 * them. A family is a recursive component of the predicate dependency graph
 * (check/graph.ts). It is *non-linear* when one conjunction of one of its rules calls the
 * family more than once (`path(x, z) if path(x, y) and path(y, z)`): one recursive CTE cannot
 * express it (src/plan/component.ts refuses it with P703), so the store iterates it
 * (docs/fixpoint.md).
 *
 * Semi-naive iteration rewrites each rule that calls the family k times into k variants: in
 * variant i the i-th call reads the rows new in the last round (`deltaName`), the others read
 * every row found so far (the predicate itself, presented as a table). A rule that calls the
 * family zero times is an exit, run once.
 */

import { dependencyGraph, stronglyConnectedComponents } from "../check/graph.js";
import { type Clause, type PredicateKey, type Program, predicateKey } from "../check/program.js";
import { nonLinearRule } from "../plan/nonlinear.js";
import type { Call, Expr } from "../polar/ast.js";

export interface Family {
  /** Predicate keys of the family, in the order of the dependency graph. */
  readonly predicates: readonly PredicateKey[];
}

/** The rule name whose answers are the family's exits for `name`. */
export function exitName(name: string): string {
  return `%exit ${name}`;
}

/** The rule name whose answers are one round's derivations for `name`. */
export function stepName(name: string): string {
  return `%step ${name}`;
}

/** The predicate reading the rows of `name` that are new in the last round. */
export function deltaName(name: string): string {
  return `%delta ${name}`;
}

/** `path/2` as its name and arity. */
export function splitKey(key: PredicateKey): { name: string; arity: number } {
  const slash = key.lastIndexOf("/");
  return { name: key.slice(0, slash), arity: Number(key.slice(slash + 1)) };
}

/** The first rule of the family with a conjunction that calls the family more than once. */
export function familyNonLinearRule(program: Program, family: Family): Clause | null {
  return nonLinearRule(program, family.predicates, new Set(family.predicates));
}

/**
 * The recursive families reachable from `roots` (callees first): the non-linear ones, or
 * every recursive one when `all`.
 */
export function reachableFamilies(
  program: Program,
  roots: readonly PredicateKey[],
  all: boolean,
): Family[] {
  const graph = dependencyGraph(program);
  const reached = new Set<PredicateKey>();
  const work = [...roots];
  while (work.length > 0) {
    const key = work.pop()!;
    if (reached.has(key)) continue;
    reached.add(key);
    for (const edge of graph.edges.get(key) ?? []) work.push(edge.to);
  }
  const families: Family[] = [];
  for (const component of stronglyConnectedComponents(program)) {
    if (!component.recursive || !component.predicates.some((key) => reached.has(key))) continue;
    const family = { predicates: component.predicates };
    if (all || familyNonLinearRule(program, family)) families.push(family);
  }
  return families;
}

/**
 * `expr` with calls renamed: `rename(call, index)` gets each call of the family outside a
 * `not`, numbered in source order, and returns its new name (or null to keep it).
 */
function renameCalls(
  expr: Expr,
  members: ReadonlySet<PredicateKey>,
  rename: (call: Call, index: number) => string | null,
  counter: { n: number },
): Expr {
  switch (expr.kind) {
    case "call": {
      if (!members.has(predicateKey(expr.name.name, expr.args.length))) return expr;
      const name = rename(expr, counter.n++);
      return name === null ? expr : { ...expr, name: { ...expr.name, name } };
    }
    case "and":
    case "or":
      return {
        ...expr,
        operands: expr.operands.map((operand) => renameCalls(operand, members, rename, counter)),
      };
    case "not":
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

function countCalls(expr: Expr, members: ReadonlySet<PredicateKey>): number {
  const counter = { n: 0 };
  renameCalls(expr, members, () => null, counter);
  return counter.n;
}

function renamed(clause: Clause, name: string, body: Expr | null): Clause {
  return { ...clause, name, predicate: predicateKey(name, clause.params.length), body };
}

/**
 * The program in which `family` and the families in `computed` are read as tables (their
 * rules removed) and the family's exits and semi-naive steps are rules of their own names.
 */
export function iterationProgram(
  program: Program,
  family: Family,
  computed: ReadonlySet<PredicateKey>,
): Program {
  const members = new Set(family.predicates);
  const rules = new Map<PredicateKey, readonly Clause[]>();
  for (const [key, clauses] of program.rules) {
    if (!members.has(key) && !computed.has(key)) rules.set(key, clauses);
  }
  for (const key of family.predicates) {
    const { name, arity } = splitKey(key);
    const exits: Clause[] = [];
    const steps: Clause[] = [];
    for (const clause of program.rules.get(key) ?? []) {
      const calls = clause.body ? countCalls(clause.body, members) : 0;
      if (calls === 0) {
        exits.push(renamed(clause, exitName(name), clause.body));
        continue;
      }
      for (let variant = 0; variant < calls; variant++) {
        const body = renameCalls(
          clause.body!,
          members,
          (call, index) => (index === variant ? deltaName(call.name.name) : null),
          { n: 0 },
        );
        steps.push(renamed(clause, stepName(name), body));
      }
    }
    if (exits.length > 0) rules.set(predicateKey(exitName(name), arity), exits);
    if (steps.length > 0) rules.set(predicateKey(stepName(name), arity), steps);
  }
  return { ...program, rules };
}

/** The program in which the families in `computed` are read as tables. */
export function answerProgram(program: Program, computed: ReadonlySet<PredicateKey>): Program {
  const rules = new Map<PredicateKey, readonly Clause[]>();
  for (const [key, clauses] of program.rules) if (!computed.has(key)) rules.set(key, clauses);
  return { ...program, rules };
}
