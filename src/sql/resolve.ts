/**
 * Print-time resolution: a cached plan plus this request's values becomes a concrete plan.
 * Params and the clock become literals; central, context and param row sources become
 * folded conditions, `IN` lists or VALUES tables holding only the rows the branch can use;
 * branches that cannot hold disappear (also through empty recursive CTEs and `NOT EXISTS`).
 */

import type { DataBindings } from "../bindings/types.js";
import { canonicalValue } from "../check/facts.js";
import type { Value } from "../core/value.js";
import { compareValues, valueEquals } from "../plan/compare.js";
import {
  argColumn,
  type Branch,
  type Condition,
  type CteColumn,
  type Output,
  type Plan,
  type RecursiveCte,
  type SourceRef,
  type Term,
} from "../plan/ir.js";
import { mapBranch } from "../plan/rewrite.js";
import type { FactRows } from "./central-facts.js";

export interface Runtime {
  /** Ids of each param (one for a single param, any number for a `many` param). */
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly facts: FactRows;
  /** `@current_unix_time`. */
  readonly now: bigint;
  /** Whether the value can be written for a column of its type (else it matches nothing). */
  readonly renderable: (value: Value) => boolean;
  readonly bindings: DataBindings;
}

export interface ResolvedPlan {
  /** Null where a CTE turned out empty (nothing reads it any more). */
  readonly ctes: readonly (RecursiveCte | null)[];
  readonly branches: readonly Branch[];
}

/**
 * Resolves a plan for one request.
 *
 *   resolvePlan(plan, { params: new Map([["actor", ["17"]]]), facts, now, renderable })
 */
export function resolvePlan(plan: Plan, runtime: Runtime): ResolvedPlan {
  const dead = new Set<number>();
  const ctes = plan.ctes.map((cte, index): RecursiveCte | null => {
    const seeds = resolveBranches(cte.seeds, runtime, dead);
    if (seeds.length === 0) {
      dead.add(index);
      return null;
    }
    return { ...cte, seeds, steps: resolveBranches(cte.steps, runtime, dead) };
  });
  return { ctes, branches: resolveBranches(plan.branches, runtime, dead) };
}

