/**
 * The dialect seam. A dialect is one small object: the lowering rules where engines spell
 * things differently (src/lower/rules.ts), how values are written (literals and parameters of
 * each SQL type), and Kysely's query compiler for the engine, extended to print our values.
 * docs/architecture.md, "Adding a dialect", lists what a new one takes.
 */
import type { CastNode, DefaultQueryCompiler, OperationNode } from "kysely";
import type { Value } from "../core/value.js";
import type { LoweringRules } from "../lower/rules.js";

export interface Dialect extends LoweringRules {
  /**
   * Whether a column of the value's type (`sqlType`: its `sql_types` entry) can hold the value;
   * a comparison with one that cannot is simply false, and resolution drops it.
   */
  canWrite(value: Value, sqlType: string | undefined): boolean;
  /**
   * The literal for a value that `canWrite` accepts. `typed`: it must carry its SQL type (a
   * select list, a row of a derived table), where the engine cannot infer one from a column.
   */
  literal(value: Value, sqlType: string | undefined, typed: boolean): string;
  /** The text a driver sends for the value as a parameter (for values `canWrite` accepts). */
  parameter(value: Value, sqlType: string | undefined): string;
  /** The SQL type a parameter holding values of Polar type `type` is cast to. */
  parameterType(type: string, sqlType: string | undefined): string;
  /**
   * What a cast the rules asked for prints as, where the engine has no `CAST` to that type
   * (MySQL's `varbinary`); null prints the cast as it is.
   */
  printedCast?(node: CastNode): OperationNode | null;
  /**
   * How a param list travels as one parameter, where the rules have `idsTable`: the
   * placeholder as written (`cast($1 as text[])`) and the parameter's text for the ids'
   * parameter texts (distinct, each one `parameter` wrote).
   */
  readonly idsParameter?: {
    placeholder(placeholder: string, type: string, sqlType: string | undefined): string;
    text(ids: readonly string[], type: string, sqlType: string | undefined): string;
  };
  /** Kysely's query compiler class for the engine (quoting, placeholders). */
  readonly compiler: new () => DefaultQueryCompiler;
}
