/**
 * Reading and writing facts in the fact table. Callers validate facts against the policy first;
 * this layer only maps them to rows. Every write runs inside the caller's transaction.
 */
import { createHash } from "node:crypto";
import { type RawBuilder, sql } from "kysely";
import type { GroundFact, Value } from "../core/value.js";
import { run, runPrepared } from "./compile.js";
import type { SqlExecutor } from "./executor.js";
import { FACT_TABLE, MAX_FACT_ARITY, SHAPE_TABLE } from "./schema.js";
import {
  deleteMatchingStatement,
  factArraysStatement,
  matchingRowsStatement,
  type PositionCondition,
} from "./statements.js";

/** A value pattern: null type matches any value, null id any id of that type. */
export interface ValuePattern {
  readonly type: string | null;
  readonly id: string | null;
}

/** Matches facts with this predicate and exactly `args.length` arguments. */
export interface FactPattern {
  readonly predicate: string;
  readonly args: readonly ValuePattern[];
}

/**
 * `GET /facts`: the arity is not given; a fact matches when every mentioned position exists
 * and matches.
 */
export interface SparseFactPattern {
  readonly predicate: string;
  readonly positions: ReadonlyMap<number, Partial<ValuePattern>>;
}

function factKey(fact: GroundFact): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([fact.predicate, ...fact.args.flatMap((a) => [a.type, a.id])]));
  return hash.digest("base64url");
}

const ROWS_PER_STATEMENT = 5000;
const insertColumns = [
  "fact_key",
  "predicate",
  "arity",
  ...Array.from({ length: MAX_FACT_ARITY }, (_, i) => [`t${i}`, `i${i}`]).flat(),
];
const fact = sql.table(FACT_TABLE);
const shapeTable = sql.table(SHAPE_TABLE);
const insertColumnList = sql.join(insertColumns.map((column) => sql.id(column)));

/** Rows given as one array per column. */
function insertStatement(columns: readonly unknown[][]): RawBuilder<unknown> {
  const arrays = columns.map((values, i) =>
    insertColumns[i] === "arity" ? sql`${values}::smallint[]` : sql`${values}::text[]`,
  );
  return sql`INSERT INTO ${fact} (${insertColumnList})
SELECT * FROM unnest(${sql.join(arrays)})
ON CONFLICT (fact_key) DO NOTHING`;
}

/** SQLite: the same rows from one JSON array of rows (`json_each`), in column order. */
function sqliteInsertStatement(rows: string): RawBuilder<unknown> {
  const values = insertColumns.map((_, i) => sql`value ->> ${sql.lit(i)}`);
  return sql`INSERT OR IGNORE INTO ${fact} (${insertColumnList})
SELECT ${sql.join(values)} FROM json_each(${rows})`;
}

/** Predicate and argument types of stored facts: what central questions can read. */
export interface FactShape {
  readonly predicate: string;
  readonly types: readonly string[];
}

/** Inserts facts (a set: existing facts are left alone) and records their shapes. */
export async function insertFacts(db: SqlExecutor, facts: readonly GroundFact[]): Promise<void> {
  const shapes = new Map<string, FactShape>();
  for (const fact of facts) {
    const types = fact.args.map((arg) => arg.type);
    shapes.set(JSON.stringify([fact.predicate, types]), { predicate: fact.predicate, types });
  }
  if (shapes.size > 0 && db.engine === "sqlite") {
    // The types as JSON text: shapes are compared and read back as that text.
    const rows = [...shapes.values()].map((s) => [s.predicate, JSON.stringify(s.types)]);
    await run(
      db,
      sql`INSERT OR IGNORE INTO ${shapeTable} (predicate, types)
        SELECT value ->> 0, value ->> 1 FROM json_each(${JSON.stringify(rows)})`,
    );
  } else if (shapes.size > 0) {
    const list = [...shapes.values()];
    const predicates = list.map((s) => s.predicate);
    const types = list.map((s) => JSON.stringify(s.types));
    await run(
      db,
      sql`INSERT INTO ${shapeTable} (predicate, types)
        SELECT s.predicate, ARRAY(SELECT json_array_elements_text(s.types::json))
        FROM unnest(${predicates}::text[], ${types}::text[]) AS s(predicate, types)
        ON CONFLICT DO NOTHING`,
    );
  }
  for (let start = 0; start < facts.length; start += ROWS_PER_STATEMENT) {
    const chunk = facts.slice(start, start + ROWS_PER_STATEMENT);
    const columns: unknown[][] = insertColumns.map(() => []);
    const seen = new Set<string>();
    for (const fact of chunk) {
      const key = factKey(fact);
      // unnest + ON CONFLICT rejects a key twice in one statement; drop in-batch repeats.
      if (seen.has(key)) continue;
      seen.add(key);
      columns[0]!.push(key);
      columns[1]!.push(fact.predicate);
      columns[2]!.push(fact.args.length);
      for (let i = 0; i < MAX_FACT_ARITY; i++) {
        const arg = fact.args[i];
        columns[3 + 2 * i]!.push(arg?.type ?? "");
        columns[4 + 2 * i]!.push(arg?.id ?? "");
      }
    }
    if (db.engine === "sqlite") {
      const rows = columns[0]!.map((_, row) => columns.map((column) => column[row]));
      await run(db, sqliteInsertStatement(JSON.stringify(rows)));
    } else {
      await run(db, insertStatement(columns));
    }
  }
}

