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
import { binary, cast, columnRef, conjunction, select, table } from "../lower/nodes.js";
import { valueNode } from "../lower/sql-value.js";
import { postgres } from "../print/postgres.js";
import { quoteString } from "../print/postgres-literal.js";
import { printTree } from "../print/printer.js";
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
export function rowColumns(tables: FamilyTables): string[] {
  const columns = ["predicate"];
  for (let i = 0; i < tables.width; i++) columns.push(`t${i}`, `i${i}`);
  return columns;
}

/** The statements creating the three tables (inside the caller's transaction). */
export function createTables(tables: FamilyTables): string[] {
  const columns = rowColumns(tables)
    .map((c) => `${c} text NOT NULL DEFAULT ''`)
    .join(", ");
  return [tables.full, tables.delta, tables.next].map(
    (name) => `CREATE TEMPORARY TABLE ${name} (${columns}) ON COMMIT DROP`,
  );
}

function argument(name: string, type: string, index: number): OperationNode {
  const node = columnRef(name, `i${index}`);
  if (type === "Integer") return cast(node, "bigint");
  if (type === "Boolean") return cast(node, "boolean");
  return node;
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
export function tableBinding(name: string, shape: RowShape, as: string): Binding {
  const { types } = shape;
  const node = select({
    selections: types.map((type, i) => argument(name, type, i)),
    from: [table(name)],
    where: conjunction([
      equals(name, "predicate", shape.predicate),
      ...types.map((type, i) => equals(name, `t${i}`, type)),
    ]),
  });
  const runtime = { params: new Map(), now: 0n };
  const query = printTree(postgres, node, { kind: "literals", runtime }, new Set()).sql;
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
export function insertAnswers(tables: FamilyTables, shape: RowShape, sql: string): string {
  const values = [quoteString(shape.predicate)];
  const { arity } = splitKey(shape.predicate);
  for (let i = 0; i < tables.width; i++) {
    if (i < arity) values.push(quoteString(shape.types[i]!), `CAST(q.c${i} AS text)`);
    else values.push("''", "''");
  }
  return `INSERT INTO ${tables.next} (${rowColumns(tables).join(", ")})
SELECT ${values.join(", ")} FROM (${sql}) AS q`;
}

/** `INSERT INTO next …` the stored facts of a predicate of the family. */
export function insertStoredFacts(
  tables: FamilyTables,
  factTable: string,
  predicate: PredicateKey,
): { sql: string; params: unknown[] } {
  const { name, arity } = splitKey(predicate);
  const values = ["CAST($1 AS text)"];
  for (let i = 0; i < tables.width; i++) {
    if (i < arity) values.push(`t${i}`, `i${i}`);
    else values.push("''", "''");
  }
  return {
    sql: `INSERT INTO ${tables.next} (${rowColumns(tables).join(", ")})
SELECT ${values.join(", ")} FROM ${factTable} WHERE predicate = CAST($2 AS text) AND arity = CAST($3 AS smallint)`,
    params: [predicate, name, arity],
  };
}

/**
 * The end of a round: the rows of `next` not yet in `full` become `delta` and join `full`;
 * `next` is emptied.
 */
export function closeRound(tables: FamilyTables): string[] {
  const { full, delta, next } = tables;
  return [
    `TRUNCATE ${delta}`,
    `INSERT INTO ${delta} SELECT DISTINCT * FROM ${next} EXCEPT SELECT * FROM ${full}`,
    `INSERT INTO ${full} SELECT * FROM ${delta}`,
    `TRUNCATE ${next}`,
    // Fresh tables have no statistics: PostgreSQL would guess one row after the filters and
    // join the round's tables by nested loops over full scans (seconds at a few thousand rows).
    `ANALYZE ${full}, ${delta}`,
  ];
}
