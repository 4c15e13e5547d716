/**
 * Planning clause bodies. A conjunction is order-independent (docs/policy-language.md#fixpoint-semantics), so atoms are
 * scheduled: unifications and type tests first, filters as soon as their variables are bound,
 * then calls (recursive ones last, so that they see as much bound data as possible); a call
 * that needs a bound argument is retried after the others.
 */
import { termValue } from "../check/facts.js";
import type { Clause } from "../check/program.js";
import { checkBranches, spendPlanStep } from "../core/budget.js";
import { compareValues } from "../core/value.js";
import type { Term as AstTerm, Call, Compare, Expr, In, Not, Or } from "../polar/ast.js";
import { flattenAnd } from "../polar/expr.js";
import { planCall } from "./call.js";
import { constrainByComparisons, typeByComparisons } from "./comparisons.js";
import type { Planner } from "./context.js";
import {
  at,
  InferenceError,
  PlanError,
  RetriableError,
  TypeNeededError,
  UnboundError,
} from "./errors.js";
import { variableName } from "./head.js";
import {
  type Branch,
  type Condition,
  isSubquery,
  literal,
  type SourceRef,
  type Term,
  termsEqual,
  termType,
} from "./ir.js";
import { fuseOrFilters } from "./or-filters.js";
import {
  addConditions,
  bindVariable,
  constrainVariable,
  equateTerms,
  type State,
  slotOf,
  unifyVariables,
} from "./state.js";
import { analyseVariables } from "./variables.js";

/** A term of the body, resolved against a state: a variable (bound or not) or a fixed term. */
export type Resolved =
  | { readonly kind: "variable"; readonly name: string }
  | { readonly kind: "term"; readonly term: Term };

/**
 * What a body is planned in: the clause (for messages) and the outer variables of each `not`
 * and each `or`.
 */
interface Scope {
  readonly clause: Clause | null;
  readonly outerOfNot: ReadonlyMap<Not, ReadonlySet<string>>;
  readonly outerOfOr: ReadonlyMap<Or, ReadonlySet<string>>;
  /** How often each named variable occurs in the clause (head included). */
  readonly occurrences: ReadonlyMap<string, number>;
}

/**
 * The states in which `body` holds, starting from `state` (the head's bindings).
 *
 *   planBody(planner, clause, match.state, clause.body) // one state per branch
 */
export function planBody(
  planner: Planner,
  clause: Clause | null,
  state: State,
  body: Expr,
): State[] {
  const fused = fuseOrFilters(clause, body);
  const scope: Scope = { clause, ...analyseVariables(clause, fused) };
  const typed = constrainByComparisons(planner, state, fused);
  return typed ? planExpr(planner, scope, typed, fused) : [];
}

/** The states in which `expr` holds, extending `state` (see `planBody`). */
function planExpr(planner: Planner, scope: Scope, state: State, expr: Expr): State[] {
  return planConjunction(planner, scope, state, flattenAnd(expr), 1);
}

/** The rule a scope plans, for messages; null for the question. */
function ruleName(scope: Scope): string | null {
  return scope.clause?.name ?? null;
}

// ---------------------------------------------------------------- scheduling

const NOT_READY = Number.POSITIVE_INFINITY;

function priority(planner: Planner, state: State, atom: Expr): number {
  switch (atom.kind) {
    case "bool":
    case "matches":
      return 0;
    case "compare":
      if (atom.op === "=") return 0;
      return allBound(state, [atom.left, atom.right]) ? 1 : NOT_READY;
    case "in":
      return allBound(state, [atom.element]) ? 0 : 3.5;
    case "not":
      return NOT_READY; // decided by `notPriority`, which needs the scope
    case "or":
    case "and":
      return 2;
    case "call":
      return planner.recursive.has(`${atom.name.name}/${atom.args.length}`) ? 4 : 3;
    default: {
      const _never: never = atom;
      return _never;
    }
  }
}

/** After every other kind of atom (calls are 3, recursive calls 4). */
const AFTER_BINDERS = 5;

/**
 * An `or` of a rule that shares an unbound variable with the rest of the rule waits for the
 * atoms that may bind it: bound, it is kept whole (`planOr`); planned first, it would multiply
 * the rest of the conjunction by its branches, 2^k branches for k such `or`s.
 */
