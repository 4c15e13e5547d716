/**
 * Rows known when printing: central and context facts, param lists, and the facts a binding
 * reads along with its query. They are filtered by the branch's literal conditions and then
 * folded away, turned into `IN` lists or printed as VALUES holding only the columns used.
 */

import type { BindingSlot, DataBindings } from "../../bindings/types.js";
import { canonicalValue } from "../../check/facts.js";
import type { Value } from "../../core/value.js";
import {
  argColumn,
  type Branch,
  type Condition,
  type CteColumn,
  literal,
  type Output,
  type SourceRef,
  type Term,
} from "../ir.js";
import { mapBranch } from "../rewrite.js";
import { NO_FACT_ROWS } from "./central-facts.js";
import { conditionTerms, type Runtime, staticValue } from "./runtime.js";

export interface RowSource {
  readonly columns: readonly CteColumn[];
  rows: (readonly Value[])[];
  /**
   * The array the rows were copied from, when fact lookups return it again for the same
   * lookup: while no condition removed a row, its projection is kept with it (see `projected`).
   */
  readonly origin?: readonly (readonly Value[])[];
}

/**
 * The terms (literals, params, builtins) a branch's top-level `=` conditions fix for the `argN`
 * columns of `alias` (null where none): a fact source need only supply rows that match them.
 */
function patternTerms(branch: Branch, alias: string, arity: number): (Term | null)[] {
  const pattern: (Term | null)[] = Array.from({ length: arity }, () => null);
  for (const condition of branch.conditions) {
    if (condition.kind !== "compare" || condition.op !== "=") continue;
    for (const [column, other] of [
      [condition.left, condition.right],
      [condition.right, condition.left],
    ] as const) {
      if (column.kind !== "column" || column.alias !== alias) continue;
      if (other.kind !== "literal" && other.kind !== "param" && other.kind !== "builtin") continue;
      const position = Number(column.column.slice("arg".length));
      if (Number.isInteger(position) && position < arity) pattern[position] = other;
    }
  }
  return pattern;
}

/**
 * One read of central and context facts: rows of `predicate` whose arguments have `types`
 * and equal the values of `pattern`'s terms where they are not null.
 */
export interface FactLookup {
  readonly predicate: string;
  readonly types: readonly (string | null)[];
  readonly pattern: readonly (Term | null)[];
}

/**
 * What a source reads of central and context facts (nothing for most sources): all of a
 * facts source, or those read along with a binding (with the binding's constants).
 */
export function factLookups(
  branch: Branch,
  ref: SourceRef,
  bindings: DataBindings,
): readonly FactLookup[] {
  const source = ref.source;
  if (source.kind === "facts") {
    const pattern = patternTerms(branch, ref.alias, source.types.length);
    return source.predicates.map((predicate) => ({ predicate, types: source.types, pattern }));
  }
  if (source.kind !== "binding" || !source.facts) return [];
  const slots = bindings.bindings[source.binding]!.slots;
  const pattern = patternTerms(branch, ref.alias, slots.length).map((term, i) => {
    const slot = slots[i]!;
    return slot.kind === "column" ? term : literal({ type: slot.type, id: slot.value });
  });
  return [{ predicate: source.facts.predicate, types: source.facts.types, pattern }];
}

/** The rows one lookup reads in this request. */
export function lookupRows(lookup: FactLookup, runtime: Pick<Runtime, "facts" | "params" | "now">) {
  const pattern = lookup.pattern.map((term) => term && canonicalValue(staticValue(term, runtime)!));
  return runtime.facts(lookup.predicate, lookup.types, pattern);
}

type FactsRuntime = Pick<Runtime, "facts" | "params" | "now" | "bindings">;

/** The central and context rows a source reads that can meet the branch's conditions. */
export function factsFor(branch: Branch, ref: SourceRef, runtime: FactsRuntime) {
  if (runtime.facts === NO_FACT_ROWS) return [];
  const lookups = factLookups(branch, ref, runtime.bindings);
  if (lookups.length === 1) return lookupRows(lookups[0]!, runtime);
  return lookups.flatMap((lookup) => lookupRows(lookup, runtime));
}

export function rowSourceOf(branch: Branch, ref: SourceRef, runtime: Runtime): RowSource | null {
  const source = ref.source;
  if (source.kind === "facts") {
    const origin = factsFor(branch, ref, runtime);
    return {
      // A column of any type is never read (see `FactsSource`).
      columns: source.types.map((type, i) => ({ name: argColumn(i), type: type ?? "?" })),
      rows: [...origin],
      origin,
    };
  }
  if (source.kind === "values") {
    return { columns: source.columns, rows: [...source.rows] };
  }
  if (source.kind === "param") {
    if (runtime.idArrays) return null;
    const ids = runtime.params.get(source.name) ?? [];
    return {
      columns: [{ name: argColumn(0), type: source.type }],
      rows: [...new Set(ids)].map((id) => [{ type: source.type, id }]),
    };
  }
  return null;
}

// ---------------------------------------------------------------- facts read with a binding

