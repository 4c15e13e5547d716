/**
 * A call inside a branch: compute the adornment from what the branch has bound, plan the
 * instance, and inline its branches (renamed, with the caller's terms for the inputs). A
 * recursive instance is not inlined but read through a `reccall` source; its free columns
 * need one concrete type each, so calls of recursive predicates are split per candidate type.
 */
import { spendPlanStep } from "../core/budget.js";
import type { Resolved } from "./body.js";
import {
  type Adornment,
  currentFrame,
  freshAlias,
  freshVariable,
  type Planner,
} from "./context.js";
import { TypeNeededError } from "./errors.js";
import { planInstance } from "./instance.js";
import { argColumn, column, type Output, type Term, termType } from "./ir.js";
import { instantiate } from "./rewrite.js";
import {
  addConditions,
  addSources,
  bindVariable,
  constrainVariable,
  type State,
  slotOf,
  unifyVariables,
} from "./state.js";
import { candidateTypes, exactType, isUnconstrained } from "./types.js";

const MAX_TYPE_SPLITS = 64;

function adornmentOf(state: State, arg: Resolved, unused: boolean): Adornment {
  if (arg.kind === "term") {
    return arg.term.kind === "literal"
      ? { kind: "literal", value: arg.term.value }
      : { kind: "bound", type: termType(arg.term) };
  }
  const constraint = slotOf(state, arg.name).constraint;
  return unused ? { kind: "free", constraint, unused } : { kind: "free", constraint };
}

/**
 * The states in which `name(args)` holds, extending `state`.
 *
 *   planCall(planner, state, "has_role", [actorVariable, literalTerm("viewer"), resourceVariable])
 */
export function planCall(
  planner: Planner,
  state: State,
  name: string,
  args: readonly Resolved[],
  unused: ReadonlySet<number> = new Set(),
): State[] {
  const recursive = planner.recursive.has(`${name}/${args.length}`);
  // Recursive instances keep every argument as a CTE column, so none is left untyped.
  const adornment = args.map((arg, i) => adornmentOf(state, arg, !recursive && unused.has(i)));
  if (recursive) {
    const loosened = loosenToCaller(planner, state, name, args);
    if (loosened) return loosened;
    const split = splitFreeTypes(planner, state, name, args, adornment);
    if (split) return split;
  }
  const plan = planInstance(planner, name, adornment);
  const actual: (Term | null)[] = args.map((arg) => (arg.kind === "term" ? arg.term : null));
  switch (plan.kind) {
    case "flat": {
      const states: State[] = [];
      for (const branch of plan.branches) {
        // Each inlined branch is work: a plan that copies many branches spends many steps.
        spendPlanStep();
        const copy = instantiate(branch, () => freshAlias(planner), actual);
        let next: State | null = addConditions(addSources(state, copy.sources), copy.conditions);
        const anyVariables = new Map<string, string>();
        for (let i = 0; next && i < args.length; i++) {
          const arg = args[i]!;
          if (arg.kind === "variable") {
            next = unifyOutput(planner, next, arg.name, copy.outputs[i]!, anyVariables);
          }
        }
        if (next) states.push(next);
      }
      return states;
    }
    case "recursive":
    case "member":
    case "self": {
      const alias = freshAlias(planner);
      const instance = plan.key;
      let next: State | null = addSources(state, [
        {
          alias,
          source: { kind: plan.kind === "self" ? "recref" : "reccall", instance, args: actual },
        },
      ]);
      for (let i = 0; next && i < args.length; i++) {
        const arg = args[i]!;
        const wanted = adornment[i]!;
        if (arg.kind !== "variable" || wanted.kind !== "free") continue;
        const type = wanted.constraint.exact!;
        next = bindVariable(planner.program, next, arg.name, column(alias, argColumn(i), type));
      }
      return next ? [next] : [];
    }
    default: {
      const _never: never = plan;
      return _never;
    }
  }
}

