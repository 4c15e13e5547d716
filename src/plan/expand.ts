/**
 * Expanding recursive calls into `WITH RECURSIVE` CTEs once the question is planned, seeded
 * from the bound side (magic sets; docs/local-authorization.md#recursion):
 *
 * - walk (demand): the recursion changes bound arguments and passes the free ones through
 *   (`role if role on "parent"` asked for a given folder). The CTE holds the demanded
 *   argument values, seeded with the question's values (or with the rows of the rest of the
 *   branch when those are selective); exits are joined on it.
 * - accumulate: the bound arguments stay the same and the recursion computes the free ones
 *   (the same rule asked for all folders of an actor). The CTE holds the answers, seeded by
 *   the exits.
 * - otherwise the instance is planned with every argument free and joined afterwards.
 *
 * Bound arguments that come from another source's column are seeded from that source when
 * the branch constrains it by a question value; otherwise they are treated as free. The CTE
 * builders live in cte.ts, the reuse of equivalent recursions in reuse.ts. A call of a member
 * of a merged component is expanded in the same forms over the merged arguments
 * (component.ts).
 */
import { checkPlanClock } from "../core/budget.js";
import { callMerged, mergedPlan } from "./component.js";
import {
  type Adornment,
  type Component,
  freshAlias,
  type InstancePlan,
  type Planner,
  ruleOrigin,
  universalRuleOrigin,
} from "./context.js";
import { accumulate, walk } from "./cte.js";
import { at, PlanError } from "./errors.js";
import {
  type Expansion,
  passesThrough,
  positionsOf,
  type RecursivePlan,
  varyingPositions,
  withoutSource,
} from "./expansion.js";
import { planInstance } from "./instance.js";
import {
  argColumn,
  type Branch,
  type Condition,
  column,
  isSubquery,
  type Output,
  type RecursiveCallSource,
  type SourceRef,
  type Term,
  termType,
} from "./ir.js";
import { reuseWalk } from "./reuse.js";
import { instantiate, mapBranch, mentions } from "./rewrite.js";
import { exactType } from "./types.js";

/** An expansion with no CTE built yet, for one plan. */
export function newExpansion(planner: Planner): Expansion {
  return {
    planner,
    expandBranches,
    inlineExits,
    ctes: [],
    cteIndex: new Map(),
    selectiveCtes: new Set(),
    building: [],
    walks: new Map(),
  };
}

const MAX_NESTED_CTES = 64;

/** Every branch with its `reccall` sources (also inside `[not_]exists`) replaced by CTE reads. */
export function expandBranches(expansion: Expansion, branches: readonly Branch[]): Branch[] {
  return branches.flatMap((branch) => expandBranch(expansion, branch));
}

function expandBranch(expansion: Expansion, branch: Branch): Branch[] {
  checkPlanClock();
  const conditions = branch.conditions.map((condition) =>
    isSubquery(condition)
      ? { ...condition, branches: expandBranches(expansion, condition.branches) }
      : condition,
  );
  const current: Branch = { ...branch, conditions };
  const index = current.sources.findIndex((ref) => ref.source.kind === "reccall");
  if (index < 0) return [current];
  return expandCall(expansion, current, index).flatMap((next) => expandBranch(expansion, next));
}

export interface Prefix {
  readonly sources: readonly SourceRef[];
  readonly conditions: readonly Condition[];
  readonly aliases: ReadonlySet<string>;
  /** Some source is constrained by a question value: seeding from it is cheap. */
  readonly selective: boolean;
}

/** The rest of the branch that a CTE can copy as its seed (no recursion, no correlation). */
function prefixOf(expansion: Expansion, branch: Branch, skip: number): Prefix {
  const sources = branch.sources.filter(
    (ref, i) =>
      i !== skip &&
      (ref.source.kind === "binding" ||
        ref.source.kind === "facts" ||
        ref.source.kind === "param" ||
        ref.source.kind === "cte"),
  );
  const aliases = new Set(sources.map((ref) => ref.alias));
  const inside = (term: Term) =>
    term.kind === "column"
      ? aliases.has(term.alias)
      : term.kind !== "outer" && term.kind !== "input";
  const conditions = branch.conditions.filter((condition) => {
    switch (condition.kind) {
      case "compare":
        return inside(condition.left) && inside(condition.right);
      case "in":
        return inside(condition.term) && condition.values.every(inside);
      case "not_exists":
      case "exists":
        return false;
      default: {
        const _never: never = condition;
        return _never;
      }
    }
  });
  const isQuestionValue = (term: Term) => term.kind === "param";
  const hasParamSource = sources.some(
    (ref) =>
      ref.source.kind === "param" ||
      (ref.source.kind === "cte" && expansion.selectiveCtes.has(ref.source.cte)),
  );
  const selective =
    hasParamSource ||
    conditions.some((condition) =>
      condition.kind === "compare"
        ? condition.op === "=" &&
          (isQuestionValue(condition.left) || isQuestionValue(condition.right))
        : condition.kind === "in" && condition.values.some(isQuestionValue),
    );
  return { sources, conditions, aliases, selective };
}

