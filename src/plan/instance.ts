/**
 * Planning a predicate instance: the union of every source that can supply the call — data
 * bindings whose signature fits, central/context facts of fitting types, and the clauses
 * whose heads can match — memoized per (predicate, adornment). Recursion is found with
 * Tarjan's algorithm over instances; the root of a recursive component becomes a recursive
 * instance (exits and steps), expanded into a CTE once the question is planned. Members
 * below the root are inlined into it; when some of them call themselves, the component is
 * merged into one recursion (component.ts).
 */
import type { Binding } from "../bindings/types.js";
import { canonicalValue } from "../check/facts.js";
import { isSubtype, type PredicateKey, type Program, predicateKey } from "../check/program.js";
import { spendPlanStep } from "../core/budget.js";
import { valuesEqual } from "../core/value.js";
import { componentMembers, mergeComponent } from "./component.js";
import {
  type Adornment,
  frameOf,
  freshAlias,
  type InstancePlan,
  instanceKey,
  lowerCurrent,
  type Planner,
  pushFrame,
} from "./context.js";
import { at, PlanError, TypeNeededError } from "./errors.js";
import { inputTerm, matchHead, resolveHeadOutput } from "./head.js";
import {
  argColumn,
  type BindingSource,
  type Branch,
  type Condition,
  column,
  type FactsSource,
  literal,
  type Output,
} from "./ir.js";
import { simplifyBranches } from "./merge.js";
import { nonLinearSite } from "./nonlinear.js";
import { outputOf } from "./state.js";
import { ANY_TYPE, candidateTypes, isUnconstrained, satisfies } from "./types.js";

/** More fact-type combinations than this for one call means the policy needs `matches`. */
const MAX_FACT_TYPE_COMBINATIONS = 256;

/**
 * The plan of `name` called with `adornment` (one entry per argument).
 *
 *   planInstance(planner, "has_role", [bound("User"), literal("viewer"), bound("Org")])
 */
export function planInstance(
  planner: Planner,
  name: string,
  adornment: readonly Adornment[],
): InstancePlan {
  const key = instanceKey(name, adornment);
  const known = planner.memo.get(key);
  if (known instanceof PlanError) throw known;
  if (known) return known;
  const onStack = frameOf(planner, key);
  if (onStack) {
    lowerCurrent(planner, onStack.index);
    return { kind: "self", key };
  }
  spendPlanStep();
  const frame = pushFrame(planner, key, name, adornment);
  let branches: Branch[];
  try {
    branches = simplifyBranches(
      [
        ...withFacts(
          planner,
          bindingBranches(planner, name, adornment),
          factBranches(planner, name, adornment),
          adornment,
        ),
        ...clauseBranches(planner, name, adornment),
      ],
      "c",
    );
  } catch (error) {
    planner.stack.pop();
    lowerCurrent(planner, frame.lowlink);
    if (frame.lowlink === frame.index && error instanceof PlanError) planner.memo.set(key, error);
    throw error;
  }
  planner.stack.pop();
  if (frame.lowlink !== frame.index) {
    // A member of a recursive component below its root: provisional, inlined into the root.
    lowerCurrent(planner, frame.lowlink);
    planner.provisional.set(key, branches);
    return { kind: "flat", branches };
  }
  const members = componentMembers(planner, { key, name, adornment, branches });
  if (members.length > 1) return mergeComponent(planner, members);
  const plan = finishInstance(
    planner.program,
    componentPredicates(planner, name, adornment.length),
    key,
    name,
    adornment,
    branches,
  );
  planner.memo.set(key, plan);
  return plan;
}