/**
 * Inside an instance of the same recursive component, an argument bound by another source's
 * column is passed free, and joined afterwards, where the instance itself is free (for the
 * same predicate: position by position; for another predicate of the component: when the
 * instance has any free argument). The recursion then keeps one adornment, becomes a self
 * reference and one CTE: accumulating answers when arguments are free, walking demanded
 * values when they are bound.
 */
function loosenToCaller(
  planner: Planner,
  state: State,
  name: string,
  args: readonly Resolved[],
): State[] | null {
  const frame = currentFrame(planner);
  if (!frame) return null;
  const callee = planner.componentOf.get(`${name}/${args.length}`);
  const caller = planner.componentOf.get(`${frame.name}/${frame.adornment.length}`);
  if (callee === undefined || callee !== caller) return null;
  const samePredicate = frame.name === name && frame.adornment.length === args.length;
  const anyFree = frame.adornment.some((wanted) => wanted.kind === "free");
  const loose = args.flatMap((arg, i) =>
    arg.kind === "term" &&
    arg.term.kind === "column" &&
    (samePredicate ? frame.adornment[i]!.kind === "free" : anyFree)
      ? [i]
      : [],
  );
  if (loose.length === 0) return null;
  let next: State | null = state;
  const replaced = args.map((arg, i): Resolved => {
    if (!loose.includes(i) || !next) return arg;
    const variable = freshVariable(planner);
    const term = (arg as { term: Term }).term;
    next = constrainVariable(planner.program, next, variable, exactType(termType(term)));
    return { kind: "variable", name: variable };
  });
  if (!next) return [];
  return planCall(planner, next, name, replaced).flatMap((after) => {
    let joined: State | null = after;
    for (const i of loose) {
      const variable = (replaced[i] as { name: string }).name;
      joined =
        joined && bindVariable(planner.program, joined, variable, (args[i] as { term: Term }).term);
    }
    return joined ? [joined] : [];
  });
}

function unifyOutput(
  planner: Planner,
  state: State,
  variable: string,
  output: Output,
  anyVariables: Map<string, string>,
): State | null {
  if (output.kind !== "any") return bindVariable(planner.program, state, variable, output);
  const shared = anyVariables.get(output.id);
  if (shared !== undefined) return unifyVariables(planner.program, state, variable, shared);
  anyVariables.set(output.id, variable);
  return constrainVariable(planner.program, state, variable, output.constraint);
}

/**
 * For a recursive predicate, the calls with one concrete type per free argument (null when
 * every free argument already has one).
 */
function splitFreeTypes(
  planner: Planner,
  state: State,
  name: string,
  args: readonly Resolved[],
  adornment: readonly Adornment[],
): State[] | null {
  const open = adornment.flatMap((wanted, i) =>
    wanted.kind === "free" && wanted.constraint.exact === null ? [i] : [],
  );
  if (open.length === 0) return null;
  const signature = planner.program.factSignatures.get(`${name}/${args.length}`);
  const choices = open.map((i) => {
    const constraint = (adornment[i] as Extract<Adornment, { kind: "free" }>).constraint;
    // Stored facts may hold any type here, also types the policy never names: the program's
    // types would not cover them.
    if (isUnconstrained(constraint) && signature && !signature.args[i])
      throw new TypeNeededError(i);
    return candidateTypes(planner.program, constraint);
  });
  const combinations = choices.reduce((n, types) => n * types.length, 1);
  if (combinations > MAX_TYPE_SPLITS) throw new TypeNeededError(open[0]!);
  const states: State[] = [];
  const visit = (k: number, current: State) => {
    if (k === open.length) {
      states.push(...planCall(planner, current, name, args));
      return;
    }
    const variable = (args[open[k]!] as { name: string }).name;
    for (const type of choices[k]!) {
      const next = constrainVariable(planner.program, current, variable, exactType(type));
      if (next) visit(k + 1, next);
    }
  };
  visit(0, state);
  return states;
}
