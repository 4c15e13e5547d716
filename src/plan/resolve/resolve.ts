/**
 * Print-time resolution: a cached plan plus this request's values becomes a concrete plan.
 * Conditions on params and builtins are decided where possible (the terms stay and print as
 * literals); central, context and param rows are handled in rows.ts; branches that cannot
 * hold disappear (also through empty recursive CTEs and `NOT EXISTS`).
 */
import type { Value } from "../../core/value.js";
import type { Problem } from "../../source/problems.js";
import { at, PlanError } from "../errors.js";
import {
  type Branch,
  type Condition,
  isSubquery,
  type Plan,
  type RecursiveCte,
  type Term,
  type ValuesSource,
} from "../ir.js";
import { knownRows } from "./known-ctes.js";
import { mergeValueBranches } from "./merge-branches.js";
import {
  factsFor,
  finishRowSources,
  type RowSource,
  rowSourceOf,
  withBindingFacts,
} from "./rows.js";
import { conditionTerms, type Runtime, staticValue } from "./runtime.js";
import { splitBindingRows } from "./split-rows.js";

export type { Runtime } from "./runtime.js";

export interface ResolvedPlan {
  /** Null where a CTE turned out empty (nothing reads it any more). */
  readonly ctes: readonly (RecursiveCte | null)[];
  readonly branches: readonly Branch[];
  /** The request's params and clock, which the remaining param and time terms print. */
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly now: bigint;
}

/**
 * Resolves a plan for one request.
 *
 *   resolvePlan(plan, { params: new Map([["actor", ["17"]]]), facts, now, renderable })
 */
export function resolvePlan(plan: Plan, runtime: Runtime): ResolvedPlan {
  try {
    return resolveWith(plan, runtime);
  } catch (error) {
    throw locatedRefusal(error, plan, runtime);
  }
}

type Unwritable = Extract<Problem, { kind: "unwritable-value" }>;

/** An output value its column cannot hold; `literal`: the output is a constant of the plan. */
class UnwritableOutput extends PlanError {
  constructor(
    readonly unwritable: Unwritable,
    readonly literal: boolean,
  ) {
    super(unwritable);
  }
}

/**
 * A value its column cannot hold, located where the policy writes it when the output is one
 * of the plan's constants; a value of the request has no place in the policy, even when the
 * policy writes the same value elsewhere.
 */
function locatedRefusal(error: unknown, plan: Plan, runtime: Runtime): unknown {
  if (!(error instanceof UnwritableOutput)) return error;
  const { type, id } = error.unwritable;
  const constant = error.literal
    ? plan.constants?.find((c) => c.value.type === type && c.value.id === id)
    : undefined;
  const sources = runtime.sources ?? [];
  return new PlanError(error.problem, constant ? at(constant.span, sources) : null);
}

function resolveWith(plan: Plan, runtime: Runtime): ResolvedPlan {
  const dead = new Set<number>();
  const known = new Map<number, ValuesSource>();
  const resolve = (branches: readonly Branch[]) =>
    resolveBranches(
      branches.map((branch) => withKnownCtes(branch, known)),
      runtime,
      dead,
    );
  const ctes = plan.ctes.map((cte, index): RecursiveCte | null => {
    const seeds = resolve(cte.seeds);
    if (seeds.length === 0) {
      dead.add(index);
      return null;
    }
    const resolved = { ...cte, seeds, steps: resolve(cte.steps) };
    // Over rows held here, the recursion is computed now: its rows replace it.
    const rows = knownRows(resolved, runtime);
    if (rows === null) return resolved;
    if (rows.length === 0) dead.add(index);
    else known.set(index, { kind: "values", columns: cte.columns, rows });
    return null;
  });
  return {
    ctes,
    branches: mergeValueBranches(resolve(plan.branches)),
    params: runtime.params,
    now: runtime.now,
  };
}

/** The branch reading computed CTEs as rows (also under `NOT EXISTS`). */
function withKnownCtes(branch: Branch, known: ReadonlyMap<number, ValuesSource>): Branch {
  if (known.size === 0) return branch;
  const sources = branch.sources.map((ref) => {
    const rows = ref.source.kind === "cte" ? known.get(ref.source.cte) : undefined;
    return rows ? { alias: ref.alias, source: rows } : ref;
  });
  const conditions = branch.conditions.map((condition) =>
    isSubquery(condition)
      ? { ...condition, branches: condition.branches.map((b) => withKnownCtes(b, known)) }
      : condition,
  );
  return { ...branch, sources, conditions };
}

function resolveBranches(
  branches: readonly Branch[],
  runtime: Runtime,
  dead: ReadonlySet<number>,
): Branch[] {
  const out: Branch[] = [];
  for (const branch of branches) {
    if (!mayHold(branch, runtime, dead)) continue;
    const resolved = resolveBranch(branch, runtime, dead);
    if (resolved) out.push(...splitBindingRows(resolved, runtime.bindings, runtime.unionSafe));
  }
  return out;
}

