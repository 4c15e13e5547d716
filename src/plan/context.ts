/**
 * The planner's working context for one (program, data bindings) pair. Instance plans are
 * memoized here and reused by every question planned with the same context.
 */
import type { Binding, DataBindings } from "../bindings/types.js";
import { stronglyConnectedComponents } from "../check/graph.js";
import { type Clause, type PredicateKey, type Program, predicateKey } from "../check/program.js";
import { exprVariables, paramVariable } from "../check/walk.js";
import type { Value } from "../core/value.js";
import type { Expr } from "../polar/ast.js";
import type { PlanError } from "./errors.js";
import type { Branch, RuleOrigin, TypeConstraint } from "./ir.js";
import { callsPerConjunction } from "./nonlinear.js";
import type { State } from "./state.js";
import { constraintKey } from "./types.js";

/** How a predicate instance's argument is given by its caller. */
export type Adornment =
  /** A value known when planning: a policy literal or a single primitive of the question. */
  | { readonly kind: "literal"; readonly value: Value }
  /** A term of this concrete type, supplied by the caller (an `input` term in the plan). */
  | { readonly kind: "bound"; readonly type: string }
  /**
   * Unbound: the instance produces the values. `unused` when the caller never reads the
   * argument again (`_`): its facts may then have any type.
   */
  | { readonly kind: "free"; readonly constraint: TypeConstraint; readonly unused?: boolean };

export type InstancePlan =
  /** A union of branches; `input` terms stand for the bound arguments. */
  | { readonly kind: "flat"; readonly branches: readonly Branch[] }
  /**
   * A recursive instance: `exits` do not call it, each of `steps` reads it once through a
   * `recref` source. Callers get a `reccall` source, expanded into a CTE at the end.
   */
  | {
      readonly kind: "recursive";
      readonly key: string;
      readonly name: string;
      readonly adornment: readonly Adornment[];
      readonly exits: readonly Branch[];
      readonly steps: readonly Branch[];
    }
  /**
   * A member of a mutually recursive component: all members are computed together in one
   * CTE (component.ts). Callers get a `reccall` source, like a recursive instance.
   */
  | { readonly kind: "member"; readonly key: string; readonly component: Component }
  /** The instance is being planned further up the stack: a recursive reference. */
  | { readonly kind: "self"; readonly key: string };

/**
 * A recursive component whose root still reads other members after they were inlined into it
 * (they call themselves): the members are computed together, in one CTE.
 */
export interface Component {
  /** The instance key of its recursive references once merged. */
  readonly key: string;
  /** The first is the instance whose planning found the component. */
  readonly members: readonly Member[];
}

export interface Member {
  readonly key: string;
  readonly name: string;
  readonly adornment: readonly Adornment[];
  /** Exits, and steps that read one member (maybe another) through a `recref` source. */
  readonly branches: readonly Branch[];
}

interface Frame {
  readonly key: string;
  readonly name: string;
  readonly adornment: readonly Adornment[];
  readonly index: number;
  lowlink: number;
}

export interface Planner {
  readonly program: Program;
  readonly bindings: DataBindings;
  /** Predicates that take part in a recursive component of the dependency graph. */
  readonly recursive: ReadonlySet<PredicateKey>;
  /** The recursive component of each such predicate. */
  readonly componentOf: ReadonlyMap<PredicateKey, number>;
  readonly bindingsByPredicate: ReadonlyMap<string, readonly number[]>;
  readonly memo: Map<string, InstancePlan | PlanError>;
  readonly stack: Frame[];
  /** Name and adornment of every instance key seen, to plan one again by its key. */
  readonly instances: Map<
    string,
    { readonly name: string; readonly adornment: readonly Adornment[] }
  >;
  /**
   * The last branches planned for each member of a recursive component below its root (they
   * read instances on the stack through `recref` sources); the root collects them.
   */
  readonly provisional: Map<string, readonly Branch[]>;
  readonly counters: { alias: number; variable: number; frame: number };
  /**
   * Plans a clause body (src/plan/body.ts `planBody`): instances plan the bodies of their
   * clauses, whose calls plan instances again; passing the function here keeps that recursion
   * out of the import graph.
   */
  readonly planBody: BodyPlanner;
}

/** The states in which a clause body holds, starting from the head's bindings. */
type BodyPlanner = (planner: Planner, clause: Clause | null, state: State, body: Expr) => State[];

/**
 * A planner for a program and its data bindings; callers use `createPlanner` of plan.ts, which
 * supplies the body planner.
 */
