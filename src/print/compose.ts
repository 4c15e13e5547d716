/**
 * Statements to compose into a caller's Kysely query. The caller's own compiler prints the
 * combined query, so the tree must not hold our plan values: the request's values (params and
 * the clock) become parameters cast to their SQL type (`cast($3 as bigint)`), numbered by the
 * caller's compiler among its own; the policy's constants become the dialect's literals.
 */
import {
  CastNode,
  DataTypeNode,
  ExpressionWrapper,
  type OperationNode,
  OperationNodeTransformer,
  PostgresQueryCompiler,
  RawNode,
  SelectQueryNode,
  type SqlBool,
  ValueNode,
} from "kysely";
import { isPrimitiveType } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { isSqlValue } from "../lower/sql-value.js";
import { termType } from "../plan/ir.js";
import { requestValue, type ValueRuntime } from "./printer.js";
import { writingValue } from "./value-refusal.js";

class ParameterValues extends OperationNodeTransformer {
  constructor(
    private readonly dialect: Dialect,
    private readonly runtime: ValueRuntime,
  ) {
    super();
  }

  protected override transformCast(node: CastNode): CastNode {
    const transformed = super.transformCast(node);
    return (this.dialect.printedCast?.(transformed) ?? transformed) as CastNode;
  }

  protected override transformValue(node: ValueNode): ValueNode {
    if (!isSqlValue(node.value)) return node;
    const value = node.value;
    const { origin, sqlType, typed } = value;
    const dialect = this.dialect;
    const runtime = this.runtime;
    if (origin.kind === "literal") {
      // Printed verbatim by the caller's compiler: the dialect's audited literal.
      const literal = writingValue(value, runtime.spans, () =>
        dialect.literal(origin.value, sqlType, typed),
      );
      return RawNode.createWithSql(literal) as never;
    }
    const text = writingValue(value, runtime.spans, () =>
      dialect.parameter(requestValue(value, runtime), sqlType),
    );
    if (!typed && sqlType === undefined && !isPrimitiveType(termType(origin))) {
      // An id without `sql_types` next to a column: the engine gives the parameter the
      // column's type, or text where lowering compares the column's text (lower/untyped-ids.ts).
      return ValueNode.create(text);
    }
    const type = this.dialect.parameterType(termType(node.value.origin), sqlType);
    return CastNode.create(ValueNode.create(text), DataTypeNode.create(type as never)) as never;
  }
}

/** The tree with every plan value turned into a typed parameter. */
export function withParameters(
  dialect: Dialect,
  node: OperationNode,
  runtime: ValueRuntime,
): OperationNode {
  return new ParameterValues(dialect, runtime).transformNode(node);
}

/**
 * A statement (authorize, actions, select) as an aliasable Kysely expression whose row type is
 * `Row`: `db.selectFrom(statement.as("a")).select("a.allowed")`.
 */
export function subquery<Row>(node: OperationNode): ExpressionWrapper<never, never, Row> {
  return new ExpressionWrapper<never, never, Row>(node);
}

/**
 * `{ sql, parameters }` of a composable expression on its own, printed by Kysely's PostgreSQL
 * compiler (a caller's own Kysely instance prints it inside its queries).
 *
 *   const { sql, parameters } = compiledQuery(listQueryExpression(program, body));
 */
export function compiledQuery(expression: { toOperationNode(): OperationNode }): {
  sql: string;
  parameters: readonly unknown[];
} {
  const node = expression.toOperationNode();
  const root = SelectQueryNode.is(node) ? node : RawNode.createWithChild(node);
  const compiled = new PostgresQueryCompiler().compileQuery(root, {
    queryId: "polar-sql",
  } as never);
  return { sql: compiled.sql, parameters: compiled.parameters };
}

/** A `list_query` fragment as a boolean Kysely expression for `.where(...)`. */
export function condition(node: OperationNode): ExpressionWrapper<never, never, SqlBool> {
  return new ExpressionWrapper<never, never, SqlBool>(node);
}
