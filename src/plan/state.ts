/**
 * A conjunctive branch while it is being planned: what each variable is bound to, the sources
 * read so far and the conditions collected. States are immutable; every step returns a new
 * one, or null when the branch cannot hold (a type clash, two different literals).
 */
import type { Program } from "../check/program.js";
import {
  type AnyOutput,
  type Condition,
  type Output,
  type SourceRef,
  type Term,
  type TypeConstraint,
  termsEqual,
  termType,
} from "./ir.js";
import { ANY_TYPE, mergeConstraints, satisfies } from "./types.js";

interface VarSlot {
  /** Null while unbound. */
  readonly term: Term | null;
  readonly constraint: TypeConstraint;
}

export interface State {
  readonly vars: ReadonlyMap<string, VarSlot>;
  /** Unbound variables unified with each other point to one representative. */
  readonly links: ReadonlyMap<string, string>;
  readonly sources: readonly SourceRef[];
  readonly conditions: readonly Condition[];
}

export const EMPTY_STATE: State = {
  vars: new Map(),
  links: new Map(),
  sources: [],
  conditions: [],
};

/** The variable that `name` was unified with, if any (`x = y` links unbound variables). */
export function representative(state: State, name: string): string {
  let current = name;
  for (let next = state.links.get(current); next !== undefined; next = state.links.get(current)) {
    current = next;
  }
  return current;
}

/** What `name` is bound to (or its type constraint while unbound). */
export function slotOf(state: State, name: string): VarSlot {
  return state.vars.get(representative(state, name)) ?? { term: null, constraint: ANY_TYPE };
}

function withSlot(state: State, name: string, slot: VarSlot): State {
  const vars = new Map(state.vars);
  vars.set(representative(state, name), slot);
  return { ...state, vars };
}

/** The state with these sources read too. */
export function addSources(state: State, sources: readonly SourceRef[]): State {
  return sources.length === 0 ? state : { ...state, sources: [...state.sources, ...sources] };
}

/** The state with these conditions holding too. */
export function addConditions(state: State, conditions: readonly Condition[]): State {
  return conditions.length === 0
    ? state
    : { ...state, conditions: [...state.conditions, ...conditions] };
}

/**
 * `a = b` for two terms: folded when both are policy literals or of different types (values
 * of different types are never equal), a condition otherwise.
 */
export function equateTerms(state: State, a: Term, b: Term): State | null {
  if (termsEqual(a, b)) return state;
  if (termType(a) !== termType(b)) return null;
  if (a.kind === "literal" && b.kind === "literal") return null;
  return addConditions(state, [{ kind: "compare", op: "=", left: a, right: b }]);
}

/** Binds variable `name` to `term`, or adds an equality if it is already bound. */
export function bindVariable(
  program: Program,
  state: State,
  name: string,
  term: Term,
): State | null {
  const slot = slotOf(state, name);
  if (slot.term) return equateTerms(state, slot.term, term);
  if (!satisfies(program, termType(term), slot.constraint)) return null;
  return withSlot(state, name, { term, constraint: slot.constraint });
}

/** Narrows a variable's type: a check when bound, a constraint otherwise. */
export function constrainVariable(
  program: Program,
  state: State,
  name: string,
  constraint: TypeConstraint,
): State | null {
  const slot = slotOf(state, name);
  if (slot.term) return satisfies(program, termType(slot.term), constraint) ? state : null;
  const merged = mergeConstraints(program, slot.constraint, constraint);
  return merged ? withSlot(state, name, { term: null, constraint: merged }) : null;
}

/** `a = b` for two variables. */
export function unifyVariables(program: Program, state: State, a: string, b: string): State | null {
  const ra = representative(state, a);
  const rb = representative(state, b);
  if (ra === rb) return state;
  const slotA = slotOf(state, ra);
  const slotB = slotOf(state, rb);
  if (slotA.term && slotB.term) return equateTerms(state, slotA.term, slotB.term);
  if (slotA.term) return bindVariable(program, state, rb, slotA.term);
  if (slotB.term) return bindVariable(program, state, ra, slotB.term);
  const merged = mergeConstraints(program, slotA.constraint, slotB.constraint);
  if (!merged) return null;
  const links = new Map(state.links);
  links.set(ra, rb);
  const vars = new Map(state.vars);
  vars.delete(ra);
  vars.set(rb, { term: null, constraint: merged });
  return { ...state, vars, links };
}

/** What a variable contributes as an output: its term, or "any value" when unbound. */
export function outputOf(state: State, name: string): Output {
  const slot = slotOf(state, name);
  if (slot.term) return slot.term;
  const any: AnyOutput = {
    kind: "any",
    id: representative(state, name),
    constraint: slot.constraint,
  };
  return any;
}