function resolveBranches(
  branches: readonly Branch[],
  runtime: Runtime,
  dead: ReadonlySet<number>,
): Branch[] {
  const out: Branch[] = [];
  for (const branch of branches) {
    if (!mayHold(branch, runtime, dead)) continue;
    const resolved = resolveBranch(substituteValues(branch, runtime), runtime, dead);
    if (resolved) out.push(resolved);
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
        if (runtime.facts(source.predicate, source.types).length === 0) return false;
        break;
      case "param":
        if ((runtime.params.get(source.name) ?? []).length === 0) return false;
        break;
      case "cte":
        if (dead.has(source.cte)) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

/** Single params and the clock become literals. */
function substituteValues(branch: Branch, runtime: Runtime): Branch {
  return mapBranch(branch, {
    alias: (alias) => alias,
    term: (term) => {
      if (term.kind === "time")
        return { kind: "literal", value: { type: "Integer", id: `${runtime.now}` } };
      if (term.kind !== "param") return term;
      const ids = runtime.params.get(term.name) ?? [];
      if (ids.length !== 1) {
        throw new Error(`internal: param \`${term.name}\` needs exactly one id, got ${ids.length}`);
      }
      return { kind: "literal", value: { type: term.type, id: ids[0]! } };
    },
  });
}

interface RowSource {
  readonly columns: readonly CteColumn[];
  rows: (readonly Value[])[];
}

function rowSourceOf(ref: SourceRef, runtime: Runtime): RowSource | null {
  const source = ref.source;
  if (source.kind === "facts") {
    return {
      // A column of any type is never read (see `FactsSource`).
      columns: source.types.map((type, i) => ({ name: argColumn(i), type: type ?? "?" })),
      rows: [...runtime.facts(source.predicate, source.types)],
    };
  }
  if (source.kind === "param") {
    const ids = runtime.params.get(source.name) ?? [];
    return {
      columns: [{ name: argColumn(0), type: source.type }],
      rows: [...new Set(ids)].map((id) => [{ type: source.type, id }]),
    };
  }
  return null;
}

type Classified =
  | { kind: "static"; value: Value }
  | { kind: "row"; alias: string; index: number }
  | null;

function classify(term: Term, rowSources: ReadonlyMap<string, RowSource>): Classified {
  if (term.kind === "literal") return { kind: "static", value: term.value };
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

/** The terms of a compare/in condition, its evaluation given their values. */
function conditionTerms(
  condition: Condition,
): { terms: Term[]; test: (values: Value[]) => boolean } | null {
  switch (condition.kind) {
    case "compare":
      return {
        terms: [condition.left, condition.right],
        test: ([a, b]) => compareValues(condition.op, a!, b!),
      };
    case "in":
      return {
        terms: [condition.term, ...condition.values],
        test: ([element, ...values]) => values.some((v) => valueEquals(element!, v)),
      };
    case "not_exists":
      return null;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

/** Whether a literal in this condition makes it impossible (or always true) in SQL. */
function unrenderableOutcome(condition: Condition, runtime: Runtime): boolean | null {
  if (condition.kind === "compare") {
    for (const term of [condition.left, condition.right]) {
      if (term.kind === "literal" && !runtime.renderable(term.value)) {
        return condition.op === "!=";
      }
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
    const rows = rowSourceOf(ref, runtime);
    if (rows) rowSources.set(ref.alias, rows);
  }
  const conditions: Condition[] = [];
  for (const condition of branch.conditions) {
    if (condition.kind === "not_exists") {
      const inner = resolveBranches(condition.branches, runtime, dead);
      if (inner.some((b) => b.sources.length === 0 && b.conditions.length === 0)) return null;
      if (inner.length > 0) conditions.push({ kind: "not_exists", branches: inner });
      continue;
    }
    const parts = conditionTerms(condition)!;
    const classified = parts.terms.map((term) => classify(term, rowSources));
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
            values: condition.values.filter(
              (v) => v.kind !== "literal" || runtime.renderable(v.value),
            ),
          }
        : condition,
    );
    const last = conditions[conditions.length - 1]!;
    if (last.kind === "in" && last.values.length === 0) return null;
  }
  for (const output of branch.outputs) {
    if (output.kind === "literal" && !runtime.renderable(output.value)) return null;
  }
  return finishRowSources({ ...branch, conditions }, rowSources, runtime);
}

// ---------------------------------------------------------------- facts read with a binding

/**
 * Resolves the facts a binding source reads along with its query: those with the binding's
 * constants that pass the branch's literal conditions on the source, as `_`-slot rows.
 */
function withBindingFacts(branch: Branch, runtime: Runtime): Branch {
  const hasRows = branch.sources.some(
    (ref) =>
      ref.source.kind === "binding" &&
      ref.source.facts &&
      runtime.facts(ref.source.facts.predicate, ref.source.facts.types).length > 0,
  );
  if (!hasRows) return branch;
  const sources = branch.sources.map((ref): SourceRef => {
    const source = ref.source;
    if (source.kind !== "binding" || !source.facts) return ref;
    const slots = runtime.bindings.bindings[source.binding]!.slots;
    const tests = branch.conditions.flatMap((condition) => literalTest(condition, ref.alias));
    const seen = new Set<string>();
    const rows: Value[][] = [];
    for (const row of runtime.facts(source.facts.predicate, source.facts.types)) {
      const fits = slots.every(
        (slot, i) =>
          slot.kind === "column" ||
          row[i]!.id === canonicalValue({ type: slot.type, id: slot.value }).id,
      );
      if (!fits || !tests.every((test) => test(row))) continue;
      const values = slots.flatMap((slot, i) => (slot.kind === "column" ? [row[i]!] : []));
      const key = rowKey(values);
      if (seen.has(key) || !values.every(runtime.renderable)) continue;
      seen.add(key);
      rows.push(values);
    }
    const { facts: _facts, ...plain } = source;
    return { alias: ref.alias, source: rows.length > 0 ? { ...plain, rows } : plain };
  });
  return { ...branch, sources };
}

/** A test on a fact row for a condition between `alias.argN` columns and literals. */
function literalTest(condition: Condition, alias: string): ((row: readonly Value[]) => boolean)[] {
  const parts = conditionTerms(condition);
  if (!parts) return [];
  const readers = parts.terms.map((term): ((row: readonly Value[]) => Value) | null => {
    if (term.kind === "literal") return () => term.value;
    if (term.kind === "column" && term.alias === alias) {
      const position = Number(term.column.slice("arg".length));
      return (row) => row[position]!;
    }
    return null;
  });
  if (readers.some((reader) => reader === null)) return [];
  if (!parts.terms.some((term) => term.kind === "column")) return [];
  return [(row) => parts.test(readers.map((reader) => reader!(row)))];
}

// ---------------------------------------------------------------- row sources

/** How often each column of each alias is read, and whether only by top-level `=`. */
function columnUses(branch: Branch): Map<string, { count: number; onlyEquality: boolean }> {
  const uses = new Map<string, { count: number; onlyEquality: boolean }>();
  const note = (term: Term | Output, equality: boolean) => {
    if (term.kind !== "column") return;
    const key = `${term.alias}.${term.column}`;
    const use = uses.get(key) ?? { count: 0, onlyEquality: true };
    use.count++;
    use.onlyEquality &&= equality;
    uses.set(key, use);
  };
  for (const condition of branch.conditions) {
    if (condition.kind === "compare") {
      const equality = condition.op === "=";
      note(condition.left, equality);
      note(condition.right, equality);
    } else {
      mapBranch(
        { sources: [], conditions: [condition], outputs: [] },
        {
          alias: (a) => a,
          term: (t) => {
            note(t, false);
            return t;
          },
        },
      );
    }
  }
  for (const output of branch.outputs) note(output, false);
  return uses;
}

function rowKey(row: readonly Value[]): string {
  return JSON.stringify(row.map((v) => [v.type, v.id]));
}

function finishRowSources(
  branch: Branch,
  rowSources: ReadonlyMap<string, RowSource>,
  runtime: Runtime,
): Branch | null {
  if (rowSources.size === 0) return branch;
  const uses = columnUses(branch);
  let sources: SourceRef[] = [];
  let conditions = [...branch.conditions];
  for (const ref of branch.sources) {
    const source = rowSources.get(ref.alias);
    if (!source) {
      sources.push(ref);
      continue;
    }
    const needed = source.columns.flatMap((c, i) =>
      uses.has(`${ref.alias}.${c.name}`) ? [i] : [],
    );
    if (needed.length === 0) continue; // some row exists: the source is simply true
    const seen = new Set<string>();
    const rows: (readonly Value[])[] = [];
    for (const row of source.rows) {
      const projected = needed.map((i) => row[i]!);
      if (!projected.every(runtime.renderable)) continue;
      const key = rowKey(projected);
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(projected);
    }
    if (rows.length === 0) return null;
    const columns = needed.map((i) => source.columns[i]!);
    const only = columns.length === 1 ? uses.get(`${ref.alias}.${columns[0]!.name}`) : undefined;
    if (
      only &&
      only.count === 1 &&
      only.onlyEquality &&
      !joinsRowSource(conditions, ref.alias, rowSources)
    ) {
      conditions = conditions.map((condition) => asInList(condition, ref.alias, rows));
      continue;
    }
    sources = [...sources, { alias: ref.alias, source: { kind: "values", columns, rows } }];
  }
  return { ...branch, sources, conditions };
}

/** Whether `alias` is joined by equality to another row source (which may be folded too). */
function joinsRowSource(
  conditions: readonly Condition[],
  alias: string,
  rowSources: ReadonlyMap<string, RowSource>,
): boolean {
  return conditions.some(
    (c) =>
      c.kind === "compare" &&
      [c.left, c.right].some((t) => t.kind === "column" && t.alias === alias) &&
      [c.left, c.right].some(
        (t) => t.kind === "column" && t.alias !== alias && rowSources.has(t.alias),
      ),
  );
}

/** `alias.c = X` with the column's values known: `X = v` or `X IN (v1, v2)`. */
function asInList(
  condition: Condition,
  alias: string,
  rows: readonly (readonly Value[])[],
): Condition {
  if (condition.kind !== "compare") return condition;
  const isOurs = (term: Term) => term.kind === "column" && term.alias === alias;
  if (!isOurs(condition.left) && !isOurs(condition.right)) return condition;
  const other = isOurs(condition.left) ? condition.right : condition.left;
  const values: Term[] = rows.map((row) => ({ kind: "literal", value: row[0]! }));
  if (values.length === 1) return { kind: "compare", op: "=", left: other, right: values[0]! };
  return { kind: "in", term: other, values };
}