/** The memoized plan of the recursive instance or component member a `reccall` names. */
function calledPlan(
  expansion: Expansion,
  key: string,
): Extract<InstancePlan, { kind: "recursive" | "member" }> {
  const plan = expansion.planner.memo.get(key);
  if (!plan || plan instanceof PlanError || (plan.kind !== "recursive" && plan.kind !== "member")) {
    throw new Error(`internal: instance ${key} is not a planned recursive instance`);
  }
  return plan;
}

function expandCall(expansion: Expansion, branch: Branch, index: number): Branch[] {
  const call = branch.sources[index]!.source as RecursiveCallSource;
  const plan = calledPlan(expansion, call.instance);
  switch (plan.kind) {
    case "recursive":
      return expandAs(expansion, branch, index, plan, (positions) =>
        replan(expansion, branch, index, plan, positions),
      );
    case "member":
      return expandMember(expansion, branch, index, plan.component);
    default: {
      const _never: never = plan;
      return _never;
    }
  }
}

/**
 * A call of a member of a merged component: the demand form when every step passes the free
 * arguments through, else the answers form. Replanning frees the member's own arguments.
 */
function expandMember(
  expansion: Expansion,
  branch: Branch,
  index: number,
  component: Component,
): Branch[] {
  const call = branch.sources[index]!.source as RecursiveCallSource;
  const member = component.members.find((m) => m.key === call.instance)!;
  const demand = mergedPlan(component, "demand");
  const walks = demand.plan.steps.every((step) => passesThrough(demand.plan, step));
  const merged = walks ? demand : mergedPlan(component, "answers");
  const own = merged.positions.get(member.key)!;
  return expandAs(expansion, callMerged(merged, branch, index), index, merged.plan, (positions) => {
    const freed = own.flatMap((m, i) => (m !== null && positions.includes(m) ? [i] : []));
    if (freed.length === 0) {
      const origin = ruleOrigin(expansion.planner, member.name, member.adornment.length);
      throw new PlanError(
        { code: "P703", kind: "recursion-arguments", predicate: member.name, mutual: true },
        at(origin.span, expansion.planner.program.sources),
      );
    }
    return replan(expansion, branch, index, member, freed);
  });
}

/**
 * The branch with the recursive call at `index` expanded into a CTE read (walk or
 * accumulate), or into the exits (nothing varies), or replanned with `replanAt` positions
 * free.
 */
function expandAs(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  replanAt: (positions: readonly number[]) => Branch[],
): Branch[] {
  const call = branch.sources[index]!.source as RecursiveCallSource;
  if (expansion.building.length > MAX_NESTED_CTES || expansion.building.includes(plan.key)) {
    const origin = ruleOrigin(expansion.planner, plan.name, plan.adornment.length);
    throw new PlanError(
      { code: "P703", kind: "recursion-arguments", predicate: plan.name, mutual: false },
      at(origin.span, expansion.planner.program.sources),
    );
  }
  const bound = positionsOf(plan, "bound");
  const reused = reuseWalk(expansion, branch, index, plan, bound);
  if (reused) return reused;
  const prefix = prefixOf(expansion, branch, index);
  const dynamic = bound.filter(
    (i) => call.args[i]!.kind === "column" || call.args[i]!.kind === "outer",
  );
  const seedable = dynamic.every((i) => {
    const arg = call.args[i]!;
    return arg.kind === "column" && prefix.aliases.has(arg.alias);
  });
  if (dynamic.length > 0 && !(prefix.selective && seedable)) return replanAt(dynamic);
  const varying = varyingPositions(plan, bound);
  const passThrough = plan.steps.every((step) => passesThrough(plan, step));
  if (varying.length === 0) {
    return passThrough
      ? inlineExits(expansion, branch, index, plan, [], null)
      : [accumulate(expansion, branch, index, plan, dynamic, prefix)];
  }
  if (passThrough) return walk(expansion, branch, index, plan, dynamic, varying, prefix);
  return replanAt(bound);
}