/**
 * A cheap first test before any copying: a branch reading an empty fact list, an empty
 * param list or an empty CTE cannot hold. Most branches of a plan read central facts that
 * a request does not have.
 */
function mayHold(branch: Branch, runtime: Runtime, dead: ReadonlySet<number>): boolean {
  for (const ref of branch.sources) {
    const source = ref.source;
    switch (source.kind) {
      case "facts":
        if (factsFor(branch, ref, runtime).length === 0) return false;
        break;
      case "param":
        if ((runtime.params.get(source.name) ?? []).length === 0) return false;
        break;
      case "cte":
        if (dead.has(source.cte)) return false;
        break;
      case "values":
        if (source.rows.length === 0) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

type Classified =
  | { kind: "static"; value: Value }
  | { kind: "row"; alias: string; index: number }
  | null;

function classify(
  term: Term,
  rowSources: ReadonlyMap<string, RowSource>,
  runtime: Runtime,
): Classified {
  const value = staticValue(term, runtime);
  if (value) return { kind: "static", value };
  if (term.kind === "column") {
    const source = rowSources.get(term.alias);
    if (!source) return null;
    return {
      kind: "row",
      alias: term.alias,
      index: source.columns.findIndex((c) => c.name === term.column),
    };
  }
  return null;
}

/** Whether a literal in this condition makes it impossible (or always true) in SQL. */
function unrenderableOutcome(condition: Condition, runtime: Runtime): boolean | null {
  if (condition.kind === "compare") {
    for (const term of [condition.left, condition.right]) {
      const value = staticValue(term, runtime);
      if (value && !runtime.renderable(value)) return condition.op === "!=";
    }
  }
  return null;
}

function resolveBranch(
  unresolved: Branch,
  runtime: Runtime,
  dead: ReadonlySet<number>,
): Branch | null {
  if (unresolved.sources.some((ref) => ref.source.kind === "cte" && dead.has(ref.source.cte))) {
    return null;
  }
  const branch = withBindingFacts(unresolved, runtime);
  const rowSources = new Map<string, RowSource>();
  for (const ref of branch.sources) {
    const rows = rowSourceOf(branch, ref, runtime);
    if (rows) rowSources.set(ref.alias, rows);
  }
  const conditions: Condition[] = [];
  for (const condition of branch.conditions) {
    if (isSubquery(condition)) {
      const inner = resolveBranches(condition.branches, runtime, dead);
      const always = inner.some((b) => b.sources.length === 0 && b.conditions.length === 0);
      if (condition.kind === "not_exists") {
        if (always) return null;
        if (inner.length > 0) conditions.push({ kind: "not_exists", branches: inner });
      } else {
        if (inner.length === 0) return null;
        if (!always) conditions.push({ kind: "exists", branches: inner });
      }
      continue;
    }
    const parts = conditionTerms(condition)!;
    const classified = parts.terms.map((term) => classify(term, rowSources, runtime));
    const rowAliases = new Set(classified.flatMap((c) => (c?.kind === "row" ? [c.alias] : [])));
    if (classified.every((c) => c !== null) && rowAliases.size <= 1) {
      const [alias] = [...rowAliases];
      const valuesOf = (row: readonly Value[] | null) =>
        classified.map((c) => (c!.kind === "static" ? c!.value : row![c!.index]!));
      if (alias === undefined) {
        if (!parts.test(valuesOf(null))) return null;
      } else {
        const source = rowSources.get(alias)!;
        source.rows = source.rows.filter((row) => parts.test(valuesOf(row)));
        if (source.rows.length === 0) return null;
      }
      continue;
    }
    const outcome = unrenderableOutcome(condition, runtime);
    if (outcome === false) return null;
    if (outcome === true) continue;
    conditions.push(
      condition.kind === "in"
        ? {
            ...condition,
            values: condition.values.filter((v) => {
              const value = staticValue(v, runtime);
              return !value || runtime.renderable(value);
            }),
          }
        : condition,
    );
    const last = conditions[conditions.length - 1]!;
    if (last.kind === "in" && last.values.length === 0) return null;
  }
  for (const output of branch.outputs) {
    const value = output.kind === "any" ? null : staticValue(output, runtime);
    if (value && !runtime.renderable(value)) {
      if (!runtime.strictOutputs) return null;
      const problem: Unwritable = {
        code: "P703",
        kind: "unwritable-value",
        type: value.type,
        id: value.id,
      };
      throw new UnwritableOutput(problem, output.kind === "literal");
    }
  }
  return finishRowSources({ ...branch, conditions }, rowSources, runtime);
}
