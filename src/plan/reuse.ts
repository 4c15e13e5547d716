/**
 * Recursions that need no CTE of their own: a walk or an accumulation with the same step
 * relation as one already built (`role if role on "parent"` asked for "viewer", "editor" and
 * "owner" in turn) reuses it, so a role hierarchy over a tree costs one walk.
 */

import { freshAlias } from "./context.js";
import { PlanError } from "./errors.js";
import {
  type Expansion,
  freeColumns,
  passesThrough,
  positionsOf,
  type RecursivePlan,
  recref,
  varyingPositions,
  withoutSource,
} from "./expansion.js";
import {
  argColumn,
  type Branch,
  column,
  type RecursiveCallSource,
  type Term,
  termType,
} from "./ir.js";
import { canonicalAliases } from "./merge.js";
import { instantiate, mentions, replaceColumns } from "./rewrite.js";

const SIGNATURE_SELF = "%self";

/**
 * The step relation of a walk over `plan`: what each step reads and which values it leads
 * to, with the recursive reference itself left out. Two instances with the same signature
 * (`role if role on "parent"` asked for "reader" and for "writer") walk the same way.
 */
function walkSignature(
  plan: RecursivePlan,
  stepInputs: readonly (Term | null)[],
  varying: readonly number[],
): string {
  let n = 0;
  const steps = plan.steps.map((step) => {
    const copy = instantiate(step, () => `%sig${n++}`, stepInputs);
    const inner = recref(copy, plan.key);
    const relation: Branch = {
      sources: copy.sources.filter((s) => s.alias !== inner.alias),
      conditions: copy.conditions,
      outputs: varying.map((i) => inner.source.args[i]!),
    };
    return JSON.stringify(canonicalAliases(relation, "w"));
  });
  return JSON.stringify(steps.sort());
}

/** Notes a walk CTE's step relation so that later calls with the same one can reuse it. */
export function recordWalk(
  expansion: Expansion,
  cte: number,
  plan: RecursivePlan,
  args: readonly (Term | null)[],
  dynamic: readonly number[],
  varying: readonly number[],
): void {
  const inputs = args.map((arg, i) =>
    varying.includes(i)
      ? column(SIGNATURE_SELF, `s${i}`, termType(arg!))
      : dynamic.includes(i)
        ? column(SIGNATURE_SELF, `k${i}`, termType(arg!))
        : arg,
  );
  expansion.walks.set(cte, { varying, signature: walkSignature(plan, inputs, varying) });
}

/**
 * A recursive call whose varying arguments are the values of a walk with the same step
 * relation needs no walk of its own: the walk's rows are closed under its steps, so the
 * call holds on some row iff one of its exits holds on some row. (Only when nothing else
 * in the branch reads those rows' values.)
 */
export function reuseWalk(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  bound: readonly number[],
): Branch[] | null {
  const call = branch.sources[index]!.source as RecursiveCallSource;
  const varying = varyingPositions(plan, bound);
  const first = varying.length > 0 ? call.args[varying[0]!] : undefined;
  if (first?.kind !== "column") return null;
  const holder = branch.sources.find((ref) => ref.alias === first.alias);
  const walkInfo =
    holder?.source.kind === "cte" ? expansion.walks.get(holder.source.cte) : undefined;
  if (!walkInfo || walkInfo.varying.join() !== varying.join()) return null;
  const fromWalk = varying.every((i) => {
    const arg = call.args[i];
    return arg?.kind === "column" && arg.alias === first.alias && arg.column === `s${i}`;
  });
  const invariantStatic = bound.every(
    (i) => varying.includes(i) || ["literal", "param", "builtin"].includes(call.args[i]!.kind),
  );
  if (!fromWalk || !invariantStatic) return null;
  if (!plan.steps.every((step) => passesThrough(plan, step))) return null;
  const rest = withoutSource(branch, index);
  if (mentions(rest, (t) => t.alias === first.alias && t.column.startsWith("s"), true)) return null;
  const stepInputs = call.args.map((arg, i) =>
    varying.includes(i) ? column(SIGNATURE_SELF, `s${i}`, termType(arg!)) : arg,
  );
  if (walkSignature(plan, stepInputs, varying) !== walkInfo.signature) return null;
  return expansion.inlineExits(expansion, branch, index, plan, [], {
    inputs: call.args,
    joins: [],
  });
}

/**
 * The step relation of an accumulating recursion: what each step reads and produces from a
 * row of the CTE (`%self`), the recursive reference left out.
 */
function accumulateSignature(plan: RecursivePlan, args: readonly (Term | null)[]): string {
  const columns = freeColumns(plan);
  let n = 0;
  const steps = plan.steps.map((step) => {
    const copy = instantiate(step, () => `%sig${n++}`, args);
    const inner = recref(copy, plan.key);
    const reading = replaceColumns(copy, inner.alias, (name) =>
      column(SIGNATURE_SELF, name, columns.find((c) => c.name === name)!.type),
    );
    const relation: Branch = {
      sources: reading.sources.filter((s) => s.alias !== inner.alias),
      conditions: reading.conditions,
      outputs: positionsOf(plan, "free").map((i) => reading.outputs[i]!),
    };
    return JSON.stringify(canonicalAliases(relation, "w"));
  });
  return JSON.stringify([columns, steps.sort()]);
}

/**
 * The exits of an accumulating recursion, where an exit that only calls another recursive
 * instance with the same step relation (`"viewer" if "editor"` under `role if role on
 * "parent"`) is replaced by that instance's exits: closing the union of both seeds under
 * the shared steps gives the same rows as chaining two CTEs, with one CTE.
 */
export function flattenExits(
  expansion: Expansion,
  plan: RecursivePlan,
  args: readonly (Term | null)[],
  seen: Set<string>,
): Branch[] {
  const signature = accumulateSignature(plan, args);
  const free = positionsOf(plan, "free");
  return plan.exits.flatMap((exit) => {
    const copy = instantiate(exit, () => freshAlias(expansion.planner), args);
    const only = copy.sources[0];
    if (
      copy.sources.length !== 1 ||
      copy.conditions.length > 0 ||
      only?.source.kind !== "reccall"
    ) {
      return [copy];
    }
    const other = expansion.planner.memo.get(only.source.instance);
    if (!other || other instanceof PlanError || other.kind !== "recursive" || seen.has(other.key)) {
      return [copy];
    }
    const passes = free.every((i) => {
      const output = copy.outputs[i];
      return (
        output?.kind === "column" && output.alias === only.alias && output.column === argColumn(i)
      );
    });
    if (!passes || positionsOf(other, "free").join() !== free.join()) return [copy];
    if (accumulateSignature(other, only.source.args) !== signature) return [copy];
    seen.add(other.key);
    return flattenExits(expansion, other, only.source.args, seen);
  });
}
