/**
 * Bindings that are plain scans of one table, read from the table itself (`documents as f0`,
 * its columns by name) instead of through their CTE, for engines whose rules ask for it
 * (`inlineScans`). A CTE reference costs the engine's planner more than a table: SQLite
 * prepares a statement in time that grows with each CTE reference it copies and flattens, and
 * PostgreSQL pulls each one up as a subquery; the statement is prepared on every request, so
 * for an `authorize_query` this costs more than running it (bench/RESULTS.md, "Dialects" and
 * "Local SQL against hand-written").
 *
 * A scan with a WHERE condition that names only columns in plain comparisons (see
 * src/bindings/column-condition.ts) adds it, qualified by the alias, to the WHERE of the SELECT
 * that reads it. Any other condition makes it `(select items from table where (condition)) as
 * f0` where the rules say `subqueries` (the caller's condition names columns without a table,
 * which only its own FROM resolves as the binding meant), and keeps the CTE otherwise. Only
 * select items that are bare unquoted column names qualify, so that `f0.<item>` names the very
 * column the CTE read (SQLite reads an unknown `"name"` as a string, and `true` or
 * `current_date` as values). A binding read anywhere else (with central rows appended, or
 * without an alias) keeps its CTE.
 */
import {
  AliasNode,
  IdentifierNode,
  type OperationNode,
  OperationNodeTransformer,
  type RawNode,
  type ReferenceNode,
  type SelectQueryNode,
  TableNode,
  WhereNode,
} from "kysely";
import { splitAtColumns } from "../bindings/column-condition.js";
import type { Binding } from "../bindings/types.js";
import { DEFAULT_DIALECT } from "../dialects/registry.js";
import { argColumn } from "../plan/ir.js";
import { callerSql, conjunction, parens, select } from "../sql/nodes.js";
import type { Lowering } from "./context.js";
import { isFixedBlock } from "./fixed-rows.js";

/**
 * An inlined scan: the FROM item that replaces the CTE, the conditions it adds to the reader's
 * WHERE under an alias, and `argN` -> the item as written.
 */
interface Inlined {
  readonly from: OperationNode;
  readonly where: (alias: string) => readonly OperationNode[];
  readonly columns: ReadonlyMap<string, string>;
}

/**
 * The caller's SQL this pass wrote, with the alias each piece reads (null for a table's name):
 * a later pass that must know which aliases a SELECT reads (src/lower/union-reads.ts) can then
 * tell these from SQL it cannot see into.
 */
const written = new WeakMap<OperationNode, string | null>();

function writtenSql(text: string, alias: string | null): OperationNode {
  const node = callerSql(text);
  written.set(node, alias);
  return node;
}

/** The alias a piece of SQL this pass wrote reads (null: none); undefined for other nodes. */
export function inlinedReads(node: OperationNode): string | null | undefined {
  return written.get(node);
}

/** Unquoted names; words SQLite reads as values when no column has the name are left out. */
const BARE_COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const VALUE_WORDS = new Set([
  "null",
  "true",
  "false",
  "current_date",
  "current_time",
  "current_timestamp",
]);

/** The scan's columns by `argN`, or null when the binding does not qualify. */
function scanColumns(binding: Binding): Map<string, string> | null {
  const scan = binding.scan;
  if (!scan) return null;
  const columns = new Map<string, string>();
  let item = 0;
  for (const [position, slot] of binding.slots.entries()) {
    if (slot.kind !== "column") continue;
    const text = scan.items[item++];
    if (text === undefined || !BARE_COLUMN.test(text) || VALUE_WORDS.has(text.toLowerCase())) {
      return null;
    }
    columns.set(argColumn(position), text);
  }
  return columns;
}

/**
 * The statement body and the recursive CTEs with plain scans inlined, and the binding CTEs
 * still read (by name).
 *
 *   inlineScans(lowering, [body, ...recursive])
 *   // { nodes: [… from documents as f0 where f0.id = 7 …], kept: Set { "polar_c2" } }
 */
