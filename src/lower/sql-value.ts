/**
 * Values in the SQL tree. A plan value (a policy constant, a question param, a builtin) becomes
 * a Kysely `ValueNode` whose payload is a `SqlValue`; the dialect's printer decides how it is
 * written: an inlined literal, a `$n` parameter, or a slot of a printed template. The tree
 * itself never holds SQL text for a value.
 */
import { type OperationNode, ValueNode } from "kysely";
import type { Value } from "../core/value.js";
import type { BuiltinTerm, LiteralTerm, ParamTerm } from "../plan/ir.js";

/** Where a value comes from: a constant, a question param, or a builtin. */
type ValueOrigin = LiteralTerm | ParamTerm | BuiltinTerm;

export interface SqlValue {
  readonly kind: "sql-value";
  readonly origin: ValueOrigin;
  /** The `sql_types` entry of an entity value's type. */
  readonly sqlType: string | undefined;
  /**
   * Carries its SQL type (a select list, a row of a derived table): the engine cannot infer
   * one from a column there.
   */
  readonly typed: boolean;
  /**
   * The values a literal lowering composed is written from (an array literal of ids,
   * untyped-ids.ts): a template holding some of them as slots cannot hold this one.
   */
  readonly madeOf?: readonly Value[];
}

/**
 * The node for a plan value.
 *
 *   valueNode({ kind: "param", name: "actor", type: "User" }, "integer", false)
 */
export function valueNode(
  origin: ValueOrigin,
  sqlType: string | undefined,
  typed: boolean,
  madeOf?: readonly Value[],
): OperationNode {
  const value: SqlValue = { kind: "sql-value", origin, sqlType, typed, ...(madeOf && { madeOf }) };
  return ValueNode.create(value);
}

export function isSqlValue(value: unknown): value is SqlValue {
  return typeof value === "object" && value !== null && (value as SqlValue).kind === "sql-value";
}

/**
 * The ids of a param list (`ids: [...]` of a question variable) as one value: an array
 * parameter, where the dialect reads one (src/lower/rules.ts `idsTable`).
 */
export interface SqlIds {
  readonly kind: "sql-ids";
  /** The param whose ids these are. */
  readonly name: string;
  readonly type: string;
  readonly sqlType: string | undefined;
}

export function idsNode(name: string, type: string, sqlType: string | undefined): OperationNode {
  const ids: SqlIds = { kind: "sql-ids", name, type, sqlType };
  return ValueNode.create(ids);
}

export function isSqlIds(value: unknown): value is SqlIds {
  return typeof value === "object" && value !== null && (value as SqlIds).kind === "sql-ids";
}