function orWaitsForBinders(scope: Scope, state: State, atom: Or): boolean {
  if (scope.clause === null) return false;
  const shared = scope.outerOfOr.get(atom);
  return shared !== undefined && [...shared].some((name) => slotOf(state, name).term === null);
}

function allBound(state: State, terms: readonly AstTerm[]): boolean {
  return terms.every((term) => term.kind !== "variable" || slotOf(state, term.name).term !== null);
}

function unboundVariable(state: State, atom: Expr, scope: Scope): string | null {
  const names =
    atom.kind === "not"
      ? [...(scope.outerOfNot.get(atom) ?? [])]
      : atom.kind === "compare"
        ? [atom.left, atom.right].flatMap((t) => (t.kind === "variable" ? [t.name] : []))
        : [];
  return names.find((name) => slotOf(state, name).term === null) ?? null;
}

function planConjunction(
  planner: Planner,
  scope: Scope,
  start: State,
  atoms: readonly Expr[],
  /** How many states the atoms planned before these in this conjunction made of one. */
  fanout: number,
): State[] {
  if (atoms.length === 0) return [start];
  spendPlanStep();
  const typed = typeByComparisons(planner, start, atoms);
  if (typed) return typed.flatMap((state) => planConjunction(planner, scope, state, atoms, fanout));
  const state = start;
  const ranked = atoms
    .map((atom, index) => {
      const rank =
        atom.kind === "not"
          ? unboundVariable(state, atom, scope) === null
            ? 1
            : NOT_READY
          : atom.kind === "or" && orWaitsForBinders(scope, state, atom)
            ? AFTER_BINDERS
            : priority(planner, state, atom);
      return { atom, index, rank };
    })
    .filter((entry) => entry.rank !== NOT_READY)
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  if (ranked.length === 0) {
    const atom = atoms[0]!;
    const name = unboundVariable(state, atom, scope) ?? "_";
    const operator = atom.kind === "compare" ? atom.op : atom.kind;
    throw new UnboundError(
      { code: "P602", kind: "unbounded", operator, variable: name, rule: ruleName(scope) },
      at(atom.span, planner.program.sources),
    );
  }
  let firstError: RetriableError | null = null;
  for (const { atom, index } of ranked) {
    let results: State[];
    try {
      results = planAtom(planner, scope, state, atom, atoms.length === 1, fanout);
    } catch (error) {
      const retriable = atom.kind === "call" || atom.kind === "or" || atom.kind === "and";
      if (!(error instanceof RetriableError) || !retriable) throw error;
      firstError ??= error;
      continue;
    }
    const rest = atoms.filter((_, i) => i !== index);
    const states: State[] = [];
    for (const next of results) {
      for (const done of planConjunction(planner, scope, next, rest, fanout * results.length))
        states.push(done);
      checkBranches(states.length);
    }
    return states;
  }
  throw firstError!;
}

// ---------------------------------------------------------------- atoms

/** An AST term as the state sees it: a bound variable becomes its term. */
export function resolveTerm(planner: Planner, state: State, term: AstTerm): Resolved {
  switch (term.kind) {
    case "variable": {
      const name = variableName(planner, term);
      const bound = slotOf(state, name).term;
      return bound ? { kind: "term", term: bound } : { kind: "variable", name };
    }
    case "builtin":
      return { kind: "term", term: { kind: "builtin", name: term.name } };
    default:
      return { kind: "term", term: literal(termValue(term)!) };
  }
}

/** The states in which `atom` holds; `last`: nothing else of its conjunction is left to plan. */
function planAtom(
  planner: Planner,
  scope: Scope,
  state: State,
  atom: Expr,
  last: boolean,
  fanout: number,
): State[] {
  const program = planner.program;
  switch (atom.kind) {
    case "bool":
      return atom.value ? [state] : [];
    case "matches": {
      const name = variableName(planner, atom.variable);
      const next = constrainVariable(program, state, name, {
        exact: null,
        requires: [atom.type.name],
      });
      return next ? [next] : [];
    }
    case "compare":
      return planCompare(planner, state, atom);
    case "in":
      return planIn(planner, state, atom);
    case "not":
      return planNot(planner, scope, state, atom);
    case "or":
      return planOr(planner, scope, state, atom, last);
    case "and":
      return planConjunction(planner, scope, state, atom.operands.flatMap(flattenAnd), fanout);
    case "call":
      return planCallAtom(planner, scope, state, atom, last, fanout);
    default: {
      const _never: never = atom;
      return _never;
    }
  }
}

