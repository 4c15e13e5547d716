/**
 * A request's values up to renaming, so that one printed text serves every request that differs
 * from it only in the ids of its free values. A free value is an entity value (not String,
 * Integer or Boolean) of the request's params or of the central and context facts the plan
 * reads that no constant of the plan names. Resolution, lowering and printing only test such
 * values for equality (ordering is false for any pair that holds an entity, src/core/value.ts
 * `compareValues`) and ask the dialect whether it can write them and whether they compare
 * untyped; so two requests with the same key (the same facts rows, the same pattern of equal
 * values, the same answers of the dialect) print the same text with the free values in the same
 * places. print/statement.ts prints such a text once per key as a template whose slots are the
 * free values (print/template.ts), and fills it per request.
 */
import type { DataBindings } from "../bindings/types.js";
import { isPrimitiveType, type Value, valueKey } from "../core/value.js";
import { type Branch, isSubquery, type Plan, type Term } from "../plan/ir.js";
import type { FactRows } from "../plan/resolve/central-facts.js";
import { type FactLookup, factLookups, lookupRows } from "../plan/resolve/rows.js";
import { mapBranch } from "../plan/rewrite.js";

export interface FreeValues {
  /** The request up to a renaming of its free values: equal keys print equal texts up to it. */
  readonly key: string;
  /** The free values in order of first appearance; a template's slots name them by index. */
  readonly values: readonly Value[];
  /** The index of each free value, by `valueKey`. */
  readonly indexes: ReadonlyMap<string, number>;
}

/** What the dialect answers about a value: the only questions printing asks of a free value. */
interface ValueTests {
  readonly renderable: (value: Value) => boolean;
  readonly comparesUntyped: (id: string) => boolean;
}

/**
 * Past this many values a request is printed afresh: a template's key and slots grow with them,
 * while rows stored for every request (a whole relation) are kept as printed text anyway
 * (src/lower/fixed-rows.ts).
 */
const MAX_VALUES = 256;

/** What a plan reads of a request, besides the clock. */
interface PlanReads {
  readonly paramTypes: ReadonlyMap<string, readonly string[]>;
  /** Every distinct fact lookup of every branch (resolution asks some of them). */
  readonly lookups: readonly FactLookup[];
  /** Values the plan and its bindings name (`valueKey`): never free. */
  readonly named: ReadonlySet<string>;
}

/** The rows each lookup of a plan reads in one request. */
export interface Answers {
  readonly reads: PlanReads;
  readonly rows: readonly (readonly (readonly Value[])[])[];
}

/**
 * The rows every lookup of the plan reads in this request; null when the plan reads the clock
 * (which decides conditions by its order). Asking them all tells a source that loads lookups
 * which ones it is missing (src/core/central-facts.ts).
 */
export function lookupAnswers(
  plan: Plan,
  bindings: DataBindings,
  runtime: {
    readonly params: ReadonlyMap<string, readonly string[]>;
    readonly facts: FactRows;
    readonly now: bigint;
  },
): Answers | null {
  const reads = planReads(plan, bindings);
  return reads && { reads, rows: reads.lookups.map((lookup) => lookupRows(lookup, runtime)) };
}

/** The request's free values and its key; null when it holds too many values. */
export function freeValues(
  { reads, rows: answers }: Answers,
  params: ReadonlyMap<string, readonly string[]>,
  tests: ValueTests,
): FreeValues | null {
  const values: Value[] = [];
  const indexes = new Map<string, number>();
  let key = "";
  let count = 0;
  const note = (value: Value) => {
    const id = valueKey(value);
    if (isPrimitiveType(value.type) || reads.named.has(id)) {
      key += `=${id.length}:${id}`;
      return;
    }
    const known = indexes.get(id);
    if (known !== undefined) {
      key += `#${known}`;
      return;
    }
    indexes.set(id, values.length);
    values.push(value);
    const answers = `${tests.renderable(value) ? 1 : 0}${tests.comparesUntyped(value.id) ? 1 : 0}`;
    key += `+${value.type.length}:${value.type}${answers}`;
  };
  for (const [name, ids] of params) {
    const types = reads.paramTypes.get(name);
    if (!types) continue;
    count += ids.length * types.length;
    if (count > MAX_VALUES) return null;
    key += `|p${name.length}:${name}/${ids.length}`;
    for (const type of types) for (const id of ids) note({ type, id });
  }
  for (const rows of answers) {
    key += `|f${rows.length}`;
    for (const row of rows) {
      count += row.length;
      if (count > MAX_VALUES) return null;
      for (const value of row) note(value);
    }
  }
  return { key, values, indexes };
}

const readsByPlan = new WeakMap<Plan, WeakMap<DataBindings, PlanReads | null>>();

function planReads(plan: Plan, bindings: DataBindings): PlanReads | null {
  let byBindings = readsByPlan.get(plan);
  if (!byBindings) {
    byBindings = new WeakMap();
    readsByPlan.set(plan, byBindings);
  }
  let reads = byBindings.get(bindings);
  if (reads === undefined) {
    reads = readsOf(plan, bindings);
    byBindings.set(bindings, reads);
  }
  return reads;
}

function readsOf(plan: Plan, bindings: DataBindings): PlanReads | null {
  const paramTypes = new Map<string, string[]>();
  const lookups = new Map<string, FactLookup>();
  const named = new Set<string>();
  let clock = false;
  const addParam = (name: string, type: string) => {
    const types = paramTypes.get(name) ?? [];
    if (!types.includes(type)) types.push(type);
    paramTypes.set(name, types);
  };
  const term = (t: Term): Term => {
    if (t.kind === "literal") named.add(valueKey(t.value));
    if (t.kind === "param") addParam(t.name, t.type);
    if (t.kind === "builtin") clock = true;
    return t;
  };
  const visit = (branch: Branch) => {
    for (const ref of branch.sources) {
      const source = ref.source;
      for (const lookup of factLookups(branch, ref, bindings)) {
        lookups.set(JSON.stringify(lookup), lookup);
      }
      if (source.kind === "param") addParam(source.name, source.type);
      const rows = source.kind === "values" || source.kind === "binding" ? source.rows : [];
      for (const row of rows ?? []) for (const value of row) named.add(valueKey(value));
    }
    for (const condition of branch.conditions) {
      if (isSubquery(condition)) condition.branches.forEach(visit);
    }
  };
  const branches = [...plan.branches, ...plan.ctes.flatMap((c) => [...c.seeds, ...c.steps])];
  for (const branch of branches) {
    mapBranch(branch, { alias: (alias) => alias, term });
    visit(branch);
  }
  // A binding's constants join its facts' rows (src/plan/resolve/rows.ts `factLookups`).
  for (const lookup of lookups.values()) for (const t of lookup.pattern) if (t) term(t);
  for (const constant of plan.constants ?? []) named.add(valueKey(constant.value));
  if (clock) return null;
  return { paramTypes, lookups: [...lookups.values()], named };
}
