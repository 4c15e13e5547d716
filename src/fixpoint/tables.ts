/**
 * The tables of one family's iteration, temporary and dropped at commit: `full` holds every
 * row found so far, `delta` the rows new in the last round, `next` what the current round
 * derives. A row is the predicate key (`path/2`) and a (type, id) text pair per argument, as
 * in the fact table (store/schema.ts). Rules read them through data bindings, one per
 * argument-type shape, like the fact table's (store/bindings.ts).
 */
import { type OperationNode, type RawBuilder, sql } from "kysely";
import type { Binding } from "../bindings/types.js";
import type { PredicateKey } from "../check/program.js";
import type { Value } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { valueNode } from "../lower/sql-value.js";
import { printTree } from "../print/printer.js";
import type { Statement } from "../print/statement.js";
import { binary, columnRef, conjunction, select, table } from "../sql/nodes.js";
import { storedArgument } from "../store/bindings.js";
import { compile, type Engine } from "../store/compile.js";
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
function rowColumnNames(tables: FamilyTables): string[] {
  const columns = ["predicate"];
  for (let i = 0; i < tables.width; i++) columns.push(`t${i}`, `i${i}`);
  return columns;
}

function rowColumns(tables: FamilyTables): RawBuilder<unknown> {
  return sql.join(rowColumnNames(tables).map((column) => sql.id(column)));
}

function sqliteStore(dialect: Dialect): boolean {
  return dialect.name === "sqlite";
}

/** The store's engine that speaks the dialect. */
function engineOf(dialect: Dialect): Engine {
  return sqliteStore(dialect) ? "sqlite" : "postgres";
}

/** A table of the iteration as SQLite names it: in its `temp` schema. */
const temporary = (name: string) => sql.table(`temp.${name}`);

/**
 * The statements creating the three tables (inside the caller's transaction). PostgreSQL
 * drops them at commit; SQLite, which cannot, drops them in `dropTables`.
 */
export function createTables(dialect: Dialect, tables: FamilyTables): RawBuilder<unknown>[] {
  const columns = sql.join(
    rowColumnNames(tables).map((column) => sql`${sql.id(column)} text NOT NULL DEFAULT ''`),
  );
  const names = [tables.full, tables.delta, tables.next];
  if (!sqliteStore(dialect)) {
    return names.map(
      (name) => sql`CREATE TEMPORARY TABLE ${sql.id(name)} (${columns}) ON COMMIT DROP`,
    );
  }
  return names.flatMap((name) => [
    sql`DROP TABLE IF EXISTS ${temporary(name)}`,
    sql`CREATE TEMPORARY TABLE ${sql.id(name)} (${columns})`,
  ]);
}

/**
 * Session settings while an iteration runs, and after: SQLite joins the round's tables, which
 * have no index, through automatic indexes, which the store otherwise leaves off
 * (src/store/sqlite-connection.ts): 80 nodes of a transitive closure took 3 s without.
 */
export function iterationSettings(dialect: Dialect): {
  during: RawBuilder<unknown>[];
  after: RawBuilder<unknown>[];
} {
  if (!sqliteStore(dialect)) return { during: [], after: [] };
  return {
    during: [sql`PRAGMA automatic_index = ON`],
    after: [sql`PRAGMA automatic_index = OFF`],
  };
}

/** The statements dropping the tables before commit, where commit does not. */
export function dropTables(dialect: Dialect, tables: FamilyTables): RawBuilder<unknown>[] {
  if (!sqliteStore(dialect)) return [];
  return [tables.full, tables.delta, tables.next].map((name) => sql`DROP TABLE ${temporary(name)}`);
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
 * `INSERT INTO next …` the answers of `answers` (columns `c0`, `c1`, …) as rows of `shape`,
 * with the answers' parameters. The predicate and the types are the dialect's audited
 * literals, as in src/print/compose.ts: a parameter of this statement would take a number
 * that the answers' compiled text already uses.
 */
export function insertAnswers(
  dialect: Dialect,
  tables: FamilyTables,
  shape: RowShape,
  answers: Pick<Statement, "sql" | "parameters">,
): Pick<Statement, "sql" | "parameters"> {
  const text = (id: string) => sql.raw(dialect.literal({ type: "String", id }, undefined, false));
  const values = [text(shape.predicate)];
  const { arity } = splitKey(shape.predicate);
  for (let i = 0; i < tables.width; i++) {
    if (i >= arity) {
      values.push(sql`''`, sql`''`);
      continue;
    }
    const type = shape.types[i]!;
    const answer = sql.ref(`q.c${i}`);
    // Stored as in the fact table: SQLite's booleans are 1/0, stored as `true`/`false`.
    const id =
      type === "Boolean" && sqliteStore(dialect)
        ? sql`CASE WHEN ${answer} THEN 'true' ELSE 'false' END`
        : sql`CAST(${answer} AS text)`;
    values.push(text(type), id);
  }
  const statement = sql`INSERT INTO ${sql.id(tables.next)} (${rowColumns(tables)})
SELECT ${sql.join(values)} FROM (${sql.raw(answers.sql)}) AS q`;
  return { sql: compile(engineOf(dialect), statement).sql, parameters: answers.parameters };
}

/** `INSERT INTO next …` the stored facts of a predicate of the family. */
export function insertStoredFacts(
  tables: FamilyTables,
  factTable: string,
  predicate: PredicateKey,
): RawBuilder<unknown> {
  const { name, arity } = splitKey(predicate);
  const values = [sql`CAST(${predicate} AS text)`];
  for (let i = 0; i < tables.width; i++) {
    if (i < arity) values.push(sql.id(`t${i}`), sql.id(`i${i}`));
    else values.push(sql`''`, sql`''`);
  }
  return sql`INSERT INTO ${sql.id(tables.next)} (${rowColumns(tables)})
SELECT ${sql.join(values)} FROM ${sql.table(factTable)}
WHERE predicate = CAST(${name} AS text) AND arity = CAST(${arity} AS smallint)`;
}

/**
 * The end of a round: the rows of `next` not yet in `full` become `delta` and join `full`;
 * `next` is emptied.
 */
export function closeRound(dialect: Dialect, tables: FamilyTables): RawBuilder<unknown>[] {
  const [full, delta, next] = [tables.full, tables.delta, tables.next].map((name) => sql.id(name));
  const sqlite = sqliteStore(dialect);
  const empty = (name: RawBuilder<unknown>) =>
    sqlite ? sql`DELETE FROM ${name}` : sql`TRUNCATE ${name}`;
  return [
    empty(delta!),
    sql`INSERT INTO ${delta} SELECT DISTINCT * FROM ${next} EXCEPT SELECT * FROM ${full}`,
    sql`INSERT INTO ${full} SELECT * FROM ${delta}`,
    empty(next!),
    // Fresh tables have no statistics: PostgreSQL would guess one row after the filters and
    // join the round's tables by nested loops over full scans (seconds at a few thousand rows).
    ...(sqlite
      ? [sql`ANALYZE ${temporary(tables.full)}`, sql`ANALYZE ${temporary(tables.delta)}`]
      : [sql`ANALYZE ${full}, ${delta}`]),
  ];
}
