/**
 * Filter branches that read nothing but the caller's own rows (docs/local-authorization.md,
 * "keys (an extension)"). A `list_query` filter is `caller IN (SELECT key FROM table WHERE …)`:
 * PostgreSQL cannot tell that the caller's rows are the table's, so it semi-joins every row
 * of the caller with the subquery (bench/central-recursion/run.ts). When the caller's column
 * names the binding's table and its declared key (`app.reports.id`, `keys: {app.reports: id}`),
 * a row of the caller is the row the subquery finds, so the branch's conditions apply to it
 * directly: `app.reports.owner_id = any('{…}') AND app.reports.id IS NOT NULL`, which the
 * caller's indexes serve.
 *
 * Only a branch with one source that is a plain scan of a schema-qualified table without a
 * WHERE condition, columns read as bare names, and no nested `not exists`, qualifies: the
 * table then names one table whatever the caller's query (a CTE cannot be schema-qualified),
 * and every column the conditions read is one of its columns.
 */
import {
  type OperationNode,
  OperationNodeTransformer,
  type ReferenceNode,
  type SelectQueryNode,
} from "kysely";
import type { PlainScan } from "../bindings/query.js";
import { tableName } from "../bindings/query.js";
import type { Binding } from "../bindings/types.js";
import { DEFAULT_DIALECT, type DialectName } from "../dialects/registry.js";
import { argColumn, type Branch } from "../plan/ir.js";
import { callerSql } from "../sql/nodes.js";
import { branchNode } from "./branch.js";
import { aliasName, type Lowering } from "./context.js";

/**
 * The branch as a condition on the caller's row, or null when it does not qualify (then it
 * stays in the `IN (…)` subquery).
 *
 *   callerRowCondition(lowering, branch, "app.reports.id")
 *   // app.reports.owner_id = any('{1,2,…}') and app.reports.id is not null
 */
export function callerRowCondition(
  lowering: Lowering,
  branch: Branch,
  column: string,
): OperationNode | null {
  const [ref, ...others] = branch.sources;
  if (!ref || others.length > 0 || ref.source.kind !== "binding") return null;
  if ((ref.source.rows?.length ?? 0) > 0) return null;
  if (branch.conditions.some((c) => c.kind === "not_exists")) return null;
  const binding = lowering.bindings.bindings[ref.source.binding]!;
  const scan = binding.scan;
  if (!scan || scan.conditions.length > 0 || qualifiedParts(scan) !== 2) return null;
  const key = lowering.bindings.keys.get(scan.tableName);
  if (key?.length !== 1) return null;
  const output = branch.outputs[0];
  if (output?.kind !== "column" || output.alias !== ref.alias) return null;
  const items = itemsByColumn(binding, scan);
  const outputItem = items.get(output.column);
  if (outputItem === undefined || scan.columns[outputItem] !== key[0]) return null;
  // The caller writes the column in the statement's dialect, the one the bindings were read in
  // (src/api/local.ts).
  const syntax = lowering.bindings.syntax ?? DEFAULT_DIALECT;
  if (!namesKey(column, scan.tableName, key[0]!, syntax)) return null;
  const where = (branchNode(lowering, branch, []) as SelectQueryNode).where?.where;
  if (!where) return null;
  const alias = aliasName(lowering, ref.alias);
  let foreign = false;
  const rewritten = new (class extends OperationNodeTransformer {
    protected override transformReference(node: ReferenceNode): ReferenceNode {
      const table = node.table?.table.identifier.name;
      const name = node.column.kind === "ColumnNode" ? node.column.column.name : null;
      const item = name === null ? undefined : items.get(name);
      if (table !== alias || item === undefined) {
        foreign = true;
        return node;
      }
      // A raw node in place of the reference: the table and column exactly as the binding writes them.
      return callerSql(`${scan.table}.${scan.items[item]}`) as unknown as ReferenceNode;
    }
  })().transformNode(where);
  return foreign ? null : rewritten;
}

function qualifiedParts(scan: PlainScan): number {
  return (JSON.parse(scan.tableName) as string[]).length;
}

/** `argN` -> index of the select item, for slots read as bare columns. */
function itemsByColumn(binding: Binding, scan: PlainScan): Map<string, number> {
  const items = new Map<string, number>();
  let item = 0;
  binding.slots.forEach((slot, position) => {
    if (slot.kind !== "column") return;
    if (scan.columns[item] !== null) items.set(argColumn(position), item);
    item++;
  });
  return items;
}

/** Whether the caller's column is `<table>.<key>` for this canonical table and key column. */
function namesKey(column: string, table: string, key: string, syntax: DialectName): boolean {
  for (let dot = column.lastIndexOf("."); dot > 0; dot = column.lastIndexOf(".", dot - 1)) {
    const prefix = tableName(column.slice(0, dot).trim(), syntax);
    const suffix = tableName(column.slice(dot + 1).trim(), syntax);
    if (prefix === table && suffix === key) return true;
  }
  return false;
}