export function openPlanner(
  program: Program,
  bindings: DataBindings,
  planBody: BodyPlanner,
): Planner {
  const recursive = new Set<PredicateKey>();
  const componentOf = new Map<PredicateKey, number>();
  stronglyConnectedComponents(program).forEach((component, index) => {
    if (!component.recursive) return;
    for (const key of component.predicates) {
      recursive.add(key);
      componentOf.set(key, index);
    }
  });
  const bindingsByPredicate = new Map<string, number[]>();
  bindings.bindings.forEach((binding: Binding, index) => {
    const key = `${binding.predicate}/${binding.slots.length}`;
    const list = bindingsByPredicate.get(key) ?? [];
    list.push(index);
    bindingsByPredicate.set(key, list);
  });
  return {
    program,
    bindings,
    recursive,
    componentOf,
    bindingsByPredicate,
    memo: new Map(),
    stack: [],
    instances: new Map(),
    provisional: new Map(),
    counters: { alias: 0, variable: 0, frame: 0 },
    planBody,
  };
}

/** A new source alias (`t17`); plans rename them to `f0, f1, …` at the end. */
export function freshAlias(planner: Planner): string {
  return `t${planner.counters.alias++}`;
}

/** A variable name no policy can write (`_` and generated variables). */
export function freshVariable(planner: Planner): string {
  return `%${planner.counters.variable++}`;
}

/** `Lstring:"read"`, `BUser`, `F<Actor`: one argument's part of an instance key. */
function adornmentKey(adornment: Adornment): string {
  switch (adornment.kind) {
    case "literal":
      return `L${adornment.value.type}:${JSON.stringify(adornment.value.id)}`;
    case "bound":
      return `B${adornment.type}`;
    case "free":
      return `${adornment.unused ? "U" : "F"}${constraintKey(adornment.constraint)}`;
    default: {
      const _never: never = adornment;
      return _never;
    }
  }
}

/** The memo key of an instance, e.g. `has_role(BUser,LString:"viewer",F=Org)`. */
export function instanceKey(name: string, adornment: readonly Adornment[]): string {
  return `${name}(${adornment.map(adornmentKey).join(",")})`;
}

// ---------------------------------------------------------------- Tarjan frames

/** Enters the planning of an instance (Tarjan's index and lowlink). */
export function pushFrame(
  planner: Planner,
  key: string,
  name: string,
  adornment: readonly Adornment[],
): Frame {
  const index = planner.counters.frame++;
  const frame: Frame = { key, name, adornment, index, lowlink: index };
  planner.instances.set(key, { name, adornment });
  planner.stack.push(frame);
  return frame;
}

/** The instance whose clauses are being planned, if any. */
export function currentFrame(planner: Planner): Frame | undefined {
  return planner.stack[planner.stack.length - 1];
}

/** The frame of an instance being planned further up the stack, if any. */
export function frameOf(planner: Planner, key: string): Frame | undefined {
  return planner.stack.find((frame) => frame.key === key);
}

/** Records that the instance being planned reaches `lowlink` (Tarjan's algorithm). */
export function lowerCurrent(planner: Planner, lowlink: number): void {
  const top = planner.stack[planner.stack.length - 1];
  if (top && lowlink < top.lowlink) top.lowlink = lowlink;
}

/**
 * Where the recursion of `name/arity` is written: its first rule that calls a predicate of its
 * own recursive component (else its first rule), for refusals about that recursion.
 */
export function ruleOrigin(planner: Planner, name: string, arity: number): RuleOrigin {
  const rules = planner.program.rules;
  // A merged component's plan has the first member's name and the merged columns' arity.
  const key = rules.has(predicateKey(name, arity))
    ? predicateKey(name, arity)
    : [...rules.keys()].find((known) => known.slice(0, known.lastIndexOf("/")) === name);
  const clauses = (key && rules.get(key)) || [];
  const component = key && planner.componentOf.get(key);
  const members = new Set(
    [...planner.componentOf].flatMap(([other, index]) => (index === component ? [other] : [])),
  );
  const recursive = clauses.find(
    (clause) => clause.body !== null && callsPerConjunction(clause.body, members) > 0,
  );
  return { predicate: name, span: (recursive ?? clauses[0])?.span ?? null };
}

/**
 * Where a rule of `name/arity` holds for every value of an argument: its first rule with a head
 * variable the body never names (`_: Node`, or a variable only in the head); else `ruleOrigin`.
 */
export function universalRuleOrigin(planner: Planner, name: string, arity: number): RuleOrigin {
  const universal = (planner.program.rules.get(predicateKey(name, arity)) ?? []).find((clause) => {
    const named = new Set(clause.body ? exprVariables(clause.body).map((v) => v.name) : []);
    return clause.params.some((param) => {
      const variable = paramVariable(param);
      return variable !== null && (variable.name === "_" || !named.has(variable.name));
    });
  });
  return universal ? { predicate: name, span: universal.span } : ruleOrigin(planner, name, arity);
}
