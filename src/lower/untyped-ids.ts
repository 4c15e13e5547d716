/**
 * Ids of entity types without a `sql_types` entry meeting columns whose SQL type lowering does
 * not know (a binding's column, the caller's column): docs/local-authorization.md, "Ids without
 * sql_types".
 *
 * Such ids are written as untyped literals, which the engine reads as the column's type; an id
 * the column's type cannot hold (`'abc'` for an integer column) would then be an SQL error. So
 * an id of the usual id columns' types (`comparesUntyped`: in PostgreSQL a canonical 32-bit
 * integer or a lowercase uuid) is compared with the column itself, where its index serves; any
 * other id is compared with the column's text (`cast(col as text) = 'abc'`), which never fails
 * and holds exactly when the column's text is the id. Rows known when printing (`VALUES`
 * tables, typed text) are joined the same way, on the column's text, with the keys also given
 * as a list of ids the column's index can serve.
 */
import { FunctionNode, type OperationNode, OrNode, ParensNode } from "kysely";
import { isPrimitiveType } from "../core/value.js";
import type { BindingSource, Term, ValuesSource } from "../plan/ir.js";
import { binary, cast } from "../sql/nodes.js";
import { type Lowering, sqlTypeOf } from "./context.js";
import { valueNode } from "./sql-value.js";

/**
 * Aliases whose columns hold ids as text, visible to a branch (its own and its outer
 * branches'): rows known when printing, and recursive CTEs that hold text (null: no rows here).
 */
export type KnownRows = ReadonlyMap<string, ValuesSource | null>;

/** From this many ids on, a list is written as one array literal: `col = any('{1,2,…}')`. */
const ARRAY_FROM = 16;

/** Whether values of `type` are entity ids without a `sql_types` entry. */
export function untypedIds(lowering: Lowering, type: string): boolean {
  return !isPrimitiveType(type) && !lowering.bindings.sqlTypes.has(type);
}

/** Whether an untyped literal of this id may meet a column of unknown type (`comparesUntyped`). */
export function comparesUntyped(lowering: Lowering, id: string): boolean {
  return lowering.rules.comparesUntyped?.(id) ?? false;
}

/** The column's text: `cast(node as text)`. */
export function textOf(lowering: Lowering, node: OperationNode): OperationNode {
  return cast(node, lowering.rules.castType("String", undefined));
}

/** The id of a literal or a single param in this request; null for other terms. */
export function requestId(lowering: Lowering, term: Term): string | null {
  if (term.kind === "literal") return term.value.id;
  if (term.kind === "param") {
    const ids = lowering.plan.params.get(term.name) ?? [];
    return ids.length === 1 ? ids[0]! : null;
  }
  return null;
}

/**
 * Whether a binding source is read as typed text: rows known when printing are appended to it
 * on a dialect whose union loses the binding's column types (`bindingRowsAsText`), and some
 * column of it holds untyped ids.
 */
export function readsBindingAsText(lowering: Lowering, source: BindingSource): boolean {
  if (!lowering.rules.bindingRowsAsText || !source.rows?.length) return false;
  const binding = lowering.bindings.bindings[source.binding]!;
  return binding.slots.some((slot) => slot.kind === "column" && untypedIds(lowering, slot.type));
}

/** Whether the term reads a column of rows known when printing (typed text). */
export function readsKnownRows(term: Term, known: KnownRows): boolean {
  return term.kind === "column" && known.has(term.alias);
}

/**
 * `node IN (values)` for literals and params that compare untyped: from `ARRAY_FROM` literals
 * on, one array literal (`= any('{1,2,…}')`, a single constant the planner reads at once);
 * else a list.
 */
export function untypedMember(
  lowering: Lowering,
  node: OperationNode,
  values: readonly Term[],
  type: string,
  nodeOf: (term: Term) => OperationNode,
): OperationNode {
  const elements = values.flatMap((v) => (v.kind === "literal" ? [v.value] : []));
  const ids = elements.map((value) => value.id);
  if (ids.length < ARRAY_FROM || !lowering.rules.arrayLiteral) {
    const nodes = values.map(nodeOf);
    return nodes.length === 1
      ? lowering.rules.compare("=", node, nodes[0]!, type, sqlTypeOf(lowering, type))
      : lowering.rules.member(node, nodes, type, sqlTypeOf(lowering, type));
  }
  // Canonical integers and uuids (`comparesUntyped`): no element needs quoting.
  const array = valueNode(
    { kind: "literal", value: { type: "String", id: `{${ids.join(",")}}` } },
    undefined,
    false,
    elements,
  );
  const inArray = binary(node, "=", FunctionNode.create("any", [array]));
  // Params stay apart: a printed text may serve other requests' values (print/template.ts).
  const params = values.filter((v) => v.kind !== "literal");
  if (params.length === 0) return inArray;
  const rest = untypedMember(lowering, node, params, type, nodeOf);
  return ParensNode.create(OrNode.create(inArray, rest));
}

/** Literals of `type` for these ids. */
export function literals(type: string, ids: readonly string[]): Term[] {
  return ids.map((id) => ({ kind: "literal", value: { type, id } }));
}

/**
 * The distinct ids of column `column` of known rows that all compare untyped; null when some
 * does not (the list would miss them) or there are none.
 */
export function untypedKeys(
  lowering: Lowering,
  source: ValuesSource | null,
  column: string,
): string[] | null {
  if (!source) return null;
  const index = source.columns.findIndex((c) => c.name === column);
  if (index < 0) return null;
  const ids = new Set<string>();
  for (const row of source.rows) {
    const id = row[index]!.id;
    if (!comparesUntyped(lowering, id)) return null;
    ids.add(id);
  }
  return ids.size > 0 ? [...ids] : null;
}