/** Deletes every fact matching the pattern; returns how many. */
export async function deleteFacts(db: SqlExecutor, pattern: FactPattern): Promise<number> {
  const positions = pattern.args.map((arg, position) => ({ position, ...arg }));
  const statement = deleteMatchingStatement(
    db.engine,
    pattern.predicate,
    pattern.args.length,
    positions,
  );
  const rows = await db.query<{ n: number }>(statement.sql, statement.parameters);
  return db.engine === "sqlite" ? rows.length : (rows[0]?.n ?? 0);
}

/**
 * Deletes exactly these facts (patterns without wildcards) in one statement, by key; returns
 * how many were stored.
 */
export async function deleteExactFacts(
  db: SqlExecutor,
  facts: readonly GroundFact[],
): Promise<number> {
  if (facts.length === 0) return 0;
  if (db.engine === "sqlite") {
    const keys = JSON.stringify(facts.map(factKey));
    const gone = await run(
      db,
      sql`DELETE FROM ${fact} WHERE fact_key IN (SELECT value FROM json_each(${keys})) RETURNING 1`,
    );
    return gone.length;
  }
  const rows = await run(
    db,
    sql<{ n: number }>`WITH gone AS (
        DELETE FROM ${fact} WHERE fact_key = ANY(${facts.map(factKey)}::text[]) RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]?.n ?? 0;
}

/** The pattern as a fact when it has no wildcard. */
export function exactFact(pattern: FactPattern): GroundFact | null {
  const args: Value[] = [];
  for (const arg of pattern.args) {
    if (arg.type === null || arg.id === null) return null;
    args.push({ type: arg.type, id: arg.id });
  }
  return { predicate: pattern.predicate, args };
}

/** A fact table row as the engines return it. */
export type FactRow = Record<string, string | number>;

export function rowToFact(row: FactRow): GroundFact {
  const arity = Number(row.arity);
  const args: Value[] = [];
  for (let i = 0; i < arity; i++)
    args.push({ type: String(row[`t${i}`]), id: String(row[`i${i}`]) });
  return { predicate: String(row.predicate), args };
}

/** Stored facts matching a sparse pattern, in a stable order. */
export async function readFacts(
  db: SqlExecutor,
  pattern: SparseFactPattern,
): Promise<GroundFact[]> {
  let minArity = 0;
  const positions: PositionCondition[] = [];
  for (const [position, arg] of pattern.positions) {
    if (position >= MAX_FACT_ARITY) return [];
    minArity = Math.max(minArity, position + 1);
    positions.push({ position, ...arg });
  }
  const statement = factArraysStatement(
    db.engine,
    pattern.predicate,
    minArity,
    positions,
    MAX_FACT_ARITY,
  );
  const rows = await db.query<{ fact: string }>(statement.sql, statement.parameters);
  return rows.map(({ fact }) => {
    const [arity, ...pairs] = JSON.parse(fact) as [number, ...string[]];
    const args: Value[] = [];
    for (let i = 0; i < arity; i++) args.push({ type: pairs[2 * i]!, id: pairs[2 * i + 1]! });
    return { predicate: pattern.predicate, args };
  });
}

/**
 * Up to `limit` stored facts in fact-key order after the key `after` (null: from the start),
 * each with its key: paging by the last key shows every fact on exactly one page.
 */
export async function factsAfter(
  db: SqlExecutor,
  after: string | null,
  limit: number,
): Promise<{ key: string; fact: GroundFact }[]> {
  const rows = await run(
    db,
    sql<FactRow & { fact_key: string }>`SELECT * FROM ${fact}
      WHERE fact_key > ${after ?? ""} ORDER BY fact_key LIMIT ${limit}`,
  );
  return rows.map((row) => ({ key: row.fact_key, fact: rowToFact(row) }));
}

export async function clearFacts(db: SqlExecutor): Promise<void> {
  await run(db, sql`DELETE FROM ${fact}`);
  await run(db, sql`DELETE FROM ${shapeTable}`);
}

/** Stored `has_role` facts, `has_relation` facts, and all facts. */
export async function countFacts(
  db: SqlExecutor,
): Promise<{ roles: number; relations: number; facts: number }> {
  const [row] = await run(
    db,
    sql<{ roles: string; relations: string; facts: string }>`SELECT
        count(*) FILTER (WHERE predicate = 'has_role') AS roles,
        count(*) FILTER (WHERE predicate = 'has_relation') AS relations,
        count(*) AS facts
      FROM ${fact}`,
  );
  return {
    roles: Number(row?.roles),
    relations: Number(row?.relations),
    facts: Number(row?.facts),
  };
}

export async function readShapes(db: SqlExecutor): Promise<FactShape[]> {
  if (db.engine === "sqlite") {
    const rows = await run(
      db,
      sql<{ predicate: string; types: string }>`SELECT predicate, types FROM ${shapeTable}
        ORDER BY predicate, json_array_length(types), types`,
    );
    return rows.map((row) => ({ predicate: row.predicate, types: JSON.parse(row.types) }));
  }
  return run(
    db,
    sql<FactShape>`SELECT predicate, types FROM ${shapeTable}
      ORDER BY predicate, array_length(types, 1), types`,
  );
}

/**
 * Stored facts of one predicate and arity whose arguments equal `pattern` where it is not null.
 * Uses the per-position indexes.
 */
export async function matchingFacts(
  db: SqlExecutor,
  predicate: string,
  arity: number,
  pattern: readonly (Value | null)[] = [],
  types: readonly (string | null)[] = [],
): Promise<GroundFact[]> {
  if (arity > MAX_FACT_ARITY) return [];
  const statement = matchingRowsStatement(
    db.engine,
    predicate,
    arity,
    lookupPositions(arity, pattern, types),
  );
  const rows = await db.query<FactRow>(statement.sql, statement.parameters);
  return rows.map(rowToFact);
}

/** A fixed value where the pattern has one, else a fixed type where `types` has one. */
export function lookupPositions(
  arity: number,
  pattern: readonly (Value | null)[],
  types: readonly (string | null)[],
): PositionCondition[] {
  const positions: PositionCondition[] = [];
  for (let position = 0; position < arity; position++) {
    const value = pattern[position];
    if (value) positions.push({ position, type: value.type, id: value.id });
    else if (types[position]) positions.push({ position, type: types[position] });
  }
  return positions;
}

/**
 * The `has_relation/3` facts of every value reachable from `seeds` by following relations from
 * their first argument to their last (a resource's folder, its parent, its parent's
 * organization, …), for at most `limit` values, by value key (`type\0id`): each listed value
 * with all of its relations (none is an answer too).
 */
export async function relationClosure(
  db: SqlExecutor,
  seeds: readonly Value[],
  limit: number,
): Promise<Map<string, GroundFact[]>> {
  const relation = sql`f.predicate = 'has_relation' AND f.arity = 3`;
  const seedRows = () => {
    if (db.engine === "sqlite") {
      const pairs = JSON.stringify(seeds.map((s) => [s.type, s.id]));
      return sql`SELECT value ->> 0, value ->> 1 FROM json_each(${pairs})`;
    }
    const types = textArray(seeds.map((s) => s.type));
    const ids = textArray(seeds.map((s) => s.id));
    return sql`SELECT * FROM unnest(CAST(${types} AS text[]), CAST(${ids} AS text[]))`;
  };
  const rows = await runPrepared(
    db,
    sql<FactRow & { st: string; si: string }>`WITH RECURSIVE reach(t, i) AS (
       ${seedRows()}
       UNION
       SELECT f.t2, f.i2 FROM reach r JOIN ${fact} f ON ${relation} AND f.i0 = r.i AND f.t0 = r.t
     ), subjects AS (SELECT t, i FROM reach LIMIT CAST(${String(limit)} AS integer))
     SELECT s.t AS st, s.i AS si, f.* FROM subjects s
       LEFT JOIN ${fact} f ON ${relation} AND f.i0 = s.i AND f.t0 = s.t`,
  );
  const found = new Map<string, GroundFact[]>();
  for (const row of rows) {
    const key = `${row.st}\u0000${row.si}`;
    const facts = found.get(key) ?? [];
    if (row.predicate !== null && row.predicate !== undefined) facts.push(rowToFact(row));
    found.set(key, facts);
  }
  return found;
}

/** A PostgreSQL array literal of text values: `{"a","b \\"c\\""}`. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}