function finishInstance(
  program: Program,
  members: ReadonlySet<PredicateKey>,
  key: string,
  name: string,
  adornment: readonly Adornment[],
  branches: readonly Branch[],
): InstancePlan {
  const exits: Branch[] = [];
  const steps: Branch[] = [];
  for (const branch of branches) {
    const references = branch.sources.filter((ref) => ref.source.kind === "recref");
    if (references.length === 0) {
      exits.push(branch);
      continue;
    }
    if (references.length > 1) {
      const site = nonLinearSite(program, [predicateKey(name, adornment.length)], members);
      throw new PlanError(
        { code: "P703", kind: "nonlinear", predicate: name },
        at(site?.call.span, program.sources),
      );
    }
    steps.push(branch);
  }
  if (steps.length === 0) return { kind: "flat", branches: exits };
  return { kind: "recursive", key, name, adornment, exits, steps };
}

/** The predicates of the recursive component of `name/arity` (itself when not recursive). */
function componentPredicates(
  planner: Planner,
  name: string,
  arity: number,
): ReadonlySet<PredicateKey> {
  const component = planner.componentOf.get(predicateKey(name, arity));
  if (component === undefined) return new Set([predicateKey(name, arity)]);
  const members = new Set<PredicateKey>();
  for (const [key, index] of planner.componentOf) if (index === component) members.add(key);
  return members;
}

// ---------------------------------------------------------------- data bindings

function bindingBranch(
  planner: Planner,
  binding: Binding,
  index: number,
  adornment: readonly Adornment[],
): Branch | null {
  const alias = freshAlias(planner);
  const conditions: Condition[] = [];
  const outputs: Output[] = [];
  for (let position = 0; position < binding.slots.length; position++) {
    const slot = binding.slots[position]!;
    const wanted = adornment[position]!;
    const input = inputTerm(wanted, position);
    if (slot.kind === "constant") {
      const value = canonicalValue({ type: slot.type, id: slot.value });
      if (wanted.kind === "literal" && !valuesEqual(wanted.value, value)) return null;
      if (wanted.kind === "bound") {
        if (wanted.type !== value.type) return null;
        conditions.push({ kind: "compare", op: "=", left: input!, right: literal(value) });
      }
      if (wanted.kind === "free" && !satisfies(planner.program, value.type, wanted.constraint)) {
        return null;
      }
      outputs.push(input ?? literal(value));
      continue;
    }
    const term = column(alias, argColumn(position), slot.type);
    if (wanted.kind === "free") {
      if (!satisfies(planner.program, slot.type, wanted.constraint)) return null;
      outputs.push(term);
      continue;
    }
    const inputType = wanted.kind === "literal" ? wanted.value.type : wanted.type;
    if (inputType !== slot.type) return null;
    conditions.push({ kind: "compare", op: "=", left: term, right: input! });
    outputs.push(input!);
  }
  return { sources: [{ alias, source: { kind: "binding", binding: index } }], conditions, outputs };
}

function bindingBranches(
  planner: Planner,
  name: string,
  adornment: readonly Adornment[],
): Branch[] {
  const indexes = planner.bindingsByPredicate.get(`${name}/${adornment.length}`) ?? [];
  const branches: Branch[] = [];
  for (const index of indexes) {
    const branch = bindingBranch(planner, planner.bindings.bindings[index]!, index, adornment);
    if (branch) branches.push(branch);
  }
  return branches;
}

/**
 * Folds each fact branch into a binding branch that reads the same relation (same argument
 * types; the binding's constants are literals of the call), so that the two do not double
 * the branches of every caller. Fact branches without such a binding stay.
 */
function withFacts(
  planner: Planner,
  bindingBranches: readonly Branch[],
  factBranches: readonly Branch[],
  adornment: readonly Adornment[],
): Branch[] {
  const merged = [...bindingBranches];
  const rest: Branch[] = [];
  for (const facts of factBranches) {
    const source = facts.sources[0]!.source as FactsSource;
    const index = merged.findIndex((branch) => {
      const ref = branch.sources[0]!;
      if (ref.source.kind !== "binding" || ref.source.facts) return false;
      const binding = planner.bindings.bindings[ref.source.binding]!;
      return binding.slots.every((slot, i) => {
        const type = source.types[i];
        if (type === null || type === undefined || type !== slot.type) return false;
        if (slot.kind === "column") return true;
        const wanted = adornment[i]!;
        return (
          wanted.kind === "literal" &&
          wanted.value.id === canonicalValue({ type, id: slot.value }).id
        );
      });
    });
    if (index < 0) {
      rest.push(facts);
      continue;
    }
    const branch = merged[index]!;
    const ref = branch.sources[0]!;
    const types = source.types as readonly string[];
    merged[index] = {
      ...branch,
      sources: [
        {
          alias: ref.alias,
          source: {
            ...(ref.source as BindingSource),
            facts: { predicate: source.predicates[0]!, types },
          },
        },
      ],
    };
  }
  return [...merged, ...rest];
}

