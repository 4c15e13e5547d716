/**
 * Solving one conjunction of atoms under variable bindings (docs/policy-language.md: #operators, #fixpoint-semantics, #negation, #wildcards). Atoms run
 * in an order chosen per step: cheap filters and bindings first, then the call with the most
 * bound arguments, then what needs bound values (`=` between unbound sides, comparisons, `not`).
 * A variable is bound to a slot; a wildcard slot narrows when joined and is never expanded.
 */
import type { Clause, PredicateKey } from "../check/program.js";
import { spendEvaluationStep } from "../core/budget.js";
import { compareValues } from "../core/value.js";
import type { Span } from "../source/source.js";
import {
  type Atom,
  type CompareAtom,
  type CompiledClause,
  type Conjunction,
  compileClause,
  type NotAtom,
  type TermIR,
} from "./compile.js";
import { unbounded } from "./errors.js";
import { ANY, anyOf, fits, intersect, isWildcard, type Slot } from "./slot.js";
import {
  type Caller,
  completeFrom,
  consume,
  type Session,
  type Table,
  TOP,
  type Tuple,
} from "./tables.js";

/** Variable bindings; a missing name is unbound (any value). */
export type Env = ReadonlyMap<string, Slot>;
/** Receives each solution; returning true stops the search. */
type Emit = (env: Env) => unknown;

export interface HeadMatch {
  readonly env: Env;
  /** Answer slots of the positions that are not named variables. */
  readonly fixed: readonly (Slot | undefined)[];
}

/** Runs each clause of the table's predicate once for its pattern (a `ClauseRunner`). */
export function runClauses(
  session: Session,
  table: Table,
  caller: Caller,
  add: (tuple: Tuple) => void,
): void {
  for (const clause of session.program.rules.get(table.predicate) ?? []) {
    const compiled = compileClause(clause);
    const head = matchHead(session, compiled, table.pattern);
    if (!head) continue;
    for (const conjunction of compiled.body) {
      solve(session, caller, conjunction, head.env, (env) => {
        add(instantiateHead(session, compiled, clause, head.fixed, env));
      });
    }
  }
}

/** Fits a call pattern to a clause head (docs/policy-language.md#rules-and-facts): literals, specializers, repeated variables. */
export function matchHead(
  session: Session,
  clause: CompiledClause,
  pattern: Tuple,
): HeadMatch | null {
  const env = new Map<string, Slot>();
  const fixed: (Slot | undefined)[] = [];
  for (let i = 0; i < clause.head.length; i++) {
    const { term, type } = clause.head[i]!;
    let slot: Slot | null = pattern[i]!;
    if (type !== null) slot = intersect(session.program, slot, anyOf(type));
    if (term.kind !== "anon" && slot) {
      const bound = term.kind === "var" ? env.get(term.name) : resolve(session, env, term);
      if (bound) slot = intersect(session.program, slot, bound);
    }
    if (!slot) return null;
    if (term.kind === "var") env.set(term.name, slot);
    else fixed[i] = slot;
  }
  return { env, fixed };
}

/** The answer a clause gives once its body is solved; unbound head variables stay wildcards. */
export function instantiateHead(
  session: Session,
  clause: CompiledClause,
  source: Clause,
  fixed: readonly (Slot | undefined)[],
  env: Env,
): Tuple {
  return clause.head.map(({ term }, i) => {
    if (term.kind !== "var") return fixed[i]!;
    const slot = env.get(term.name)!;
    if (isWildcard(slot) && clause.repeated.has(term.name)) {
      throw unbounded(
        { code: "P602", kind: "unbounded-head", rule: source.name, variable: term.name },
        { span: source.span, sources: session.program.sources },
      );
    }
    return slot;
  });
}

/** Calls `emit` with every solution of `atoms` extending `env`; true when `emit` stopped it. */
export function solve(
  session: Session,
  caller: Caller,
  atoms: Conjunction,
  env: Env,
  emit: Emit,
): boolean {
  if (atoms.length === 0) return emit(env) === true;
  spendEvaluationStep();
  const index = pickNext(session, atoms, env);
  const rest = atoms.filter((_, i) => i !== index);
  return step(session, caller, atoms[index]!, env, (next) =>
    solve(session, caller, rest, next, emit),
  );
}

/**
 * Which atom runs next (docs/policy-language.md#fixpoint-semantics): cheap filters and bindings first, then the call with the most
 * bound arguments (fact-only predicates on ties), then `in` over unbound elements, and last
 * what needs bound values: `=` between two unbound sides, comparisons, `not`.
 */
