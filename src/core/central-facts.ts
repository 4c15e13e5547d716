/**
 * Facts that are not in the caller's database: the central store's. Local SQL inlines the ones
 * a question can use; the bindings checker asks whether some fact can come from here.
 */
import type { GroundFact, Value } from "./value.js";

/**
 * Where stored (central) facts come from. `facts` may ignore `pattern` and `types` and return
 * every fact of the predicate and arity; when it uses them, `pattern[i]` non-null means
 * argument `i` must equal that value, and `types[i]` non-null that it has that type. A
 * lookup's facts include those of every narrower lookup: printed texts are reused on that
 * basis. A source that answers some lookups empty only because it has not loaded them yet
 * says so with `complete`. A source may return the same array for a lookup again as long as
 * its facts have not changed, and must then not change that array: what is derived from it
 * (rows grouped by types, printed VALUES) is kept per array.
 */
export interface CentralFacts {
  facts(
    predicate: string,
    arity: number,
    pattern?: readonly (Value | null)[],
    types?: readonly (string | null)[],
  ): Iterable<GroundFact>;
  /**
   * False after some lookup was answered empty for want of loading (default: true). The
   * caller then loads those lookups and asks again: printing stops once the question's
   * lookups are known and answers an empty statement, which must not be used.
   */
  complete?(): boolean;
}

/** No central facts. */
export const NO_CENTRAL_FACTS: CentralFacts = { facts: () => [] };
