/**
 * Many lookups of stored facts in one round trip (`matchingFactsOfEach`), as local questions
 * and explain ask them: the facts of one predicate and arity whose arguments equal a pattern.
 * The statement's text depends only on which columns the lookups fix, so it is built once per
 * such shape and kept; each call only encodes its values.
 */
import { type RawBuilder, sql } from "kysely";
import type { GroundFact, Value } from "../core/value.js";
import { compile } from "./compile.js";
import type { SqlExecutor } from "./executor.js";
import { type FactRow, lookupPositions, rowToFact, textArray } from "./facts.js";
import { FACT_TABLE, MAX_FACT_ARITY } from "./schema.js";

/** One `matchingFacts` read (src/store/facts.ts): see there. */
export interface FactLookup {
  readonly predicate: string;
  readonly arity: number;
  readonly pattern?: readonly (Value | null)[];
  readonly types?: readonly (string | null)[];
}

/**
 * Several `matchingFacts` reads in one round trip: the facts of each lookup, in order. The
 * lookups are grouped by the columns they fix; each group is one `SELECT` joining the fact table
 * with its lookups' values, passed as arrays (SQLite: one JSON array), so the statement's text
 * depends on which columns are fixed, never on how many lookups there are. At most
 * `GROUPS_PER_STATEMENT` groups share one statement.
 */
export async function matchingFactsOfEach(
  db: SqlExecutor,
  lookups: readonly FactLookup[],
): Promise<GroundFact[][]> {
  const found: GroundFact[][] = lookups.map(() => []);
  const groups = new Map<string, LookupGroup>();
  lookups.forEach((lookup, index) => {
    // Beyond the store's arity, or with a NUL (no stored text holds one): nothing to find.
    if (lookup.arity > MAX_FACT_ARITY || holdsNul(lookup)) return;
    const { predicate, arity, pattern = [], types = [] } = lookup;
    const fixed: string[] = [];
    const values: string[] = [];
    for (const { position, type, id } of lookupPositions(arity, pattern, types)) {
      if (id != null) {
        fixed.push(`i${position}`);
        values.push(id);
      }
      if (type != null) {
        fixed.push(`t${position}`);
        values.push(type);
      }
    }
    const key = fixed.join(",");
    let group = groups.get(key);
    if (!group) {
      group = { columns: fixed, rows: [], arity: 0 };
      groups.set(key, group);
    }
    group.rows.push([String(index), predicate, String(arity), ...values]);
    group.arity = Math.max(group.arity, arity);
  });
  const all = [...groups.values()];
  for (let start = 0; start < all.length; start += GROUPS_PER_STATEMENT) {
    const { text, values } = lookupStatement(
      db.engine,
      all.slice(start, start + GROUPS_PER_STATEMENT),
    );
    // A prepared statement: the same columns fixed for other values reuse its plan.
    const rows = await db.prepared<FactRow>(text, values);
    for (const row of rows) {
      const [lookup, fact] = foundFact(row);
      found[lookup]!.push(fact);
    }
  }
  return found;
}

/** A row of lookupStatement (a JSON array `fact` on SQLite) as its lookup's index and fact. */
function foundFact(row: FactRow): [number, GroundFact] {
  if (typeof row.fact !== "string") return [Number(row.lookup), rowToFact(row)];
  // SQLite: `[lookup, predicate, arity, t0, i0, …]` (see lookupStatement).
  const [lookup, predicate, arity, ...pairs] = JSON.parse(row.fact) as [
    number,
    string,
    number,
    ...string[],
  ];
  const args: Value[] = [];
  for (let i = 0; i < arity; i++) args.push({ type: pairs[2 * i]!, id: pairs[2 * i + 1]! });
  return [lookup, { predicate, args }];
}

/** Lookups that fix the same columns: a row per lookup, `[index, predicate, arity, …values]`. */
interface LookupGroup {
  readonly columns: readonly string[];
  readonly rows: string[][];
  /** The largest arity of its lookups: the argument columns worth reading. */
  arity: number;
}

/** Groups of lookups per statement: far below SQLite's 500 terms of a compound `SELECT`. */
const GROUPS_PER_STATEMENT = 50;

