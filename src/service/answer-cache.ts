/**
 * Answers of central questions kept for one data version. The key is the prepared statement
 * itself, its text and parameter values: the policy, the question, its context facts and the
 * clock (builtins are parameters) all show in one or the other, so two requests
 * with one key have one answer while the facts stay the same. Any write makes a new data
 * version, and the first question at a new version drops everything kept
 * (docs/operations.md#several-instances: how an instance learns of other instances' writes).
 *
 *   const cache = createAnswerCache();
 *   const rows = cache.get(version, sql, parameters) ?? cache.put(version, sql, parameters, await query());
 */

export interface AnswerCacheLimits {
  /** Kept answers in all; past it everything is dropped. */
  readonly entries: number;
  /** Kept rows in all (an answer of more rows than this is not kept). */
  readonly rows: number;
}

const DEFAULT_ANSWER_CACHE: AnswerCacheLimits = { entries: 20_000, rows: 200_000 };

export interface AnswerCache {
  /** The rows kept for this statement at this data version, if any. */
  get<Row>(version: number, sql: string, parameters: readonly string[]): Row[] | undefined;
  /**
   * Keeps `rows` unless a newer version was seen meanwhile (an answer read around a write
   * may belong to either version: it is not kept). Returns `rows`.
   */
  put<Row>(version: number, sql: string, parameters: readonly string[], rows: Row[]): Row[];
}

export function createAnswerCache(limits: AnswerCacheLimits = DEFAULT_ANSWER_CACHE): AnswerCache {
  let at = -1;
  // By statement text (few: one per question shape), then by parameter values.
  let byText = new Map<string, Map<string, unknown[]>>();
  let entries = 0;
  let rows = 0;

  function moveTo(version: number): boolean {
    if (version < at) return false;
    if (version > at) {
      at = version;
      byText = new Map();
      entries = 0;
      rows = 0;
    }
    return true;
  }

  const valuesKey = (parameters: readonly string[]) => JSON.stringify(parameters);

  return {
    get<Row>(version: number, sql: string, parameters: readonly string[]) {
      if (!moveTo(version)) return undefined;
      return byText.get(sql)?.get(valuesKey(parameters)) as Row[] | undefined;
    },
    put<Row>(version: number, sql: string, parameters: readonly string[], found: Row[]) {
      if (!moveTo(version) || found.length > limits.rows) return found;
      if (entries >= limits.entries || rows + found.length > limits.rows) {
        byText = new Map();
        entries = 0;
        rows = 0;
      }
      let byValues = byText.get(sql);
      if (!byValues) {
        byValues = new Map();
        byText.set(sql, byValues);
      }
      const key = valuesKey(parameters);
      if (!byValues.has(key)) {
        entries++;
        rows += found.length;
      }
      byValues.set(key, found);
      return found;
    },
  };
}
