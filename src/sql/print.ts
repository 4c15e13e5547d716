/**
 * From a cached plan to SQL for one request: resolve the request's values (params, central
 * and context facts, the clock), then emit the statement with Kysely.
 */
import type { RawBuilder } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { GroundFact, Value } from "../core/value.js";
import type { Plan } from "../plan/ir.js";
import { type CentralFacts, factRows, NO_CENTRAL_FACTS } from "./central-facts.js";
import { emitStatement, type Shape } from "./emit.js";
import { postgres } from "./kysely.js";
import { LiteralError, renderValue } from "./literal.js";
import { resolvePlan } from "./resolve.js";

export interface PrintOptions {
  readonly central?: CentralFacts;
  readonly contextFacts?: readonly GroundFact[];
  /** Unix seconds for `@current_unix_time`; defaults to the system clock. */
  readonly now?: () => bigint;
}

function systemNow(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

/** Whether a literal for this value can exist in a column of its type (else it matches nothing). */
export function renderableIn(bindings: DataBindings): (value: Value) => boolean {
  return (value) => {
    try {
      return renderValue(value, bindings.sqlTypes.get(value.type)) !== null;
    } catch (error) {
      if (error instanceof LiteralError) return false;
      throw error;
    }
  };
}

/**
 * The statement for `plan` with this request's values, as a Kysely expression.
 *
 *   printPlan(plan, bindings, new Map([["actor", ["17"]]]), { kind: "exists", column: "allowed" })
 */
export function printPlan(
  plan: Plan,
  bindings: DataBindings,
  params: ReadonlyMap<string, readonly string[]>,
  shape: Shape,
  options: PrintOptions = {},
): RawBuilder<unknown> {
  const resolved = resolvePlan(plan, {
    params,
    facts: factRows(options.central ?? NO_CENTRAL_FACTS, options.contextFacts ?? []),
    now: (options.now ?? systemNow)(),
    renderable: renderableIn(bindings),
    bindings,
    strictOutputs: shape.kind === "select",
  });
  return emitStatement(resolved, plan.outputs, bindings, shape);
}

/** The SQL text of a statement built by `printPlan` (no placeholders: every value is inlined). */
export function sqlText(statement: RawBuilder<unknown>): string {
  return statement.compile(postgres).sql;
}
