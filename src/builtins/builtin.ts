/**
 * What every stage needs to know of a builtin value such as `@current_unix_time`. A builtin is
 * a value of one primitive type, read once per question from what the question brings (its
 * clock), so it is never ground: a test's setup facts refuse it (P406, src/check/test-blocks.ts).
 * Each builtin is one module of src/builtins, listed in src/builtins/registry.ts;
 * docs/architecture.md, "Adding a builtin", says what a new one takes.
 */
import type { Value } from "../core/value.js";

/** What a builtin reads of the question it is evaluated for. */
export interface BuiltinInputs {
  /** The clock builtins read, in Unix seconds, read once per question. */
  readonly now: bigint;
}

/** A builtin; a policy writes it as `@` and its name in the registry (`@current_unix_time`). */
export interface Builtin {
  /** The Polar type of its value: what checking and type inference know of it. */
  readonly type: "String" | "Integer" | "Boolean";
  /**
   * Its value for one question: the evaluator's, and the planner's when a plan is resolved for
   * a request. Every dialect then prints it as a value of `type` (a literal or a parameter).
   */
  value(inputs: BuiltinInputs): Value;
}