/**
 * A call multiplies the rest of its conjunction by its branches (the clauses it inlines). Past
 * `WHOLE_AFTER` states in one conjunction, a call whose arguments are all bound is kept whole
 * instead, as one `EXISTS (… UNION ALL …)` condition, like an `or` (`planOr`): k calls of
 * two-rule predicates then make at most 64 branches, not 2^k. Below it, calls are inlined as
 * ever, so ordinary policies print the same SQL.
 */
const WHOLE_AFTER = 64;

function planCallAtom(
  planner: Planner,
  scope: Scope,
  state: State,
  call: Call,
  last: boolean,
  fanout: number,
): State[] {
  const states = planCallInlined(planner, scope, state, call);
  const whole =
    states.length > 1 &&
    fanout * states.length > WHOLE_AFTER &&
    !last &&
    scope.clause !== null &&
    call.args.every((arg) => resolveTerm(planner, state, arg).kind === "term");
  if (!whole) return states;
  const inner: State = { ...state, sources: [], conditions: [] };
  return keepWhole(state, planCallInlined(planner, scope, inner, call));
}

function planCallInlined(planner: Planner, scope: Scope, state: State, call: Call): State[] {
  const args = call.args.map((arg) => resolveTerm(planner, state, arg));
  // Arguments nobody reads again (`_`, names used once) may hold values of any type. Question
  // variables are always read (they are the answer).
  const unused = new Set<number>();
  call.args.forEach((arg, i) => {
    if (scope.clause && arg.kind === "variable" && args[i]!.kind === "variable") {
      if (arg.name === "_" || (scope.occurrences.get(arg.name) ?? 0) <= 1) unused.add(i);
    }
  });
  try {
    return planCall(planner, state, call.name.name, args, unused);
  } catch (error) {
    // Too many argument types for an instance: the call that asks for it is the place to fix.
    if (error instanceof PlanError && error.problem.kind === "type-combinations") {
      if (error.diagnostic.span) throw error;
      throw new PlanError(error.problem, at(call.span, planner.program.sources));
    }
    if (!(error instanceof TypeNeededError)) throw error;
    const arg = call.args[error.position];
    const name = arg?.kind === "variable" ? arg.name : "_";
    throw new InferenceError(name, scope.clause, at(arg?.span, planner.program.sources));
  }
}

/** `left = right` between resolved terms: binds, unifies or compares. */
function unifyResolved(
  planner: Planner,
  state: State,
  left: Resolved,
  right: Resolved,
): State | null {
  const program = planner.program;
  if (left.kind === "variable" && right.kind === "variable") {
    return unifyVariables(program, state, left.name, right.name);
  }
  if (left.kind === "variable")
    return bindVariable(program, state, left.name, (right as { term: Term }).term);
  if (right.kind === "variable") return bindVariable(program, state, right.name, left.term);
  return equateTerms(state, left.term, right.term);
}

function planCompare(planner: Planner, state: State, atom: Compare): State[] {
  const left = resolveTerm(planner, state, atom.left);
  const right = resolveTerm(planner, state, atom.right);
  if (atom.op === "=") {
    const next = unifyResolved(planner, state, left, right);
    return next ? [next] : [];
  }
  // Scheduling guarantees both sides are bound here.
  const a = (left as { term: Term }).term;
  const b = (right as { term: Term }).term;
  const decided = decideStatically(atom.op, a, b);
  if (decided !== null) return decided ? [state] : [];
  return [addConditions(state, [{ kind: "compare", op: atom.op, left: a, right: b }])];
}

