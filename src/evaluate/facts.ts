/**
 * Ground facts indexed by predicate and, lazily, by the value at each argument position, so a
 * call with a bound argument reads only the facts that mention that value.
 */
import { type PredicateKey, predicateKey } from "../check/program.js";
import type { GroundFact, Value } from "../core/value.js";
import { canonicalValue, fits, isWildcard, type Slot, type TypeTable, tupleKey } from "./slot.js";

type Tuple = readonly Value[];

interface PredicateFacts {
  readonly tuples: Tuple[];
  readonly keys: Set<string>;
  /** One map per argument position from value key to tuples, built on first use. */
  readonly byPosition: (Map<string, Tuple[]> | undefined)[];
}

/** A set of ground facts (duplicates collapse), ready for repeated questions. */
export interface FactIndex {
  readonly kind: "fact_index";
  readonly predicates: ReadonlyMap<PredicateKey, PredicateFacts>;
  readonly size: number;
}

/** Stored facts: an index built once with `indexFacts`, or any iterable of facts. */
export type FactInput = FactIndex | Iterable<GroundFact>;

/**
 * Indexes facts for the evaluator. Build it once and reuse it for many questions.
 *
 * @example
 * const facts = indexFacts([{ predicate: "has_role", args: [ada, viewer, w1] }]);
 * authorize(program, facts, ada, "read", w1); // true
 */
export function indexFacts(facts: Iterable<GroundFact>): FactIndex {
  const predicates = new Map<PredicateKey, PredicateFacts>();
  let size = 0;
  for (const fact of facts) {
    const key = predicateKey(fact.predicate, fact.args.length);
    let entry = predicates.get(key);
    if (!entry) {
      entry = { tuples: [], keys: new Set(), byPosition: [] };
      predicates.set(key, entry);
    }
    const tuple = fact.args.map(canonicalValue);
    const id = tupleKey(tuple);
    if (entry.keys.has(id)) continue;
    entry.keys.add(id);
    entry.tuples.push(tuple);
    size++;
  }
  return { kind: "fact_index", predicates, size };
}

export function toFactIndex(facts: FactInput): FactIndex {
  return isFactIndex(facts) ? facts : indexFacts(facts);
}

function isFactIndex(facts: FactInput): facts is FactIndex {
  return (facts as Partial<FactIndex>).kind === "fact_index";
}

function positionIndex(entry: PredicateFacts, position: number): Map<string, Tuple[]> {
  let index = entry.byPosition[position];
  if (!index) {
    index = new Map();
    for (const tuple of entry.tuples) {
      const key = valueKeyOf(tuple[position]!);
      const bucket = index.get(key);
      if (bucket) bucket.push(tuple);
      else index.set(key, [tuple]);
    }
    entry.byPosition[position] = index;
  }
  return index;
}

function valueKeyOf(value: Value): string {
  return `${value.type}\u0000${value.id}`;
}

/** Calls `visit` with every fact of `predicate` that fits `pattern` (slot by slot). */
export function matchFacts(
  table: TypeTable,
  index: FactIndex,
  predicate: PredicateKey,
  pattern: readonly Slot[],
  visit: (tuple: Tuple) => void,
): void {
  const entry = index.predicates.get(predicate);
  if (!entry) return;
  // Read the smallest bucket among the bound positions; with none bound, every fact.
  let candidates: readonly Tuple[] = entry.tuples;
  pattern.forEach((slot, position) => {
    if (isWildcard(slot)) return;
    const bucket = positionIndex(entry, position).get(valueKeyOf(slot)) ?? [];
    if (bucket.length < candidates.length) candidates = bucket;
  });
  for (const tuple of candidates) {
    if (pattern.every((slot, i) => slotAccepts(table, slot, tuple[i]!))) visit(tuple);
  }
}

function slotAccepts(table: TypeTable, slot: Slot, value: Value): boolean {
  if (isWildcard(slot)) return fits(table, value, slot);
  return slot.type === value.type && slot.id === value.id;
}