/**
 * Resolves the facts a binding source reads along with its query: those with the binding's
 * constants that pass the branch's literal conditions on the source, as `_`-slot rows.
 */
export function withBindingFacts(branch: Branch, runtime: Runtime): Branch {
  const found = branch.sources.map((ref) => factsFor(branch, ref, runtime));
  if (found.every((rows) => rows.length === 0)) return branch;
  const sources = branch.sources.map((ref, index): SourceRef => {
    const source = ref.source;
    if (source.kind !== "binding" || !source.facts) return ref;
    const slots = runtime.bindings.bindings[source.binding]!.slots;
    const tests = branch.conditions.flatMap((condition) =>
      literalTest(condition, ref.alias, runtime),
    );
    const rows = bindingRows(found[index]!, slots, tests, runtime.renderable);
    const { facts: _facts, ...plain } = source;
    return { alias: ref.alias, source: rows.length > 0 ? { ...plain, rows } : plain };
  });
  return { ...branch, sources };
}

/**
 * The `_`-slot values of the fact rows that have the binding's constants and pass `tests`,
 * distinct and writable. Without tests the answer depends only on the rows and the binding:
 * it is kept with the rows array, which central sources return again for the same lookup.
 */
function bindingRows(
  found: readonly (readonly Value[])[],
  slots: readonly BindingSlot[],
  tests: readonly ((row: readonly Value[]) => boolean)[],
  renderable: (value: Value) => boolean,
): readonly (readonly Value[])[] {
  if (found.length === 0) return [];
  let kept = tests.length === 0 ? rowsBySlots.get(found) : undefined;
  const known = kept?.get(slots);
  if (known) return known;
  const constants = slots.map((slot) =>
    slot.kind === "column" ? null : canonicalValue({ type: slot.type, id: slot.value }).id,
  );
  const seen = new Set<string>();
  const rows: Value[][] = [];
  for (const row of found) {
    if (!constants.every((id, i) => id === null || row[i]!.id === id)) continue;
    if (!tests.every((test) => test(row))) continue;
    const values = row.filter((_, i) => constants[i] === null);
    const key = rowKey(values);
    if (seen.has(key) || !values.every(renderable)) continue;
    seen.add(key);
    rows.push(values);
  }
  if (tests.length === 0) {
    if (!kept) {
      kept = new WeakMap();
      rowsBySlots.set(found, kept);
    }
    kept.set(slots, rows);
  }
  return rows;
}

/** `bindingRows` without tests, per fact rows array and binding. */
const rowsBySlots = new WeakMap<object, WeakMap<readonly BindingSlot[], readonly Value[][]>>();

/** A test on a fact row for a condition between `alias.argN` columns and literals. */
function literalTest(
  condition: Condition,
  alias: string,
  runtime: Runtime,
): ((row: readonly Value[]) => boolean)[] {
  const parts = conditionTerms(condition);
  if (!parts) return [];
  const readers = parts.terms.map((term): ((row: readonly Value[]) => Value) | null => {
    const value = staticValue(term, runtime);
    if (value) return () => value;
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

/** A key that identifies a row: each type and id prefixed by its length, so keys never collide. */
function rowKey(row: readonly Value[]): string {
  let key = "";
  for (const v of row) key += `${v.type.length}:${v.type}${v.id.length}:${v.id}`;
  return key;
}

export function finishRowSources(
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
    const rows = projected(source, needed, runtime.renderable);
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

/**
 * The distinct writable rows of `needed` columns. Unfiltered rows of a fact lookup give the
 * same answer every time: it is kept with their array, so that a large central relation (every
 * `manages` link of a company, read by each step of a recursion) is projected once, not per
 * request, and the rows computed from it keep their indexes (known-ctes.ts).
 */
function projected(
  source: RowSource,
  needed: readonly number[],
  renderable: (value: Value) => boolean,
): readonly (readonly Value[])[] {
  const origin = source.origin;
  const whole = origin !== undefined && source.rows.length === origin.length;
  const key = needed.join(",");
  const kept = whole ? projections.get(origin)?.get(renderable)?.get(key) : undefined;
  if (kept) return kept;
  const seen = new Set<string>();
  const rows: (readonly Value[])[] = [];
  for (const row of source.rows) {
    const values = needed.map((i) => row[i]!);
    if (!values.every(renderable)) continue;
    const rowId = rowKey(values);
    if (seen.has(rowId)) continue;
    seen.add(rowId);
    rows.push(values);
  }
  if (whole) {
    let byRenderable = projections.get(origin);
    if (!byRenderable) {
      byRenderable = new WeakMap();
      projections.set(origin, byRenderable);
    }
    let byColumns = byRenderable.get(renderable);
    if (!byColumns) {
      byColumns = new Map();
      byRenderable.set(renderable, byColumns);
    }
    byColumns.set(key, rows);
  }
  return rows;
}

/** `projected` answers per fact rows array, per `renderable` (one per bindings and dialect). */
const projections = new WeakMap<
  object,
  WeakMap<(value: Value) => boolean, Map<string, readonly (readonly Value[])[]>>
>();

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
