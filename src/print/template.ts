/**
 * A statement printed once per question shape: its text with the places where each request's
 * values go. Filling writes the request's literals into those places (or collects them as
 * parameters), so that a repeated question costs a few string copies instead of a lowering.
 */

import type { Value } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { isSqlIds, type SqlIds, type SqlValue } from "../lower/sql-value.js";
import { type Printed, requestValue, type Slot, type ValueRuntime } from "./printer.js";
import { writingValue } from "./value-refusal.js";

export type Template =
  /** Text with slots for the request's params, clock and free values (constants are inlined). */
  | { readonly kind: "literals"; readonly sql: string; readonly slots: readonly Slot[] }
  /** Text with cast placeholders, and the value of each. */
  | {
      readonly kind: "parameters";
      readonly sql: string;
      readonly values: readonly (SqlValue | SqlIds)[];
    };

export function templateOf(kind: Template["kind"], printed: Printed): Template {
  return kind === "literals"
    ? { kind, sql: printed.sql, slots: printed.slots }
    : { kind, sql: printed.sql, values: printed.parameters };
}

/**
 * The statement for one request: text, and parameter texts for a parameters template. `free`:
 * the request's free values, by the index its slots name (print/free-values.ts).
 */
export function fillTemplate(
  dialect: Dialect,
  template: Template,
  runtime: ValueRuntime,
  free: readonly Value[] = [],
): { sql: string; parameters: string[] } {
  if (template.kind === "parameters") {
    return { sql: template.sql, parameters: parameterTexts(dialect, template.values, runtime) };
  }
  let sql = "";
  let at = 0;
  for (const slot of template.slots) {
    const value = slot.free === undefined ? requestValue(slot.value, runtime) : free[slot.free]!;
    sql += template.sql.slice(at, slot.at);
    const { sqlType, typed } = slot.value;
    sql += writingValue(slot.value, runtime.spans, () => dialect.literal(value, sqlType, typed));
    at = slot.at;
  }
  return { sql: sql + template.sql.slice(at), parameters: [] };
}

/** The text of each parameter value for this request. */
export function parameterTexts(
  dialect: Dialect,
  values: readonly (SqlValue | SqlIds)[],
  runtime: ValueRuntime,
): string[] {
  return values.map((value) =>
    isSqlIds(value)
      ? idsText(dialect, value, runtime)
      : writingValue(value, runtime.spans, () =>
          dialect.parameter(requestValue(value, runtime), value.sqlType),
        ),
  );
}

/**
 * The array parameter of a param list: its distinct ids that a column of their type can hold
 * (the others match nothing, as resolution drops them from rows).
 */
function idsText(dialect: Dialect, ids: SqlIds, runtime: ValueRuntime): string {
  const { type, sqlType } = ids;
  const texts = new Set<string>();
  for (const id of runtime.params.get(ids.name) ?? []) {
    const value = { type, id };
    if (dialect.canWrite(value, sqlType)) texts.add(dialect.parameter(value, sqlType));
  }
  return dialect.idsParameter!.text([...texts], type, sqlType);
}
