/**
 * Rows of constants that recur from request to request: the central facts a binding reads
 * along with its query, which src/plan/resolve/rows.ts keeps as one array per data version.
 * Such rows are lowered once per (rows array, data bindings, dialect) and marked, so that the
 * printer writes their text once and copies it afterwards (src/print/printer.ts). Hundreds of
 * stored rows in every `authorize_query` then cost a lookup, not a walk of the tree.
 */
import type { OperationNode, SelectQueryNode } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { Value } from "../core/value.js";
import { select, union } from "../sql/nodes.js";
import type { LoweringRules } from "./rules.js";

type Rows = readonly (readonly Value[])[];

/** Blocks made here: their text depends on nothing but the node (no params, no clock). */
const fixedBlocks = new WeakSet<OperationNode>();

const lowered = new WeakMap<Rows, WeakMap<DataBindings, WeakMap<LoweringRules, SelectQueryNode>>>();

/** Whether the printer may write `node` once and reuse the text (all its values are constants). */
export function isFixedBlock(node: OperationNode): boolean {
  return fixedBlocks.has(node);
}

/**
 * `select … union all select …`, one SELECT per row of the values `rowValues` writes (or the
 * dialect's `rowsOperand`), kept for the rows array: a caller appends it to a query with
 * `union all` (as a set operation's operand, where no engine wants parentheses, so the
 * printed text is the same wherever it goes).
 */
export function fixedRowsUnion(
  rows: Rows,
  bindings: DataBindings,
  rules: LoweringRules,
  rowValues: (row: readonly Value[]) => OperationNode[],
): SelectQueryNode {
  let byBindings = lowered.get(rows);
  if (!byBindings) {
    byBindings = new WeakMap();
    lowered.set(rows, byBindings);
  }
  let byRules = byBindings.get(bindings);
  if (!byRules) {
    byRules = new WeakMap();
    byBindings.set(bindings, byRules);
  }
  const known = byRules.get(rules);
  if (known) return known;
  const node = rules.rowsOperand
    ? rules.rowsOperand(rows.map(rowValues))
    : union(
        rows.map((row) => select({ selections: rowValues(row) })),
        true,
      );
  fixedBlocks.add(node);
  byRules.set(rules, node);
  return node;
}