// ---------------------------------------------------------------- central and context facts

function factBranches(planner: Planner, name: string, adornment: readonly Adornment[]): Branch[] {
  const { program } = planner;
  const signature = program.factSignatures.get(predicateKey(name, adornment.length));
  if (!signature) return [];
  const accepts = (position: number, type: string) => {
    const allowed = signature.args[position];
    return !allowed || allowed.some((sup) => isSubtype(program, type, sup));
  };
  const choices = adornment.map((wanted, position): (string | null)[] => {
    if (wanted.kind === "free" && wanted.unused) return [null];
    if (wanted.kind === "free" && isUnconstrained(wanted.constraint) && !signature.args[position]) {
      // Central facts may hold values of any type here, also types the policy never names.
      throw new TypeNeededError(position);
    }
    const types =
      wanted.kind === "literal"
        ? [wanted.value.type]
        : wanted.kind === "bound"
          ? [wanted.type]
          : candidateTypes(program, wanted.constraint);
    return types.filter((type) => accepts(position, type));
  });
  const combinations = choices.reduce((count, types) => count * types.length, 1);
  if (combinations === 0) return [];
  if (combinations > MAX_FACT_TYPE_COMBINATIONS) {
    throw new PlanError({
      code: "P702",
      kind: "type-combinations",
      predicate: name,
      combinations,
    });
  }
  const branches: Branch[] = [];
  const tuple: (string | null)[] = [];
  const visit = (position: number) => {
    if (position === adornment.length) {
      branches.push(factBranch(planner, name, adornment, tuple));
      return;
    }
    for (const type of choices[position]!) {
      tuple[position] = type;
      visit(position + 1);
    }
  };
  visit(0);
  return branches;
}

function factBranch(
  planner: Planner,
  name: string,
  adornment: readonly Adornment[],
  types: readonly (string | null)[],
): Branch {
  const alias = freshAlias(planner);
  const conditions: Condition[] = [];
  const outputs: Output[] = [];
  adornment.forEach((wanted, position) => {
    const type = types[position];
    if (type === null || type === undefined) {
      outputs.push({ kind: "any", id: `${alias}.${position}`, constraint: ANY_TYPE });
      return;
    }
    const term = column(alias, argColumn(position), type);
    const input = inputTerm(wanted, position);
    if (input) conditions.push({ kind: "compare", op: "=", left: term, right: input });
    outputs.push(input ?? term);
  });
  return {
    sources: [{ alias, source: { kind: "facts", predicates: [name], types: [...types] } }],
    conditions,
    outputs,
  };
}

// ---------------------------------------------------------------- clauses

function clauseBranches(planner: Planner, name: string, adornment: readonly Adornment[]): Branch[] {
  const clauses = planner.program.rules.get(predicateKey(name, adornment.length)) ?? [];
  const branches: Branch[] = [];
  for (const clause of clauses) {
    const match = matchHead(planner, clause, adornment);
    if (!match) continue;
    const states = clause.body
      ? planner.planBody(planner, clause, match.state, clause.body)
      : [match.state];
    for (const state of states) {
      branches.push({
        sources: state.sources,
        conditions: state.conditions,
        outputs: match.outputs.map((output) =>
          resolveHeadOutput(output, (variable) => outputOf(state, variable)),
        ),
      });
    }
  }
  return branches;
}
