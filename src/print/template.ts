/**
 * A statement printed once per question shape: its text with the places where each request's
 * values go. Filling writes the request's literals into those places (or collects them as
 * parameters), so that a repeated question costs a few string copies instead of a lowering.
 */
import type { SqlValue } from "../lower/sql-value.js";
import type { Dialect } from "./dialect.js";
import { type Printed, requestValue, type Slot, type ValueRuntime } from "./printer.js";

export type Template =
  /** Text with slots for the request's params and clock (constants are inlined). */
  | { readonly kind: "literals"; readonly sql: string; readonly slots: readonly Slot[] }
  /** Text with cast placeholders, and the value of each. */
  | { readonly kind: "parameters"; readonly sql: string; readonly values: readonly SqlValue[] };

export function templateOf(kind: Template["kind"], printed: Printed): Template {
  return kind === "literals"
    ? { kind, sql: printed.sql, slots: printed.slots }
    : { kind, sql: printed.sql, values: printed.parameters };
}

/** The statement for one request: text, and parameter texts for a parameters template. */
export function fillTemplate(
  dialect: Dialect,
  template: Template,
  runtime: ValueRuntime,
): { sql: string; parameters: string[] } {
  if (template.kind === "parameters") {
    return { sql: template.sql, parameters: parameterTexts(dialect, template.values, runtime) };
  }
  let sql = "";
  let at = 0;
  for (const slot of template.slots) {
    const value = requestValue(slot.value, runtime);
    sql += template.sql.slice(at, slot.at);
    sql += dialect.literal(value, slot.value.sqlType, slot.value.typed);
    at = slot.at;
  }
  return { sql: sql + template.sql.slice(at), parameters: [] };
}

/** The text of each parameter value for this request. */
export function parameterTexts(
  dialect: Dialect,
  values: readonly SqlValue[],
  runtime: ValueRuntime,
): string[] {
  return values.map((value) => dialect.parameter(requestValue(value, runtime), value.sqlType));
}
