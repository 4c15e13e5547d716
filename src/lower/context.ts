/**
 * What lowering one statement knows: the resolved plan, the bindings it reads, the statement's
 * shape, the dialect's rules, and the names it gives CTEs and aliases. Generated names never
 * capture the caller's SQL: a CTE prefix that some binding query mentions is skipped, and in a
 * filter whose column text mentions an alias, every alias gets the prefix too.
 */
import type { DataBindings } from "../bindings/types.js";
import { type Branch, isSubquery, type PlanOutput } from "../plan/ir.js";
import type { ResolvedPlan } from "../plan/resolve/resolve.js";
import type { SourceFile } from "../source/source.js";
import type { LoweringRules } from "./rules.js";

/** What the statement returns. */
export type Shape =
  /** One row, one boolean column (`allowed` for authorize_query, `result` for select mode). */
  | { readonly kind: "exists"; readonly column: "allowed" | "result" }
  /** One row per distinct value of the single output, column `actions`. */
  | { readonly kind: "actions" }
  /** `<column> IN (…)` over the single output; `column` is the caller's SQL. */
  | { readonly kind: "filter"; readonly column: string }
  /** Distinct rows, one named column per output. */
  | { readonly kind: "select"; readonly names: readonly string[] }
  /**
   * A page of the single output as text (`*` for a wildcard), column `id`: distinct, in code
   * point order, after the value of param `after`, at most param `limit` rows.
   */
  | { readonly kind: "page"; readonly after: string; readonly limit: string };

export interface Lowering {
  readonly bindings: DataBindings;
  readonly plan: ResolvedPlan;
  readonly outputs: readonly PlanOutput[];
  readonly shape: Shape;
  readonly rules: LoweringRules;
  /** Binding CTE names by binding index, recursive CTE names by plan index. */
  readonly bindingNames: ReadonlyMap<number, string>;
  readonly cteNames: ReadonlyMap<number, string>;
  readonly aliasPrefix: string;
  /** The prefix of generated CTE and derived table names (`polar_`, or `polar1_` …). */
  readonly namePrefix: string;
  /** The policy's files, which the plan's rule spans point into (for refusals). */
  readonly sources: readonly SourceFile[];
}

export function createLowering(
  plan: ResolvedPlan,
  outputs: readonly PlanOutput[],
  bindings: DataBindings,
  shape: Shape,
  rules: LoweringRules,
  sources: readonly SourceFile[],
): Lowering {
  const used = usedBindings(plan);
  const texts = callerTexts(bindings);
  let prefix = "polar_";
  for (let n = 1; texts.includes(prefix); n++) prefix = `polar${n}_`;
  const bindingNames = new Map(used.map((index, n) => [index, `${prefix}c${n}`]));
  const cteNames = new Map<number, string>();
  plan.ctes.forEach((cte, index) => {
    if (cte) cteNames.set(index, `${prefix}r${cteNames.size}`);
  });
  const clash =
    shape.kind === "filter" &&
    [...identifierTokens(shape.column)].some((t) => /^(f\d+|q\d+|rec|step|a)$/.test(t));
  return {
    bindings,
    plan,
    outputs,
    shape,
    rules,
    bindingNames,
    cteNames,
    aliasPrefix: clash ? prefix : "",
    namePrefix: prefix,
    sources,
  };
}

/**
 * A lowering of some of the plan's branches on their own (a part of a filter), keeping only
 * the recursive CTEs they read, so that its WITH clause holds nothing else.
 */
export function narrowLowering(
  lowering: Lowering,
  branches: readonly Branch[],
  outputs: readonly PlanOutput[] = lowering.outputs,
): Lowering {
  const read = ctesRead(lowering.plan, branches);
  const ctes = lowering.plan.ctes.map((cte, index) => (read.has(index) ? cte : null));
  const plan = { ...lowering.plan, ctes, branches };
  const { bindings, shape, rules, sources } = lowering;
  const narrow = createLowering(plan, outputs, bindings, shape, rules, sources);
  // The statement's names for its CTEs, which refusals map back to rules (src/lower/lower.ts).
  const cteNames = new Map([...read].map((index) => [index, lowering.cteNames.get(index)!]));
  return { ...narrow, cteNames };
}

/** Indexes of the recursive CTEs the branches read, directly or through other CTEs. */
function ctesRead(plan: ResolvedPlan, branches: readonly Branch[]): Set<number> {
  const read = new Set<number>();
  const visit = (branch: Branch) => {
    for (const ref of branch.sources) {
      if (ref.source.kind !== "cte" || read.has(ref.source.cte)) continue;
      read.add(ref.source.cte);
      const cte = plan.ctes[ref.source.cte];
      if (cte) [...cte.seeds, ...cte.steps].forEach(visit);
    }
    for (const condition of branch.conditions) {
      if (isSubquery(condition)) condition.branches.forEach(visit);
    }
  };
  branches.forEach(visit);
  return read;
}

/** The name of a source alias of the plan in this statement. */
export function aliasName(lowering: Lowering, alias: string): string {
  return `${lowering.aliasPrefix}${alias}`;
}

/** Bindings the plan reads, in order of first use. */
function usedBindings(plan: ResolvedPlan): number[] {
  const used: number[] = [];
  const visit = (branch: Branch) => {
    for (const ref of branch.sources) {
      if (ref.source.kind === "binding" && !used.includes(ref.source.binding)) {
        used.push(ref.source.binding);
      }
    }
    for (const condition of branch.conditions) {
      if (isSubquery(condition)) condition.branches.forEach(visit);
    }
  };
  for (const cte of plan.ctes) if (cte) [...cte.seeds, ...cte.steps].forEach(visit);
  plan.branches.forEach(visit);
  return used;
}

function identifierTokens(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9_$]+/)
      .filter(Boolean),
  );
}

/** Every binding's SQL text, lowercased (generated names must not occur in it). */
function callerTexts(bindings: DataBindings): string {
  let text = lowercased.get(bindings);
  if (text === undefined) {
    text = bindings.bindings
      .flatMap((b) =>
        b.merged ? [b.scan!.table, ...b.scan!.items, ...b.scan!.conditions] : [b.query],
      )
      .join("\n")
      .toLowerCase();
    lowercased.set(bindings, text);
  }
  return text;
}

const lowercased = new WeakMap<DataBindings, string>();

/** The `sql_types` entry of a Polar type, if the bindings name one. */
export function sqlTypeOf(lowering: Lowering, type: string): string | undefined {
  return lowering.bindings.sqlTypes.get(type);
}
