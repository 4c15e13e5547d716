/**
 * The tables of one family's iteration, temporary and dropped at commit: `full` holds every
 * row found so far, `delta` the rows new in the last round, `next` what the current round
 * derives. A row is the predicate key (`path/2`) and a (type, id) text pair per argument, as
 * in the fact table (store/schema.ts). Rules read them through data bindings, one per
 * argument-type shape, like the fact table's (store/bindings.ts).
 */
import type { OperationNode } from "kysely";
import type { Binding } from "../bindings/types.js";
import type { PredicateKey } from "../check/program.js";
import type { Value } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { valueNode } from "../lower/sql-value.js";
import { printTree } from "../print/printer.js";
import { binary, columnRef, conjunction, select, table } from "../sql/nodes.js";
import { storedArgument } from "../store/bindings.js";
import { placeholders } from "../store/executor.js";
import { splitKey } from "./families.js";

/** Argument types of rows of one predicate of a family. */
export interface RowShape {
  readonly predicate: PredicateKey;
  readonly types: readonly string[];
}

export interface FamilyTables {
  readonly full: string;
  readonly delta: string;
  readonly next: string;
  /** Argument columns: the largest arity of the family. */
  readonly width: number;
}

export function familyTables(index: number, width: number): FamilyTables {
  return {
    full: `polar_fix_full_${index}`,
    delta: `polar_fix_delta_${index}`,
    next: `polar_fix_next_${index}`,
    width,
  };
}

/** `predicate, t0, i0, …` */
function rowColumns(tables: FamilyTables): string[] {
  const columns = ["predicate"];
  for (let i = 0; i < tables.width; i++) columns.push(`t${i}`, `i${i}`);
  return columns;
}

function sqliteStore(dialect: Dialect): boolean {
  return dialect.name === "sqlite";
}

/**
 * The statements creating the three tables (inside the caller's transaction). PostgreSQL
 * drops them at commit; SQLite, which cannot, drops them in `dropTables`.
 */
export function createTables(dialect: Dialect, tables: FamilyTables): string[] {
  const columns = rowColumns(tables)
    .map((c) => `${c} text NOT NULL DEFAULT ''`)
    .join(", ");
  const names = [tables.full, tables.delta, tables.next];
  if (!sqliteStore(dialect)) {
    return names.map((name) => `CREATE TEMPORARY TABLE ${name} (${columns}) ON COMMIT DROP`);
  }
  return names.flatMap((name) => [
    `DROP TABLE IF EXISTS temp.${name}`,
    `CREATE TEMPORARY TABLE ${name} (${columns})`,
  ]);
}

/**
 * Session settings while an iteration runs, and after: SQLite joins the round's tables, which
 * have no index, through automatic indexes, which the store otherwise leaves off
 * (src/store/sqlite-connection.ts): 80 nodes of a transitive closure took 3 s without.
 */
export function iterationSettings(dialect: Dialect): { during: string[]; after: string[] } {
  if (!sqliteStore(dialect)) return { during: [], after: [] };
  return { during: ["PRAGMA automatic_index = ON"], after: ["PRAGMA automatic_index = OFF"] };
}

/** The statements dropping the tables before commit, where commit does not. */
export function dropTables(dialect: Dialect, tables: FamilyTables): string[] {
  if (!sqliteStore(dialect)) return [];
  return [tables.full, tables.delta, tables.next].map((name) => `DROP TABLE temp.${name}`);
}

function equals(name: string, column: string, text: string): OperationNode {
  return binary(
    columnRef(name, column),
    "=",
    valueNode(
      { kind: "literal", value: { type: "String", id: text } satisfies Value },
      undefined,
      false,
    ),
  );
}

/**
 * A binding reading the rows of `shape` in table `name`, for predicate `as` (the predicate
 * itself for `full`, its delta name for `delta`).
 */
export function tableBinding(dialect: Dialect, name: string, shape: RowShape, as: string): Binding {
  const { types } = shape;
  const node = select({
    selections: types.map((type, i) => storedArgument(dialect, name, type, i)),
    from: [table(name)],
    where: conjunction([
      equals(name, "predicate", shape.predicate),
      ...types.map((type, i) => equals(name, `t${i}`, type)),
    ]),
  });
  const runtime = { params: new Map(), now: 0n };
  const query = printTree(dialect, node, { kind: "literals", runtime }, new Set()).sql;
  return {
    signature: `${as}(${types.map((t) => `${t}:_`).join(", ")})`,
    predicate: as,
    slots: types.map((type) => ({ kind: "column", type })),
    query,
    line: 0,
    scan: null,
  };
}

/**
 * `INSERT INTO next …` the answers of `sql` (columns `c0`, `c1`, …) as rows of `shape`.
 */
export function insertAnswers(
  dialect: Dialect,
  tables: FamilyTables,
  shape: RowShape,
  sql: string,
): string {
  const text = (id: string) => dialect.literal({ type: "String", id }, undefined, false);
  const values = [text(shape.predicate)];
  const { arity } = splitKey(shape.predicate);
  for (let i = 0; i < tables.width; i++) {
    if (i >= arity) {
      values.push("''", "''");
      continue;
    }
    const type = shape.types[i]!;
    // Stored as in the fact table: SQLite's booleans are 1/0, stored as `true`/`false`.
    const id =
      type === "Boolean" && sqliteStore(dialect)
        ? `CASE WHEN q.c${i} THEN 'true' ELSE 'false' END`
        : `CAST(q.c${i} AS text)`;
    values.push(text(type), id);
  }
  return `INSERT INTO ${tables.next} (${rowColumns(tables).join(", ")})
SELECT ${values.join(", ")} FROM (${sql}) AS q`;
}

/** `INSERT INTO next …` the stored facts of a predicate of the family. */
export function insertStoredFacts(
  dialect: Dialect,
  tables: FamilyTables,
  factTable: string,
  predicate: PredicateKey,
): { sql: string; params: unknown[] } {
  const { name, arity } = splitKey(predicate);
  const [p1, p2, p3] = placeholders(sqliteStore(dialect) ? "sqlite" : "postgres", 3);
  const values = [`CAST(${p1} AS text)`];
  for (let i = 0; i < tables.width; i++) {
    if (i < arity) values.push(`t${i}`, `i${i}`);
    else values.push("''", "''");
  }
  return {
    sql: `INSERT INTO ${tables.next} (${rowColumns(tables).join(", ")})
SELECT ${values.join(", ")} FROM ${factTable} WHERE predicate = CAST(${p2} AS text) AND arity = CAST(${p3} AS smallint)`,
    params: [predicate, name, arity],
  };
}

/**
 * The end of a round: the rows of `next` not yet in `full` become `delta` and join `full`;
 * `next` is emptied.
 */
export function closeRound(dialect: Dialect, tables: FamilyTables): string[] {
  const { full, delta, next } = tables;
  const sqlite = sqliteStore(dialect);
  const empty = (name: string) => (sqlite ? `DELETE FROM ${name}` : `TRUNCATE ${name}`);
  return [
    empty(delta),
    `INSERT INTO ${delta} SELECT DISTINCT * FROM ${next} EXCEPT SELECT * FROM ${full}`,
    `INSERT INTO ${full} SELECT * FROM ${delta}`,
    empty(next),
    // Fresh tables have no statistics: PostgreSQL would guess one row after the filters and
    // join the round's tables by nested loops over full scans (seconds at a few thousand rows).
    ...(sqlite ? [`ANALYZE temp.${full}`, `ANALYZE temp.${delta}`] : [`ANALYZE ${full}, ${delta}`]),
  ];
}
