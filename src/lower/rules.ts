/**
 * What lowering asks of the target dialect: the few constructs whose spelling differs between
 * engines. Each dialect in src/print implements these (docs/architecture.md, "Adding a
 * dialect"); nothing else in lowering knows which engine it writes for.
 */
import type { OperationNode } from "kysely";
import type { CompareOp } from "../core/value.js";

export interface LoweringRules {
  /** The dialect's name, for messages: `postgres`, `mysql`, `sqlite`. */
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
  compare(op: CompareOp, left: OperationNode, right: OperationNode, type: string): OperationNode;
  /** The expression with its strings ordered by code point (for ORDER BY and comparisons). */
  codePointOrder(node: OperationNode): OperationNode;
  /** `term IN (values)` with the same exact equality as `compare`. */
  member(term: OperationNode, values: readonly OperationNode[], type: string): OperationNode;
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
   * How a recursive CTE applies several steps to each new row: `lateral`, one recursive term
   * joining a LATERAL union (engines that allow one self reference); `branches`, one recursive
   * SELECT per step.
   */
  readonly recursion: "lateral" | "branches";
  /** Whether binding CTEs may say `NOT MATERIALIZED` (inline them into the statement). */
  readonly inlineHint: boolean;
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
}
