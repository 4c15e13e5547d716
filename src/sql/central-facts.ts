/**
 * Facts that are not in the caller's database: the central store and the request's context
 * facts. Local SQL inlines the ones a question can use (api-and-local-sql §5.4).
 */
import { canonicalFact } from "../check/facts.js";
import type { GroundFact, Value } from "../core/value.js";

/**
 * Where stored (central) facts come from. `facts` may ignore `pattern` and return every fact
 * of the predicate and arity; when it uses it, `pattern[i]` non-null means argument `i` must
 * equal that value.
 */
export interface CentralFacts {
  facts(
    predicate: string,
    arity: number,
    pattern?: readonly (Value | null)[],
  ): Iterable<GroundFact>;
}

/** No central facts. */
export const NO_CENTRAL_FACTS: CentralFacts = { facts: () => [] };

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
 * source.
 */
export type FactRows = (
  predicate: string,
  types: readonly (string | null)[],
) => readonly (readonly Value[])[];

/** Group keys of the type lists of plans (which live as long as their plans). */
const keys = new WeakMap<readonly (string | null)[], string>();

/**
 * Central and context facts as rows grouped by argument types; each (predicate, arity) is
 * read once per lookup object, duplicates removed.
 */
export function factRows(central: CentralFacts, context: readonly GroundFact[]): FactRows {
  const byPredicate = new Map<string, Map<string, Value[][]>>();
  const load = (predicate: string, arity: number) => {
    const key = `${predicate}/${arity}`;
    let groups = byPredicate.get(key);
    if (groups) return groups;
    groups = new Map();
    byPredicate.set(key, groups);
    const seen = new Set<string>();
    const add = (fact: GroundFact) => {
      if (fact.predicate !== predicate || fact.args.length !== arity) return;
      const canonical = canonicalFact(fact);
      const identity = JSON.stringify(canonical.args);
      if (seen.has(identity)) return;
      seen.add(identity);
      const types = canonical.args.map((arg) => arg.type).join("\u0000");
      const rows = groups!.get(types) ?? [];
      rows.push([...canonical.args]);
      groups!.set(types, rows);
    };
    for (const fact of central.facts(predicate, arity)) add(fact);
    for (const fact of context) add(fact);
    return groups;
  };
  return (predicate, types) => {
    const groups = load(predicate, types.length);
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
