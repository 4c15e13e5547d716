/**
 * The state of one plan's recursion expansion and the small helpers that expand.ts, cte.ts and
 * reuse.ts share. Building a CTE expands the branches of its step, which may hold further
 * recursive calls: that mutual recursion goes through the functions the expansion carries,
 * so the three files import each other's types only.
 */
import type { Adornment, InstancePlan, Planner } from "./context.js";
import {
  argColumn,
  type Branch,
  type Condition,
  type CteColumn,
  type RecursiveCallSource,
  type RecursiveCte,
  type SourceRef,
  type Term,
} from "./ir.js";
import { mentionsAlias } from "./rewrite.js";

export type RecursivePlan = Extract<InstancePlan, { kind: "recursive" }>;

export interface Expansion {
  readonly planner: Planner;
  /**
   * expand.ts's functions, which building a CTE calls back for the branches of its step
   * (they may hold further recursive calls): passed here rather than imported.
   */
  readonly expandBranches: (expansion: Expansion, branches: readonly Branch[]) => Branch[];
  readonly inlineExits: (
    expansion: Expansion,
    branch: Branch,
    index: number,
    plan: RecursivePlan,
    extraSources: readonly SourceRef[],
    demand: { inputs: readonly (Term | null)[]; joins: readonly Condition[] } | null,
  ) => Branch[];
  readonly ctes: RecursiveCte[];
  readonly cteIndex: Map<string, number>;
  /** Walk CTEs: seeded by question values, so they hold few rows. */
  readonly selectiveCtes: Set<number>;
  /** Recursive instances whose CTE is being built (a guard against endless expansion). */
  readonly building: string[];
  /** Walk CTEs by index: their varying positions and step relation (see `walkSignature`). */
  readonly walks: Map<number, { readonly varying: readonly number[]; readonly signature: string }>;
}

/** The argument positions of the instance with this adornment kind. */
export function positionsOf(plan: RecursivePlan, kind: Adornment["kind"]): number[] {
  return plan.adornment.flatMap((wanted, i) => (wanted.kind === kind ? [i] : []));
}

/** The step's reference to its own instance. */
export function recref(step: Branch, key: string): SourceRef & { source: RecursiveCallSource } {
  const ref = step.sources.find((s) => s.source.kind === "recref" && s.source.instance === key);
  return ref as SourceRef & { source: RecursiveCallSource };
}

/** The branch without its source at `index`. */
export function withoutSource(branch: Branch, index: number): Branch {
  return { ...branch, sources: branch.sources.filter((_, i) => i !== index) };
}

/** The CTE columns of the instance's free arguments. */
export function freeColumns(plan: RecursivePlan): CteColumn[] {
  return positionsOf(plan, "free").map((i) => {
    const wanted = plan.adornment[i] as Extract<Adornment, { kind: "free" }>;
    return { name: argColumn(i), type: wanted.constraint.exact! };
  });
}

/** Bound positions whose value some step changes (the others are invariant). */
export function varyingPositions(plan: RecursivePlan, bound: readonly number[]): number[] {
  return bound.filter((i) =>
    plan.steps.some((step) => {
      const arg = recref(step, plan.key).source.args[i];
      return !(arg?.kind === "input" && arg.index === i);
    }),
  );
}

/** Each free argument of the step is the recursive call's own, and nothing else reads it. */
export function passesThrough(plan: RecursivePlan, step: Branch): boolean {
  const self = recref(step, plan.key);
  const others: Branch = { ...step, sources: step.sources.filter((s) => s !== self) };
  if (mentionsAlias(others, self.alias, false)) return false;
  return positionsOf(plan, "free").every((i) => {
    const output = step.outputs[i]!;
    return (
      output.kind === "column" && output.alias === self.alias && output.column === argColumn(i)
    );
  });
}