/** A comparison known without data (literals, type clashes), or null. */
function decideStatically(op: Compare["op"], a: Term, b: Term): boolean | null {
  const typeA = termType(a);
  const typeB = termType(b);
  if (op === "!=") {
    if (typeA !== typeB) return true;
    if (termsEqual(a, b)) return false;
  } else if (op !== "=" && (typeA !== typeB || (typeA !== "Integer" && typeA !== "String"))) {
    return false;
  }
  if (a.kind === "literal" && b.kind === "literal") return compareValues(op, a.value, b.value);
  return null;
}

function planIn(planner: Planner, state: State, atom: In): State[] {
  const element = resolveTerm(planner, state, atom.element);
  const items = atom.list.map((item) => resolveTerm(planner, state, item));
  if (element.kind === "term" && items.every((item) => item.kind === "term")) {
    const type = termType(element.term);
    const values = items
      .map((item) => (item as { term: Term }).term)
      .filter((value) => termType(value) === type);
    if (values.length === 0) return [];
    if (element.term.kind === "literal" && values.every((value) => value.kind === "literal")) {
      return values.some((value) => termsEqual(value, element.term)) ? [state] : [];
    }
    return [addConditions(state, [{ kind: "in", term: element.term, values }])];
  }
  return items.flatMap((item) => {
    const next = unifyResolved(planner, state, element, item);
    return next ? [next] : [];
  });
}

function planNot(planner: Planner, scope: Scope, state: State, atom: Not): State[] {
  const inner: State = { ...state, sources: [], conditions: [] };
  const states = planExpr(planner, scope, inner, atom.operand);
  if (states.length === 0) return [state];
  if (states.some((s) => s.sources.length === 0 && s.conditions.length === 0)) return [];
  const branches: Branch[] = states.map((s) => ({
    sources: s.sources,
    conditions: s.conditions,
    outputs: [],
  }));
  return [addConditions(state, [{ kind: "not_exists", branches }])];
}

/**
 * `E1 or E2 …`: one state per branch of the operands (the union is multiplied out with the
 * rest of the conjunction), or, when the rest of the conjunction is still to be planned and
 * every variable the `or` shares with the rest of the rule is already bound, one state with
 * an `EXISTS` over the operands' branches. Multiplying out k such `or`s would give 2^k
 * branches (docs/limits.md, "branches"); kept whole, each is planned once.
 */
function planOr(planner: Planner, scope: Scope, state: State, atom: Or, last: boolean): State[] {
  const shared = scope.outerOfOr.get(atom);
  const whole =
    !last &&
    scope.clause !== null &&
    shared !== undefined &&
    [...shared].every((name) => slotOf(state, name).term !== null);
  if (!whole) {
    const states = atom.operands.flatMap((operand) => planExpr(planner, scope, state, operand));
    checkBranches(states.length);
    return states;
  }
  const inner: State = { ...state, sources: [], conditions: [] };
  const states = atom.operands.flatMap((operand) => planExpr(planner, scope, inner, operand));
  checkBranches(states.length);
  return keepWhole(state, states);
}

/**
 * `state` with one `EXISTS` over `alternatives` (states planned from `state` without its
 * sources and conditions, binding nothing `state` reads after), or `state` extended by each
 * of them when one reads its own recursion.
 */
function keepWhole(state: State, alternatives: readonly State[]): State[] {
  if (alternatives.length === 0) return [];
  if (alternatives.some((s) => s.sources.length === 0 && s.conditions.length === 0)) return [state];
  // A recursive reference must stay at the top of its CTE's step: multiplied out.
  if (alternatives.some((s) => readsSelf(s.sources, s.conditions))) {
    return alternatives.map((s) =>
      addConditions(
        { ...state, sources: [...state.sources, ...s.sources], vars: s.vars, links: s.links },
        s.conditions,
      ),
    );
  }
  const branches: Branch[] = alternatives.map((s) => ({
    sources: s.sources,
    conditions: s.conditions,
    outputs: [],
  }));
  return [addConditions(state, [{ kind: "exists", branches }])];
}

function readsSelf(sources: readonly SourceRef[], conditions: readonly Condition[]): boolean {
  return (
    sources.some((ref) => ref.source.kind === "recref") ||
    conditions.some(
      (c) => isSubquery(c) && c.branches.some((b) => readsSelf(b.sources, b.conditions)),
    )
  );
}
