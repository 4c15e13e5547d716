/**
 * What explaining one question shares: the evaluation session (its tables say what holds), the
 * fact layers with their sources, and every way a goal can be derived: a fact that is exactly the
 * goal, or a clause and a solution of one conjunction of its body (an edge). Edges are computed
 * once per goal from the session's complete tables.
 */
import type { Clause, PredicateKey, Program } from "../check/program.js";
import type { Value } from "../core/value.js";
import type { Atom, CallAtom, CompiledClause, Conjunction, TermIR } from "./compile.js";
import { compileClause } from "./compile.js";
import { callText, exprText, type FactSource, slotText } from "./explain-node.js";
import { type FactIndex, matchFacts } from "./facts.js";
import { ANY, intersect, isWildcard, type Slot, slotKey, tupleKey } from "./slot.js";
import { type Env, instantiateHead, matchHead, solveTop } from "./solve.js";
import type { Session } from "./tables.js";

/** Facts of one source. */
export interface FactLayer {
  readonly source: FactSource;
  readonly facts: FactIndex;
}

/**
 * Bounds of a denied tree: goal nesting, clauses (and `or` branches) shown per goal, and nodes
 * in all. A proof of an allowed question is never cut: it is a shortest derivation.
 */
export interface ExplainLimits {
  readonly maxDepth: number;
  readonly maxBranches: number;
  readonly maxNodes: number;
}

export const DEFAULT_LIMITS: ExplainLimits = { maxDepth: 16, maxBranches: 8, maxNodes: 500 };

/** A call to explain: a predicate and a slot per argument. */
export interface Goal {
  readonly predicate: PredicateKey;
  readonly name: string;
  readonly args: readonly Slot[];
}

export interface Context {
  readonly program: Program;
  readonly session: Session;
  readonly layers: readonly FactLayer[];
  readonly limits: ExplainLimits;
  readonly edges: Map<string, readonly Edge[]>;
}

/** A fact equal to the goal, or a clause whose conjunction `atoms` holds under `env`. */
export type Edge =
  | { readonly kind: "fact"; readonly source: FactSource; readonly args: readonly Value[] }
  | {
      readonly kind: "rule";
      readonly clause: Clause;
      readonly atoms: Conjunction;
      readonly env: Env;
    };

export function goalKey(goal: Goal): string {
  return `${goal.predicate}\u0002${tupleKey(goal.args)}`;
}

export function goalText(goal: Goal): string {
  return callText(goal.name, goal.args);
}

/** Every edge of a goal that holds; facts first, then clauses in source order. */
export function edgesOf(context: Context, goal: Goal): readonly Edge[] {
  const key = goalKey(goal);
  let edges = context.edges.get(key);
  if (!edges) {
    edges = [...factEdges(context, goal), ...ruleEdges(context, goal)];
    context.edges.set(key, edges);
  }
  return edges;
}

function factEdges(context: Context, goal: Goal): Edge[] {
  // A fact is ground: it proves a goal only when it is the goal.
  if (goal.args.some(isWildcard)) return [];
  const args = goal.args as readonly Value[];
  context.session.onLookup?.(goal.predicate, args);
  const edges: Edge[] = [];
  for (const layer of context.layers) {
    matchFacts(context.program, layer.facts, goal.predicate, args, (tuple) => {
      edges.push({ kind: "fact", source: layer.source, args: tuple });
    });
  }
  return edges;
}

function ruleEdges(context: Context, goal: Goal): Edge[] {
  const { program, session } = context;
  const edges: Edge[] = [];
  const seen = new Set<string>();
  (program.rules.get(goal.predicate) ?? []).forEach((clause, index) => {
    const compiled = compileClause(clause);
    const head = matchHead(session, compiled, goal.args);
    if (!head) return;
    namedConjunctions(compiled).forEach((atoms, branch) => {
      solveTop(session, atoms, head.env, (env) => {
        const answer = instantiateHead(session, compiled, clause, head.fixed, env);
        if (!covers(context, answer, goal.args)) return;
        const calls = atoms.flatMap((atom) =>
          atom.kind === "call" ? [tupleKey(callArgs(context, atom, env))] : [],
        );
        const key = `${index}\u0003${branch}\u0003${calls.join("\u0003")}`;
        if (seen.has(key)) return;
        seen.add(key);
        edges.push({ kind: "rule", clause, atoms, env });
      });
    });
  });
  return edges;
}

/** The answer holds for every value the goal stands for. */
function covers(context: Context, answer: readonly Slot[], goal: readonly Slot[]): boolean {
  return goal.every((slot, i) => {
    const meet = intersect(context.program, answer[i]!, slot);
    return meet !== null && slotKey(meet) === slotKey(slot);
  });
}

const named = new WeakMap<CompiledClause, readonly Conjunction[]>();

/**
 * The clause's conjunctions with each `_` of a call named (`_#1`, …), so that a solution says
 * which value the call matched there.
 */
export function namedConjunctions(compiled: CompiledClause): readonly Conjunction[] {
  let conjunctions = named.get(compiled);
  if (!conjunctions) {
    conjunctions = compiled.body.map(nameAnonymous);
    named.set(compiled, conjunctions);
  }
  return conjunctions;
}

export function nameAnonymous(conjunction: Conjunction): Conjunction {
  let fresh = 0;
  return conjunction.map((atom): Atom => {
    if (atom.kind !== "call") return atom;
    const args = atom.args.map(
      (arg): TermIR => (arg.kind === "anon" ? { kind: "var", name: `_#${++fresh}` } : arg),
    );
    return { ...atom, args };
  });
}

export function resolveTerm(context: Context, env: Env, term: TermIR): Slot {
  switch (term.kind) {
    case "const":
      return term.value;
    case "builtin":
      return context.session.builtins[term.name];
    case "var":
      return env.get(term.name) ?? ANY;
    case "anon":
      return ANY;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

function callArgs(context: Context, atom: CallAtom, env: Env): Slot[] {
  return atom.args.map((term) => resolveTerm(context, env, term));
}

export function callGoal(context: Context, atom: CallAtom, env: Env): Goal {
  const name = atom.predicate.slice(0, atom.predicate.lastIndexOf("/"));
  return { predicate: atom.predicate, name, args: callArgs(context, atom, env) };
}

/** The text of an atom under `env`: `has_role(…)`, `3 >= 2`, `not is_banned(…)`. */
export function atomText(context: Context, atom: Atom, env: Env): string {
  const term = (t: TermIR) => slotText(resolveTerm(context, env, t));
  switch (atom.kind) {
    case "call":
      return goalText(callGoal(context, atom, env));
    case "unify":
      return `${term(atom.left)} = ${term(atom.right)}`;
    case "compare":
      return `${term(atom.left)} ${atom.op} ${term(atom.right)}`;
    case "in":
      return `${term(atom.element)} in [${atom.list.map(term).join(", ")}]`;
    case "matches":
      return `${term(atom.variable)} matches ${atom.type}`;
    case "not": {
      const operand = atom.operand;
      const text = exprText(operand, env);
      return operand.kind === "and" || operand.kind === "or" ? `not (${text})` : `not ${text}`;
    }
    default: {
      const _never: never = atom;
      return _never;
    }
  }
}
