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
  const now = db.readNow ? readEachNow(db.readNow, lookups) : null;
  if (now) return now;
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
  const read = factColumns(width);
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

/** Index prefixes one read on the calling thread may seek, and rows it may read in all. */
const NOW_PREFIXES = 8;
const NOW_ROWS = 64;
/** The argument positions the fact table indexes (src/store/schema.ts). */
const INDEXED_POSITIONS = 3;

/**
 * The lookups answered by one read on the calling thread (`SqlExecutor.readNow`), or null
 * when they are not all bounded by an index or found too much (a store thread reads them
 * then). Each lookup that fixes a value at an indexed position reads every fact of that index
 * prefix (predicate, arity, the value), up to `NOW_ROWS` in all, so the read never scans more
 * than it returns; the lookup's other conditions are tested here.
 */
function readEachNow(
  readNow: NonNullable<SqlExecutor["readNow"]>,
  lookups: readonly FactLookup[],
): GroundFact[][] | null {
  const prefixes = new Map<string, { readonly row: unknown[]; readonly lookups: number[] }>();
  const positions = new Set<number>();
  let width = 0;
  for (const [index, lookup] of lookups.entries()) {
    if (lookup.arity > MAX_FACT_ARITY || holdsNul(lookup)) continue;
    const pattern = lookup.pattern ?? [];
    const position = pattern.findIndex((value, i) => value && i < INDEXED_POSITIONS);
    if (position < 0 || position >= lookup.arity) return null;
    const value = pattern[position]!;
    const key = JSON.stringify([lookup.predicate, lookup.arity, position, value.type, value.id]);
    let prefix = prefixes.get(key);
    if (!prefix) {
      if (prefixes.size >= NOW_PREFIXES) return null;
      const row = [prefixes.size, lookup.predicate, lookup.arity, value.id, value.type, position];
      prefix = { row, lookups: [] };
      prefixes.set(key, prefix);
    }
    prefix.lookups.push(index);
    positions.add(position);
    width = Math.max(width, lookup.arity);
  }
  const found: GroundFact[][] = lookups.map(() => []);
  if (prefixes.size === 0) return found;
  const byPosition = [...positions].sort();
  const values = byPosition.map((position) =>
    JSON.stringify([...prefixes.values()].map((p) => p.row).filter((row) => row[5] === position)),
  );
  const rows = readNow(readNowText(byPosition, width), values) as FactRow[] | null;
  if (!rows || rows.length > NOW_ROWS) return null;
  const byRow = [...prefixes.values()];
  for (const row of rows) {
    const [prefix, fact] = foundFact(row);
    for (const index of byRow[prefix]!.lookups) {
      if (matches(fact, lookups[index]!)) found[index]!.push(fact);
    }
  }
  return found;
}

/** Whether `fact` is one `lookup` asks for (what its statement would test). */
function matches(fact: GroundFact, lookup: FactLookup): boolean {
  if (fact.predicate !== lookup.predicate || fact.args.length !== lookup.arity) return false;
  return lookupPositions(lookup.arity, lookup.pattern ?? [], lookup.types ?? []).every(
    ({ position, type, id }) => {
      const arg = fact.args[position]!;
      return (type == null || arg.type === type) && (id == null || arg.id === id);
    },
  );
}

/**
 * The read of every fact under some index prefixes: per position, a JSON array of rows
 * `[prefix, predicate, arity, id, type, position]` driving that position's index, each fact
 * as `[prefix, predicate, arity, t0, i0, …]`, at most one row past `NOW_ROWS`.
 */
function readNowText(positions: readonly number[], width: number): string {
  const shape = `now ${width} ${positions.join(",")}`;
  let text = texts.get(shape);
  if (text !== undefined) return text;
  const selects = positions.map(
    (p) => sql`SELECT json_array(k.value ->> 0, ${factColumns(width)}) AS fact
      FROM json_each(${sql.raw("?")}) AS k CROSS JOIN ${sql.table(FACT_TABLE)} AS f
      ON ${sql.raw(`f.predicate = k.value ->> 1 AND f.arity = k.value ->> 2 AND f.i${p} = k.value ->> 3 AND f.t${p} = k.value ->> 4`)}`,
  );
  text = compile(
    "sqlite",
    sql`${sql.join(selects, sql`\nUNION ALL\n`)}\nLIMIT ${sql.lit(NOW_ROWS + 1)}`,
  ).sql;
  if (texts.size >= TEXTS_KEPT) texts.clear();
  texts.set(shape, text);
  return text;
}

/** `f.predicate, f.arity, f.t0, f.i0, …` up to argument `width - 1`: what a found row reads. */
function factColumns(width: number): RawBuilder<unknown> {
  const args = Array.from({ length: width }, (_, i) => `f.t${i}, f.i${i}`);
  return sql.raw(["f.predicate", "f.arity", ...args].join(", "));
}
