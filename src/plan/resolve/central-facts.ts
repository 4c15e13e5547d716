/**
 * Facts that are not in the caller's database: the central store and the request's context
 * facts. Local SQL inlines the ones a question can use (docs/local-authorization.md#where-each-fact-comes-from).
 */
import { canonicalFact } from "../../check/facts.js";
import type { CentralFacts } from "../../core/central-facts.js";
import { NO_CENTRAL_FACTS } from "../../core/central-facts.js";
import type { GroundFact, Value } from "../../core/value.js";

export { type CentralFacts, NO_CENTRAL_FACTS } from "../../core/central-facts.js";

/**
 * Central facts held in memory, indexed by predicate and arity.
 *
 *   const central = inMemoryCentralFacts([{ predicate: "has_role", args: [user, role, org] }]);
 */
export function inMemoryCentralFacts(facts: Iterable<GroundFact>): CentralFacts {
  const index = new Map<string, GroundFact[]>();
  for (const fact of facts) {
    const key = `${fact.predicate}/${fact.args.length}`;
    const list = index.get(key) ?? [];
    list.push(canonicalFact(fact));
    index.set(key, list);
  }
  return { facts: (predicate, arity) => index.get(`${predicate}/${arity}`) ?? [] };
}

/**
 * Rows of `predicate` whose arguments have exactly `types` (null: any type), from every fact
 * source; with `pattern`, only rows whose argument `i` equals `pattern[i]` where non-null.
 */
export type FactRows = (
  predicate: string,
  types: readonly (string | null)[],
  pattern?: readonly (Value | null)[],
) => readonly (readonly Value[])[];

/** No fact rows at all: the common case of a local question without central or context facts. */
export const NO_FACT_ROWS: FactRows = () => [];

/** Group keys of the type lists of plans (which live as long as their plans). */
const keys = new WeakMap<readonly (string | null)[], string>();

/**
 * Central and context facts as rows grouped by argument types; each (predicate, arity) is
 * read once per lookup object, duplicates removed.
 */
export function factRows(central: CentralFacts, context: readonly GroundFact[]): FactRows {
  if (central === NO_CENTRAL_FACTS && context.length === 0) return NO_FACT_ROWS;
  const byPredicate = new Map<string, Groups>();
  const load = (
    predicate: string,
    arity: number,
    pattern: readonly (Value | null)[],
    types: readonly (string | null)[],
  ) => {
    let key = `${predicate}\u0000${types.join("\u0001")}`;
    for (const value of pattern) key += value ? `\u0000${value.type}\u0001${value.id}` : "\u0000";
    let groups = byPredicate.get(key);
    if (groups) return groups;
    const stored = central.facts(predicate, arity, pattern, types);
    // Nothing stored and no context facts: no rows, and nothing worth keeping per array (an
    // entry per empty array answered was a weak map's churn on every local question).
    if (context.length === 0 && Array.isArray(stored) && stored.length === 0) {
      byPredicate.set(key, NO_GROUPS);
      return NO_GROUPS;
    }
    // Without context facts the groups depend on the stored array alone: keep them with it,
    // unless it is small enough to group again at once (a new user's roles: keeping those for
    // every user made each young-generation collection half as long again; bench/RESULTS.md,
    // "The stored roles of a new user").
    const kept =
      context.length === 0 && typeof stored === "object" && !fewFacts(stored)
        ? keptGroups(stored)
        : null;
    groups = kept?.get(key);
    if (!groups) {
      groups = groupFacts(predicate, arity, pattern, [stored, context]);
      if (kept) {
        if (kept.size >= MAX_KEPT_LOOKUPS) kept.clear();
        kept.set(key, groups);
      }
    }
    byPredicate.set(key, groups);
    return groups;
  };
  return (predicate, types, pattern) => {
    const used = pattern?.some((value) => value !== null) ? pattern : [];
    const groups = load(predicate, types.length, used, types);
    if (types.includes(null)) {
      const rows: Value[][] = [];
      for (const group of groups.values()) {
        const fits = types.every((type, i) => type === null || group[0]![i]!.type === type);
        if (fits) rows.push(...group);
      }
      return rows;
    }
    let key = keys.get(types);
    if (key === undefined) {
      key = types.join("\u0000");
      keys.set(types, key);
    }
    return groups.get(key) ?? [];
  };
}

/** Rows by their argument types (joined with NUL). */
type Groups = Map<string, Value[][]>;

/** No rows of any types (never changed). */
const NO_GROUPS: Groups = new Map();

/** Grouped rows per array a central source returned, by lookup. */
const groupsByStoredArray = new WeakMap<object, Map<string, Groups>>();
/** Lookups kept per array: one array may answer lookups for every actor. */
const MAX_KEPT_LOOKUPS = 4096;

/** Facts grouped again for each question rather than kept. */
const FEW_FACTS = 32;

function fewFacts(stored: Iterable<GroundFact>): boolean {
  return Array.isArray(stored) && stored.length <= FEW_FACTS;
}

function keptGroups(stored: object): Map<string, Groups> {
  let kept = groupsByStoredArray.get(stored);
  if (!kept) {
    kept = new Map();
    groupsByStoredArray.set(stored, kept);
  }
  return kept;
}

/** The distinct facts of `predicate`/`arity` matching `pattern`, as rows grouped by types. */
function groupFacts(
  predicate: string,
  arity: number,
  pattern: readonly (Value | null)[],
  sources: readonly Iterable<GroundFact>[],
): Groups {
  const groups: Groups = new Map();
  const seen = new Set<string>();
  for (const facts of sources) {
    for (const fact of facts) {
      if (fact.predicate !== predicate || fact.args.length !== arity) continue;
      const canonical = canonicalFact(fact);
      const fits = pattern.every((value, i) => {
        const arg = canonical.args[i]!;
        return value === null || (arg.type === value.type && arg.id === value.id);
      });
      if (!fits) continue;
      const identity = JSON.stringify(canonical.args);
      if (seen.has(identity)) continue;
      seen.add(identity);
      const types = canonical.args.map((arg) => arg.type).join("\u0000");
      const rows = groups.get(types) ?? [];
      rows.push([...canonical.args]);
      groups.set(types, rows);
    }
  }
  return groups;
}
