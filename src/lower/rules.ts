/**
 * What lowering asks of the target dialect: the few constructs whose spelling differs between
 * engines. Each dialect in src/dialects implements these (docs/architecture.md, "Adding a
 * dialect"); nothing else in lowering knows which engine it writes for.
 */
import type { OperationNode, SelectQueryNode } from "kysely";
import type { CompareOp } from "../core/value.js";

export interface LoweringRules {
  /** The dialect's name, for messages and caches: its key in src/dialects/registry.ts. */
  readonly name: string;
  /**
   * The SQL type named in `CAST(… AS <type>)` for values of a Polar type; `sqlType` is the
   * `sql_types` entry of an entity type.
   */
  castType(polarType: string, sqlType: string | undefined): string;
  /**
   * `left op right` between values of Polar type `type` with the language's semantics: strings
   * equal only when identical, ordered by code point.
   */
  compare(
    op: CompareOp,
    left: OperationNode,
    right: OperationNode,
    type: string,
    sqlType: string | undefined,
  ): OperationNode;
  /** The expression with its strings ordered by code point (for ORDER BY and comparisons). */
  codePointOrder(node: OperationNode): OperationNode;
  /** `term IN (values)` with the same exact equality as `compare`. */
  member(
    term: OperationNode,
    values: readonly OperationNode[],
    type: string,
    sqlType: string | undefined,
  ): OperationNode;
  /**
   * `term IN (query)` with the same exact equality: a `list_query` fragment, whose `term` is
   * the caller's column.
   */
  memberOfQuery(
    term: OperationNode,
    query: OperationNode,
    type: string,
    sqlType: string | undefined,
  ): OperationNode;
  /**
   * `term = any(array(query))`: the query runs once, before the statement, and the condition
   * is then one the caller's indexes serve, also as one side of an `OR` (src/lower/caller-rows.ts)
   * and as a whole list condition (src/lower/lower.ts `lowerFilter`). Absent where the engine
   * has no such form: such filters stay one `IN (query)`.
   */
  memberOfArray?(term: OperationNode, query: OperationNode): OperationNode;
  /**
   * A binding read with rows known when printing appended (central facts: `select * from
   * <binding> union all <rows>`) gives its columns no type in the union (SQLite: the table's
   * integers then never equal the id `'1'`), so its untyped id columns are read as text there
   * and compared as rows known when printing are (src/lower/untyped-ids.ts).
   */
  readonly bindingRowsAsText?: boolean;
  /**
   * The rows of `rows` (a UNION ALL with the named columns) without duplicates, compared
   * exactly; absent where `SELECT DISTINCT` and `UNION` already compare exactly
   * (docs/dialects.md: some engines' default collations call `'a' = 'A '` equal).
   */
  readonly distinctRows?: (
    rows: SelectQueryNode,
    columns: readonly ExactColumn[],
  ) => SelectQueryNode;
  /**
   * A derived table of rows known when printing, aliased `alias`, with columns `columns` (each
   * row's values carry their types).
   */
  rowsTable(
    alias: string,
    columns: readonly string[],
    rows: readonly (readonly OperationNode[])[],
  ): OperationNode;
  /**
   * A derived table of a param list's ids, aliased `alias` with the one column `column`, read
   * from `ids`, one array parameter (an `idsNode`). Absent: the engine reads no arrays, and
   * param lists are written as rows of values, one parameter or literal per id.
   */
  idsTable?(
    alias: string,
    column: string,
    ids: OperationNode,
    type: string,
    sqlType: string | undefined,
  ): OperationNode;
  /**
   * How a recursive CTE applies several steps to each new row (one step is always a plain
   * join): `lateral`, one recursive term joining a LATERAL union (engines that allow one self
   * reference); `branches`, one recursive
   * SELECT per step; `joined`, one recursive SELECT joining the union of the steps' bodies
   * (src/lower/step-union.ts: MariaDB plans many recursive SELECTs in exponential time).
   */
  readonly recursion: "lateral" | "branches" | "joined";
  /** Whether binding CTEs may say `NOT MATERIALIZED` (inline them into the statement). */
  readonly inlineHint: boolean;
  /**
   * Whether a yes/no question is `EXISTS (a) OR EXISTS (b) …`, one per branch, rather than
   * `EXISTS (a UNION ALL b …)`: PostgreSQL and MariaDB plan the first in less time
   * (bench/RESULTS.md, "Local SQL against hand-written" and "Dialects"). Absent: the union.
   */
  readonly existsPerBranch?: boolean;
  /**
   * The operand with which a UNION ALL appends known rows (central and context facts read
   * with a binding). Absent: one SELECT per row. SQLite, whose compound SELECTs stop at 500
   * terms, takes them as one `SELECT * FROM (VALUES …)`.
   */
  readonly rowsOperand?: (rows: readonly (readonly OperationNode[])[]) => SelectQueryNode;
  /**
   * Which bindings that are plain scans of one table are read from the table itself rather
   * than through a CTE (src/lower/inline-scans.ts). `tables`: those whose condition can join
   * the reader's WHERE (PostgreSQL and MariaDB plan each CTE reference as a subquery, which on
   * an authorize_query costs more than running it); `subqueries`: those too, and
   * any other plain scan as a subquery of its own (SQLite prepares each CTE reference it
   * flattens at a cost that exceeds running the statement). Absent: never.
   */
  readonly inlineScans?: "tables" | "subqueries";
  /**
   * Whether an entity id is compared, as an untyped literal, with a column whose SQL type is
   * unknown (no `sql_types` entry): ids of the usual id types, which the column reads as its
   * own type. Others are compared with the column's text (src/lower/untyped-ids.ts). Absent:
   * none is.
   */
  comparesUntyped?(id: string): boolean;
  /**
   * Whether `col = any('{1,2,…}')` (an untyped array literal read as an array of the column's
   * type) lists ids for the engine. Absent: lists stay `IN (…)`.
   */
  readonly arrayLiteral?: boolean;
  /**
   * Whether every value of a recursive CTE is cast to its column's type: engines that take a
   * recursive CTE's column types from its seeds alone need it, or a longer value of a
   * later step would not fit.
   */
  readonly castsRecursiveColumns: boolean;
  /**
   * The most reads of recursive CTEs a statement may hold, where the engine's planning cost
   * grows exponentially with them (MariaDB; docs/dialects.md); unbounded when absent.
   */
  readonly maxRecursiveReads?: number;
  /**
   * Whether, in a statement that reads recursive CTEs in SELECTs of a UNION more than
   * `maxRecursiveReads` times, each such SELECT is wrapped in a derived table of its own
   * (src/lower/union-reads.ts): MariaDB prepares such a UNION in exponential time and memory
   * otherwise. Absent: never.
   */
  readonly isolatesRecursiveReads?: boolean;
}

/** A column of `distinctRows`: its name, Polar type and `sql_types` entry. */
export interface ExactColumn {
  readonly name: string;
  readonly type: string;
  readonly sqlType: string | undefined;
}
