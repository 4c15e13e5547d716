/**
 * Branches that differ only in the values one term is compared with become one branch. A
 * manager reads the reports they own (`f0.arg2 = $actor`) and those of everyone below them
 * (`f0.arg2 IN (…)`, computed from central facts): as one branch, `f0.arg2 IN ($actor, …)`, the
 * database reads the binding once and can join it to the caller's table without first
 * removing duplicates from a union (bench/central-recursion, bench/RESULTS.md).
 *
 * Every shape of statement removes duplicate answers, so a union of branches and the one
 * merged branch give the same answers.
 */
import type { Branch, Condition, SourceRef, Term } from "../ir.js";

interface Group {
  readonly first: Branch;
  /** Per merge key of `first`: the index of the condition it leaves out. */
  readonly indexes: ReadonlyMap<string, number>;
  /** The key merged on and the values gathered, once another branch merged. */
  merged: { readonly key: string; readonly values: Term[] } | null;
}

/**
 * The branches with those that differ only in one `term = value` or `term IN (values)`
 * condition merged into `term IN (values of each)`, in order of first appearance.
 *
 *   mergeValueBranches([a, b]) // a: f0.arg2 = 'x', b: f0.arg2 IN ('y', 'z') -> f0.arg2 IN ('x', 'y', 'z')
 */
export function mergeValueBranches(branches: readonly Branch[]): Branch[] {
  if (branches.length < 2) return [...branches];
  // Only branches that share their sources and outputs can merge: find them cheaply first.
  const shapes = new Map<string, number>();
  const shapeOf = branches.map((branch) => {
    const shape = JSON.stringify([branch.sources.map(sourceShape), branch.outputs]);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    return shape;
  });
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  for (const [n, branch] of branches.entries()) {
    const candidates = shapes.get(shapeOf[n]!)! > 1 ? mergeKeys(branch) : new Map<string, number>();
    const joined = [...candidates].find(([key]) => {
      const group = byKey.get(key);
      return group !== undefined && (group.merged === null || group.merged.key === key);
    });
    if (joined) {
      const [key, index] = joined;
      const group = byKey.get(key)!;
      if (group.merged === null) {
        const own = group.first.conditions[group.indexes.get(key)!]!;
        group.merged = { key, values: [...valueCondition(own)!.values] };
      }
      addValues(group.merged.values, valueCondition(branch.conditions[index]!)!.values);
      continue;
    }
    const group: Group = { first: branch, indexes: candidates, merged: null };
    groups.push(group);
    for (const key of candidates.keys()) if (!byKey.has(key)) byKey.set(key, group);
  }
  return groups.map(({ first, indexes, merged }) => {
    if (!merged) return first;
    const index = indexes.get(merged.key)!;
    const conditions = [...first.conditions];
    const { term } = valueCondition(conditions[index]!)!;
    conditions[index] = { kind: "in", term, values: merged.values };
    return { ...first, conditions };
  });
}

/** For each condition a merge may gather values in: the rest of the branch and its term. */
function mergeKeys(branch: Branch): Map<string, number> {
  const keys = new Map<string, number>();
  branch.conditions.forEach((condition, index) => {
    const parts = valueCondition(condition);
    if (!parts) return;
    const rest = { ...branch, conditions: branch.conditions.filter((_, i) => i !== index) };
    keys.set(JSON.stringify([rest, parts.term]), index);
  });
  return keys;
}

/** A source without its rows. */
function sourceShape(ref: SourceRef): unknown {
  const source = ref.source;
  switch (source.kind) {
    case "binding":
      return [ref.alias, source.kind, source.binding, source.rows?.length ?? 0];
    case "cte":
      return [ref.alias, source.kind, source.cte];
    case "values":
      return [ref.alias, source.kind, source.columns, source.rows.length];
    default:
      return [ref.alias, source];
  }
}

const isValue = (term: Term) => term.kind === "literal" || term.kind === "param";

/** `term = value` or `term IN (values)` with values known when printing. */
function valueCondition(
  condition: Condition,
): { readonly term: Term; readonly values: readonly Term[] } | null {
  switch (condition.kind) {
    case "compare": {
      if (condition.op !== "=") return null;
      const { left, right } = condition;
      if (isValue(right) && !isValue(left)) return { term: left, values: [right] };
      if (isValue(left) && !isValue(right)) return { term: right, values: [left] };
      return null;
    }
    case "in":
      return isValue(condition.term) || !condition.values.every(isValue)
        ? null
        : { term: condition.term, values: condition.values };
    case "not_exists":
    case "exists":
      return null;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

function addValues(into: Term[], values: readonly Term[]): void {
  const key = (term: Term) =>
    term.kind === "literal" ? `l${term.value.type}\u0000${term.value.id}` : JSON.stringify(term);
  const seen = new Set(into.map(key));
  for (const value of values) {
    const k = key(value);
    if (seen.has(k)) continue;
    seen.add(k);
    into.push(value);
  }
}