export function inlineScans(
  lowering: Lowering,
  nodes: readonly OperationNode[],
): { nodes: OperationNode[]; kept: Set<string> } {
  const byName = new Map<string, Binding>();
  for (const [index, name] of lowering.bindingNames) {
    byName.set(name, lowering.bindings.bindings[index]!);
  }
  const made = new Map<string, Inlined | null>();
  const syntax = lowering.bindings.syntax ?? DEFAULT_DIALECT;
  const inlined = (name: string): Inlined | null => {
    if (made.has(name)) return made.get(name)!;
    const binding = byName.get(name);
    const columns = binding && scanColumns(binding);
    let result: Inlined | null = null;
    if (binding && columns) {
      const scan = binding.scan!;
      const split = scan.conditions.map((condition) => splitAtColumns(condition, syntax));
      if (split.every((parts) => parts !== null)) {
        const where = (alias: string) =>
          split.map((parts) => parens(writtenSql(parts!.join(`${alias}.`), alias)));
        result = { from: writtenSql(scan.table, null), where, columns };
      } else if (lowering.rules.inlineScans === "subqueries") {
        const from = select({
          selections: scan.items.map(callerSql),
          from: [callerSql(scan.table)],
          where: conjunction(scan.conditions.map((c) => parens(callerSql(c)))),
        });
        result = { from, where: () => [], columns };
      }
    }
    made.set(name, result);
    return result;
  };
  const transformer = new InlineTransformer(inlined, new Set(byName.keys()));
  return { nodes: nodes.map((node) => transformer.transformNode(node)), kept: transformer.kept };
}

/** The alias of a FROM item, and the name of the table or CTE it aliases if it is one. */
function aliasOf(node: OperationNode): { name: string | null; alias: string } | null {
  if (!AliasNode.is(node) || !IdentifierNode.is(node.alias)) return null;
  const name = TableNode.is(node.node) ? node.node.table.identifier.name : null;
  return { name, alias: node.alias.name };
}

class InlineTransformer extends OperationNodeTransformer {
  /** Aliases of the enclosing SELECTs, innermost last: the scan an alias reads, or null. */
  readonly #scopes: Map<string, Inlined | null>[] = [];
  readonly kept = new Set<string>();

  constructor(
    private readonly inlined: (name: string) => Inlined | null,
    private readonly names: ReadonlySet<string>,
  ) {
    super();
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    // Rows of constants: no binding read inside, and the printer knows the node by identity.
    if (isFixedBlock(node)) return node;
    // The other operands of a UNION hang on the first SELECT but do not see its aliases.
    const { setOperations, ...core } = node;
    const scope = new Map<string, Inlined | null>();
    const where: OperationNode[] = [];
    const froms = core.from?.froms.map((item) => {
      const named = aliasOf(item);
      if (!named) return item;
      const scan = named.name !== null && this.names.has(named.name) && this.inlined(named.name);
      scope.set(named.alias, scan || null);
      if (!scan) return item;
      where.push(...scan.where(named.alias));
      return AliasNode.create(scan.from, (item as AliasNode).alias);
    });
    const replaced = froms ? { ...core, from: { ...core.from!, froms } } : core;
    this.#scopes.push(scope);
    let result: SelectQueryNode;
    try {
      result = super.transformSelectQuery(replaced as SelectQueryNode);
    } finally {
      this.#scopes.pop();
    }
    if (where.length > 0) {
      const all = conjunction([...where, ...(result.where ? [result.where.where] : [])])!;
      result = { ...result, where: WhereNode.create(all) };
    }
    if (!setOperations) return result;
    return { ...result, setOperations: setOperations.map((op) => this.transformNode(op)) };
  }

  // The pieces this pass wrote are kept as they are, not copied (see `written`).
  protected override transformRaw(node: RawNode): RawNode {
    return written.has(node) ? node : super.transformRaw(node);
  }

  protected override transformTable(node: TableNode): TableNode {
    const name = node.table.identifier.name;
    if (this.names.has(name)) this.kept.add(name);
    return super.transformTable(node);
  }

  protected override transformReference(node: ReferenceNode): ReferenceNode {
    const alias = node.table?.table.identifier.name;
    if (alias === undefined || node.column.kind !== "ColumnNode") {
      return super.transformReference(node);
    }
    for (let i = this.#scopes.length - 1; i >= 0; i--) {
      const scope = this.#scopes[i]!;
      if (!scope.has(alias)) continue;
      const column = scope.get(alias)?.columns.get(node.column.column.name);
      // A raw node in place of the reference: the column as the binding writes it.
      if (column !== undefined) {
        return writtenSql(`${alias}.${column}`, alias) as unknown as ReferenceNode;
      }
      break;
    }
    return super.transformReference(node);
  }
}