function holdsNul(lookup: FactLookup): boolean {
  const nul = (text: string | null | undefined) => text?.includes("\u0000") ?? false;
  return (
    nul(lookup.predicate) ||
    (lookup.pattern ?? []).some((value) => nul(value?.type) || nul(value?.id)) ||
    (lookup.types ?? []).some(nul)
  );
}

/** Statement texts by shape (engine, width, each group's columns); bounded, cleared when full. */
const texts = new Map<string, string>();
const TEXTS_KEPT = 500;

/**
 * The statement for `groups`: its text, built once per shape, and this call's values in the
 * order the text binds them. Building and compiling the text took as long as running it on
 * SQLite (30 µs for three lookups).
 */
function lookupStatement(
  engine: SqlExecutor["engine"],
  groups: readonly LookupGroup[],
): { text: string; values: string[] } {
  const width = Math.max(...groups.map((group) => group.arity));
  const valuesOf = groups.map((group) => groupValues(engine, group));
  const shape = `${engine} ${width} ${groups.map((group) => group.columns.join(",")).join(" ")}`;
  let text = texts.get(shape);
  if (text === undefined) {
    text = compile(engine, lookupSql(engine, groups, valuesOf, width)).sql;
    if (texts.size >= TEXTS_KEPT) texts.clear();
    texts.set(shape, text);
  }
  return { text, values: valuesOf.flat() };
}

/**
 * A group's values as the statement binds them: one JSON array of its rows on SQLite; on
 * PostgreSQL one array literal per column (index, predicate, arity, then the fixed columns).
 */
function groupValues(engine: SqlExecutor["engine"], { rows }: LookupGroup): string[] {
  if (engine === "sqlite") {
    const json = rows.map(([index, predicate, arity, ...values]) => [
      Number(index),
      predicate,
      Number(arity),
      ...values,
    ]);
    return [JSON.stringify(json)];
  }
  return rows[0]!.map((_, column) => textArray(rows.map((row) => row[column]!)));
}

/**
 * One `SELECT` per group, joined by `UNION ALL`: the group's rows as a table (`unnest` of one
 * array per column; SQLite: `json_each` of one JSON array of rows) driving indexed reads of the
 * fact table. Each row found carries its lookup's index and the argument columns up to the
 * largest arity asked, not the key and the empty columns; SQLite packs them into one JSON array
 * (`fact`). Both cut a lookup's time on SQLite by nearly two thirds (56 → 21 µs of CPU for
 * two lookups; bench/RESULTS.md, "The stored roles of a new user"): better-sqlite3 spends
 * most of a small statement building one object per row, a property per column.
 */
function lookupSql(
  engine: SqlExecutor["engine"],
  groups: readonly LookupGroup[],
  valuesOf: readonly (readonly string[])[],
  width: number,
): RawBuilder<FactRow> {
  const fact = sql.table(FACT_TABLE);
  const read = sql.raw(
    ["predicate", "arity", ...Array.from({ length: width }, (_, i) => [`t${i}`, `i${i}`]).flat()]
      .map((column) => `f.${column}`)
      .join(", "),
  );
  const selects = groups.map(({ columns }, g) => {
    const values = valuesOf[g]!;
    // Column names and positions the store chose, never a caller's: bare text.
    const conditions = ["predicate", "arity", ...columns];
    const on = (key: (i: number) => string) =>
      sql.raw(conditions.map((column, i) => `f.${column} = ${key(i)}`).join(" AND "));
    if (engine === "sqlite") {
      return sql`SELECT json_array(k.value ->> 0, ${read}) AS fact FROM json_each(${values[0]}) AS k
        CROSS JOIN ${fact} AS f ON ${on((i) => `k.value ->> ${i + 1}`)}`;
    }
    const names = ["n", "p", "a", ...columns.map((_, i) => `c${i}`)];
    const arrays = names.map((name, i) => {
      if (name === "n") return sql`CAST(${values[i]} AS integer[])`;
      if (name === "a") return sql`CAST(${values[i]} AS smallint[])`;
      return sql`CAST(${values[i]} AS text[])`;
    });
    const alias = sql.raw(names.join(", "));
    return sql`SELECT k.n AS lookup, ${read} FROM unnest(${sql.join(arrays)}) AS k(${alias})
      JOIN ${fact} AS f ON ${on((i) => `k.${names[i + 1]}`)}`;
  });
  return sql.join(selects, sql`\nUNION ALL\n`).$castTo<FactRow>();
}