export function pickNext(session: Session, atoms: Conjunction, env: Env): number {
  let best = 0;
  let bestRank = Number.POSITIVE_INFINITY;
  atoms.forEach((atom, i) => {
    const rank = rankAtom(session, atom, env);
    if (rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  });
  return best;
}

function rankAtom(session: Session, atom: Atom, env: Env): number {
  const concrete = (term: TermIR) => isConcrete(session, env, term);
  switch (atom.kind) {
    case "matches":
      return 0;
    case "unify": {
      const { left, right } = atom;
      const trivial =
        left.kind === "anon" ||
        right.kind === "anon" ||
        (left.kind === "var" && right.kind === "var" && left.name === right.name);
      return trivial || concrete(left) || concrete(right) ? 0 : 6000;
    }
    case "compare":
      return concrete(atom.left) && concrete(atom.right) ? 0 : 7000;
    case "in":
      if (concrete(atom.element)) return 0;
      return atom.list.every(concrete) ? 1000 : 6000;
    case "call": {
      const bound = atom.args.filter(concrete).length;
      const factsOnly = session.program.rules.has(atom.predicate) ? 0 : 1;
      return 2000 - 2 * bound - factsOnly;
    }
    case "not":
      return 8000;
    default: {
      const _never: never = atom;
      return _never;
    }
  }
}

function isConcrete(session: Session, env: Env, term: TermIR): boolean {
  const slot = resolve(session, env, term);
  return slot !== undefined && !isWildcard(slot);
}

/** A term's slot; undefined for an unbound variable. `_` is any value. */
function resolve(session: Session, env: Env, term: TermIR): Slot | undefined {
  switch (term.kind) {
    case "const":
      return term.value;
    case "builtin":
      return session.builtins[term.name];
    case "var":
      return env.get(term.name);
    case "anon":
      return ANY;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

function bind(env: Env, name: string, slot: Slot): Env {
  return env.get(name) === slot ? env : new Map(env).set(name, slot);
}

function step(
  session: Session,
  caller: Caller,
  atom: Atom,
  env: Env,
  next: (env: Env) => boolean,
): boolean {
  switch (atom.kind) {
    case "call":
      return stepCall(session, caller, atom.predicate, atom.args, env, next);
    case "unify": {
      const unified = unify(session, env, atom.left, atom.right, atom.span);
      return unified !== null && next(unified);
    }
    case "compare":
      return holds(session, env, atom) && next(env);
    case "in":
      for (const element of atom.list) {
        const unified = unify(session, env, atom.element, element, atom.span);
        if (unified && next(unified)) return true;
      }
      return false;
    case "matches": {
      if (atom.variable.kind !== "var") return next(env);
      const current = env.get(atom.variable.name) ?? ANY;
      const narrowed = intersect(session.program, current, anyOf(atom.type));
      return narrowed !== null && next(bind(env, atom.variable.name, narrowed));
    }
    case "not":
      return !negatedHolds(session, caller, atom, env) && next(env);
    default: {
      const _never: never = atom;
      return _never;
    }
  }
}

function stepCall(
  session: Session,
  caller: Caller,
  predicate: PredicateKey,
  args: readonly TermIR[],
  env: Env,
  next: (env: Env) => boolean,
): boolean {
  const pattern = args.map((term) => resolve(session, env, term) ?? ANY);
  return consume(session, caller, predicate, pattern, (answer) => {
    const extended = join(session, env, args, answer);
    return extended !== null && next(extended);
  });
}

/** Binds the call's variables to an answer (which already fits the call's pattern). */
function join(session: Session, env: Env, args: readonly TermIR[], answer: Tuple): Env | null {
  let extended: Env = env;
  for (let j = 0; j < args.length; j++) {
    const term = args[j]!;
    if (term.kind !== "var") continue;
    const current = extended.get(term.name);
    const joined = current ? intersect(session.program, current, answer[j]!) : answer[j]!;
    if (!joined) return null;
    extended = bind(extended, term.name, joined);
  }
  return extended;
}

/**
 * `left = right`: binds an unbound side to a value, or narrows both sides to their common value.
 * Equating two wildcards is an error: the answer positions could not say they are equal.
 */
function unify(
  session: Session,
  env: Env,
  left: TermIR,
  right: TermIR,
  span: Span | null,
): Env | null {
  if (left.kind === "anon" || right.kind === "anon") return env;
  if (left.kind === "var" && right.kind === "var" && left.name === right.name) return env;
  const l = resolve(session, env, left) ?? ANY;
  const r = resolve(session, env, right) ?? ANY;
  const joined = intersect(session.program, l, r);
  if (!joined) return null;
  if (isWildcard(joined)) {
    throw unboundedOperand(session, "=", isWildcard(l) ? left : right, span);
  }
  let result = env;
  if (left.kind === "var") result = bind(result, left.name, joined);
  if (right.kind === "var") result = bind(result, right.name, joined);
  return result;
}

function variableName(term: TermIR): string {
  return term.kind === "var" ? term.name : "_";
}

function unboundedOperand(
  session: Session,
  operator: string,
  term: TermIR,
  span: Span | null,
): Error {
  return unbounded(
    { code: "P602", kind: "unbounded", operator, variable: variableName(term) },
    span && { span, sources: session.program.sources },
  );
}

/** `!=` and the orderings of docs/policy-language.md#project-decisions, decision 14; a wildcard operand is an error unless decided. */
function holds(session: Session, env: Env, atom: CompareAtom): boolean {
  const left = resolve(session, env, atom.left) ?? ANY;
  const right = resolve(session, env, atom.right) ?? ANY;
  if (!isWildcard(left) && !isWildcard(right)) return compareValues(atom.op, left, right);
  const wildcardTerm = isWildcard(left) ? atom.left : atom.right;
  if (atom.op === "!=") {
    if (intersect(session.program, left, right) === null) return true;
    throw unboundedOperand(session, "!=", wildcardTerm, atom.span);
  }
  const canBe = (slot: Slot, type: string) =>
    isWildcard(slot) ? fits(session.program, { type, id: "" }, slot) : slot.type === type;
  const comparable =
    (canBe(left, "Integer") && canBe(right, "Integer")) ||
    (canBe(left, "String") && canBe(right, "String"));
  if (!comparable) return false;
  throw unboundedOperand(session, atom.op, wildcardTerm, atom.span);
}

/**
 * Whether `body` has a solution extending `env`. Everything the body starts is completed before
 * answering; by stratification none of it waits on a table outside the `not`.
 */
function negatedHolds(session: Session, caller: Caller, atom: NotAtom, env: Env): boolean {
  const body = atom.body;
  for (const name of atom.variables) {
    const slot = env.get(name);
    if (slot && isWildcard(slot)) {
      throw unbounded(
        { code: "P602", kind: "unbounded", operator: "not", variable: name },
        { span: atom.span, sources: session.program.sources },
      );
    }
  }
  const floor = session.negationFloor;
  const height = session.stack.length;
  session.negationFloor = height;
  try {
    let found = false;
    const inside: Caller = { table: caller.table, owner: height };
    for (const conjunction of body) {
      if (found) break;
      solve(session, inside, conjunction, env, () => {
        found = true;
        return true;
      });
    }
    if (!completeFrom(session, height)) {
      throw unbounded(
        { code: "P602", kind: "negation-through-itself" },
        { span: atom.span, sources: session.program.sources },
      );
    }
    return found;
  } finally {
    session.negationFloor = floor;
  }
}

/** Solutions of a conjunction asked at the top level; every table it starts is completed. */
export function solveTop(session: Session, conjunction: Conjunction, env: Env, emit: Emit): void {
  solve(session, TOP, conjunction, env, emit);
  finishTop(session);
}

/** Whether any of the conjunctions has a solution extending `env`. */
export function hasSolution(
  session: Session,
  conjunctions: readonly Conjunction[],
  env: Env,
): boolean {
  let found = false;
  for (const conjunction of conjunctions) {
    if (found) break;
    solveTop(session, conjunction, env, () => {
      found = true;
      return true;
    });
  }
  return found;
}

/** Every answer of `predicate(pattern)`, asked at the top level. */
export function callPredicate(
  session: Session,
  predicate: PredicateKey,
  pattern: Tuple,
): readonly Tuple[] {
  const answers: Tuple[] = [];
  consume(session, TOP, predicate, pattern, (answer) => {
    answers.push(answer);
    return false;
  });
  finishTop(session);
  return answers;
}

function finishTop(session: Session): void {
  if (!completeFrom(session, 0)) throw new Error("internal error: a top-level table is incomplete");
}
