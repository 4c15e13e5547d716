/**
 * Small constructors over Kysely's operation nodes, so that lowering reads as the SQL it
 * builds. Every node is Kysely's own (frozen plain objects); the few `RawNode`s are listed in
 * docs/architecture.md with the reason Kysely has no node for them.
 */
import {
  AliasNode,
  AndNode,
  BinaryOperationNode,
  CastNode,
  ColumnNode,
  CommonTableExpressionNameNode,
  DataTypeNode,
  FromNode,
  IdentifierNode,
  OffsetNode,
  type OperationNode,
  OperatorNode,
  OrNode,
  ParensNode,
  RawNode,
  ReferenceNode,
  SelectionNode,
  SelectModifierNode,
  SelectQueryNode,
  SetOperationNode,
  TableNode,
  UnaryOperationNode,
  ValueNode,
  WhereNode,
  type WithNode,
} from "kysely";

/** `alias.column`. */
export function columnRef(alias: string, column: string): OperationNode {
  return ReferenceNode.create(ColumnNode.create(column), TableNode.create(alias));
}

/** `node AS alias`. */
export function aliased(node: OperationNode, alias: string): OperationNode {
  return AliasNode.create(node, IdentifierNode.create(alias));
}

/** `table AS alias`. */
export function tableAs(table: string, alias: string): OperationNode {
  return aliased(TableNode.create(table), alias);
}

/** A table or CTE name. */
export function table(name: string): OperationNode {
  return TableNode.create(name);
}

/**
 * `alias(column, …)`: a correlation name with a derived column list. SQL spells it as the
 * name of a CTE, so Kysely's `CommonTableExpressionNameNode` prints it.
 */
export function correlation(alias: string, columns: readonly string[]): OperationNode {
  return CommonTableExpressionNameNode.create(alias, columns);
}

export function binary(left: OperationNode, op: string, right: OperationNode): OperationNode {
  return BinaryOperationNode.create(left, OperatorNode.create(op as never), right);
}

export function unary(op: "exists" | "not exists" | "not", operand: OperationNode): OperationNode {
  return UnaryOperationNode.create(OperatorNode.create(op), operand);
}

/** `c1 AND c2 AND …`; null for none. */
export function conjunction(conditions: readonly OperationNode[]): OperationNode | null {
  if (conditions.length === 0) return null;
  return conditions.reduce((left, right) => AndNode.create(left, right));
}

export function disjunction(conditions: readonly OperationNode[]): OperationNode | null {
  if (conditions.length === 0) return null;
  return conditions.reduce((left, right) => OrNode.create(left, right));
}

export function cast(node: OperationNode, type: string): OperationNode {
  return CastNode.create(node, DataTypeNode.create(type as never));
}

/** A literal fixed by the compiler itself (`1`, `true`, `0`, `NULL`), never a caller's value. */
export function constant(value: number | boolean | null): OperationNode {
  return ValueNode.createImmediate(value);
}

/**
 * SQL text written by the caller (a data binding's query, the column of `list_query`), placed
 * as given. A line break closes a trailing `--` comment before anything that follows.
 */
export function callerSql(text: string): OperationNode {
  return RawNode.createWithSql(text.includes("--") ? `${text}\n` : text);
}

export function parens(node: OperationNode): OperationNode {
  return ParensNode.create(node);
}

interface SelectParts {
  readonly with?: WithNode;
  readonly distinct?: boolean;
  readonly selections: readonly OperationNode[];
  readonly from?: readonly OperationNode[];
  readonly joins?: readonly OperationNode[];
  readonly where?: OperationNode | null;
  readonly offsetZero?: boolean;
}

/** One SELECT from its parts. */
export function select(parts: SelectParts): SelectQueryNode {
  let node: SelectQueryNode = SelectQueryNode.create(parts.with);
  node = {
    ...node,
    selections: parts.selections.map((s) => SelectionNode.create(s as never)),
    ...(parts.from && parts.from.length > 0 && { from: FromNode.create(parts.from) }),
    ...(parts.joins && parts.joins.length > 0 && { joins: parts.joins as never }),
    ...(parts.where && { where: WhereNode.create(parts.where) }),
    ...(parts.offsetZero && { offset: OffsetNode.create(constant(0)) }),
  };
  if (parts.distinct) node = SelectQueryNode.cloneWithFrontModifier(node, distinctModifier);
  return Object.freeze(node);
}

const distinctModifier = SelectModifierNode.create("Distinct");

/** `first UNION [ALL] second UNION [ALL] …`, held by the first SELECT. */
export function union(selects: readonly SelectQueryNode[], all: boolean): SelectQueryNode {
  const [first, ...rest] = selects;
  if (!first) throw new Error("internal: empty union");
  if (rest.length === 0) return first;
  return SelectQueryNode.cloneWithSetOperations(
    first,
    rest.map((s) => SetOperationNode.create("union", s, all)),
  );
}

/** `query UNION ALL rows`, where `rows` is a union of its own (src/lower/fixed-rows.ts). */
export function unionAll(query: SelectQueryNode, rows: SelectQueryNode): SelectQueryNode {
  return SelectQueryNode.cloneWithSetOperations(query, [
    SetOperationNode.create("union", rows, true),
  ]);
}

/**
 * `(q1) UNION ALL (q2) …` where each query keeps its own `OFFSET`: Kysely's set operations
 * attach to the first query, whose `OFFSET` would then apply to the whole union.
 */
export function unionOfParenthesized(selects: readonly SelectQueryNode[]): OperationNode {
  if (selects.length === 1) return selects[0]!;
  return RawNode.create(
    ["", ...Array.from({ length: selects.length - 1 }, () => " union all "), ""],
    selects,
  );
}
