/**
 * The planner's entry point: a goal becomes a `Plan` — a union of conjunctive branches plus
 * the recursive CTEs they read. Plans are cached per (program, data bindings, goal shape);
 * question values are parameters, substituted when the plan is printed.
 */
import type { DataBindings } from "../bindings/types.js";
import type { Program } from "../check/program.js";
import type { Call, Expr } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import { planBody } from "./body.js";
import { policyConstants } from "./constants.js";
import { freshAlias, openPlanner, type Planner } from "./context.js";
import { PlanError, UnboundError } from "./errors.js";
import { expandBranches, newExpansion } from "./expand.js";
import { type Goal, goalKey, goalVariableType } from "./goal.js";
import { argColumn, type Branch, column, literal, type Plan, type Term } from "./ir.js";
import { simplifyBranches } from "./merge.js";
import {
  addSources,
  bindVariable,
  constrainVariable,
  EMPTY_STATE,
  outputOf,
  type State,
} from "./state.js";
import { exactType } from "./types.js";

const NO_SPAN: Span = { file: "<question>", start: 0, end: 0 };

/** Question variables live in their own namespace inside the goal's state. */
function internal(name: string): string {
  return `?${name}`;
}

function goalExpr(goal: Goal): Expr {
  const calls: Call[] = goal.calls.map((call) => ({
    kind: "call",
    name: { kind: "ident", name: call.name, span: NO_SPAN },
    args: call.args.map((arg) => ({ kind: "variable", name: internal(arg), span: NO_SPAN })),
    span: NO_SPAN,
  }));
  return calls.length === 1 ? calls[0]! : { kind: "and", operands: calls, span: NO_SPAN };
}

function initialState(planner: Planner, goal: Goal, bindOuter: boolean): State | null {
  let state: State | null = EMPTY_STATE;
  for (const [name, variable] of goal.variables) {
    if (!state) return null;
    const type = goalVariableType(variable);
    const inner = internal(name);
    state = constrainVariable(planner.program, state, inner, exactType(type));
    if (!state) return null;
    let term: Term | null = null;
    if (variable.kind === "literal") term = literal(variable.value);
    else if (variable.kind === "param" && variable.many) {
      const alias = freshAlias(planner);
      state = addSources(state, [{ alias, source: { kind: "param", name, type } }]);
      term = column(alias, argColumn(0), type);
    } else if (variable.kind === "param") term = { kind: "param", name, type };
    else if (bindOuter && goal.outer === name) term = { kind: "outer", type };
    if (term) state = bindVariable(planner.program, state, inner, term);
  }
  return state;
}

function planWith(planner: Planner, goal: Goal, bindOuter: boolean): Plan {
  const start = initialState(planner, goal, bindOuter);
  const states =
    start && goal.calls.length > 0 ? planBody(planner, null, start, goalExpr(goal)) : [];
  const branches: Branch[] = states.map((state) => ({
    sources: state.sources,
    conditions: state.conditions,
    outputs: goal.outputs.map((name) => outputOf(state, internal(name))),
  }));
  const expansion = newExpansion(planner);
  const expanded = simplifyBranches(expandBranches(expansion, branches), "f");
  const plan: Plan = {
    ctes: expansion.ctes,
    branches: expanded,
    outputs: goal.outputs.map((name) => ({
      variable: name,
      type: goalVariableType(goal.variables.get(name)!),
    })),
  };
  const constants = policyConstants(planner.program, goal, expanded, expansion.ctes);
  return constants.length > 0 ? { ...plan, constants } : plan;
}

/**
 * A planner for a program and its data bindings.
 *
 *   const planner = createPlanner(program, parseDataBindings(yaml));
 */
export function createPlanner(program: Program, bindings: DataBindings): Planner {
  return openPlanner(program, bindings, planBody);
}

/**
 * Plans a goal with a fresh or shared planner (shared planners reuse instance plans).
 *
 *   planGoal(createPlanner(program, bindings), {
 *     calls: [{ name: "allow", args: ["actor", "action", "resource"] }],
 *     variables: new Map([["actor", { kind: "param", type: "User" }], …]),
 *     outputs: [], outer: null,
 *   })
 */
export function planGoal(planner: Planner, goal: Goal): Plan {
  try {
    return planWith(planner, goal, false);
  } catch (error) {
    if (error instanceof UnboundError && goal.outer !== null) return planWith(planner, goal, true);
    throw error;
  }
}

interface CacheEntry {
  readonly planner: Planner;
  readonly plans: Map<string, Plan | PlanError>;
}

const cache = new WeakMap<Program, WeakMap<DataBindings, CacheEntry>>();
const MAX_PLANS_PER_ENTRY = 2000;

/**
 * `planGoal` through a cache keyed by the program and bindings objects and the goal's shape.
 * Failures are cached too.
 *
 *   const plan = cachedPlan(program, bindings, goal); // the same object for the same shape
 */
export function cachedPlan(program: Program, bindings: DataBindings, goal: Goal): Plan {
  const entry = cacheEntry(program, bindings);
  const key = goalKey(goal);
  const known = entry.plans.get(key);
  if (known instanceof PlanError) throw known;
  if (known) return known;
  if (entry.plans.size >= MAX_PLANS_PER_ENTRY) entry.plans.clear();
  try {
    const plan = planGoal(entry.planner, goal);
    entry.plans.set(key, plan);
    return plan;
  } catch (error) {
    if (error instanceof PlanError) entry.plans.set(key, error);
    throw error;
  }
}

function cacheEntry(program: Program, bindings: DataBindings): CacheEntry {
  let perProgram = cache.get(program);
  if (!perProgram) {
    perProgram = new WeakMap();
    cache.set(program, perProgram);
  }
  let entry = perProgram.get(bindings);
  if (!entry) {
    entry = { planner: createPlanner(program, bindings), plans: new Map() };
    perProgram.set(bindings, entry);
  }
  return entry;
}

/**
 * The plan cached for the goal, the planner's cached refusal, or undefined when it was never
 * planned: a caller that plans elsewhere (a worker thread, src/workers/pool.ts) hands what it
 * gets to `rememberPlan`.
 */
export function knownPlan(
  program: Program,
  bindings: DataBindings,
  goal: Goal,
): Plan | PlanError | undefined {
  return cacheEntry(program, bindings).plans.get(goalKey(goal));
}

/** Stores a plan (or the planner's refusal) made elsewhere for the goal. */
export function rememberPlan(
  program: Program,
  bindings: DataBindings,
  goal: Goal,
  plan: Plan | PlanError,
): void {
  const entry = cacheEntry(program, bindings);
  if (entry.plans.size >= MAX_PLANS_PER_ENTRY) entry.plans.clear();
  entry.plans.set(goalKey(goal), plan);
}