// ---------------------------------------------------------------- replanning

/**
 * Plans the called instance again with its bound `positions` free and joins them to the
 * caller's terms.
 */
function replan(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: { readonly name: string; readonly adornment: readonly Adornment[] },
  positions: readonly number[],
): Branch[] {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const adornment: Adornment[] = plan.adornment.map((wanted, i) =>
    positions.includes(i) && wanted.kind === "bound"
      ? { kind: "free", constraint: exactType(wanted.type) }
      : wanted,
  );
  const args = call.args.map((arg, i) => (positions.includes(i) ? null : arg));
  const joins = positions.map(
    (i): Condition => ({
      kind: "compare",
      op: "=",
      left: column(ref.alias, argColumn(i), termType(call.args[i]!)),
      right: call.args[i]!,
    }),
  );
  const replanned = planInstance(expansion.planner, plan.name, adornment);
  const rest = withoutSource(branch, index);
  switch (replanned.kind) {
    case "recursive":
    case "member":
      return [
        {
          ...rest,
          sources: [
            ...rest.sources,
            { alias: ref.alias, source: { kind: "reccall", instance: replanned.key, args } },
          ],
          conditions: [...rest.conditions, ...joins],
        },
      ];
    case "flat":
      return replanned.branches.flatMap((template) => {
        const copy = instantiate(template, () => freshAlias(expansion.planner), args);
        const joined: Branch = {
          sources: [...rest.sources, ...copy.sources],
          conditions: [...rest.conditions, ...copy.conditions, ...joins],
          outputs: rest.outputs,
        };
        return [substituteOutputs(expansion, joined, ref.alias, copy.outputs, plan)];
      });
    case "self":
      throw new Error("internal: replanning reached an instance on the stack");
    default: {
      const _never: never = replanned;
      return _never;
    }
  }
}

/**
 * Replaces the columns of a removed source by the outputs that now supply them. An output
 * that holds for every value ("any") may only reach the branch's outputs.
 */
function substituteOutputs(
  expansion: Expansion,
  branch: Branch,
  alias: string,
  outputs: readonly Output[],
  plan: { readonly name: string; readonly adornment: readonly Adornment[] },
): Branch {
  const positionOf = (columnName: string) => Number(columnName.slice("arg".length));
  const readsAny = mentions(
    branch,
    (term) => term.alias === alias && outputs[positionOf(term.column)]?.kind === "any",
    false,
  );
  if (readsAny) {
    const origin = universalRuleOrigin(expansion.planner, plan.name, plan.adornment.length);
    throw new PlanError(
      { code: "P703", kind: "call-reads-any", predicate: plan.name },
      at(origin.span, expansion.planner.program.sources),
    );
  }
  const replaced = mapBranch(
    { ...branch, outputs: [] },
    {
      alias: (a) => a,
      term: (term) =>
        term.kind === "column" && term.alias === alias
          ? (outputs[positionOf(term.column)] as Term)
          : term,
    },
  );
  const finalOutputs = branch.outputs.map((output) =>
    output.kind === "column" && output.alias === alias
      ? outputs[positionOf(output.column)]!
      : output,
  );
  return { ...replaced, outputs: finalOutputs };
}

/** The caller's branch once per exit, the exit's outputs replacing the call's columns. */
export function inlineExits(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  extraSources: readonly SourceRef[],
  demand: { inputs: readonly (Term | null)[]; joins: readonly Condition[] } | null,
): Branch[] {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const rest = withoutSource(branch, index);
  return plan.exits.flatMap((exit) => {
    const copy = instantiate(
      exit,
      () => freshAlias(expansion.planner),
      demand?.inputs ?? call.args,
    );
    const joined: Branch = {
      sources: [...rest.sources, ...extraSources, ...copy.sources],
      conditions: [...rest.conditions, ...(demand?.joins ?? []), ...copy.conditions],
      outputs: rest.outputs,
    };
    return [substituteOutputs(expansion, joined, ref.alias, copy.outputs, plan)];
  });
}
