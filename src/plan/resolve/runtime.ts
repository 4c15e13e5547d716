/**
 * What resolving a cached plan reads of one request: its params, the clock, the fact rows
 * from outside the caller's database, and which values the target can write.
 */

import type { DataBindings } from "../../bindings/types.js";
import { BUILTINS } from "../../builtins/registry.js";
import { compareValues, type Value, valuesEqual } from "../../core/value.js";
import type { SourceFile } from "../../source/source.js";
import type { Condition, Term } from "../ir.js";
import type { FactRows } from "./central-facts.js";

export interface Runtime {
  /** Ids of each param (one for a single param, any number for a `many` param). */
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly facts: FactRows;
  /** The clock builtins read, in Unix seconds. */
  readonly now: bigint;
  /** Whether the value can be written for a column of its type (else it matches nothing). */
  readonly renderable: (value: Value) => boolean;
  readonly bindings: DataBindings;
  /**
   * Outputs are the answer itself (select mode): a value SQL cannot write is an error rather
   * than a dropped row. Elsewhere outputs only meet the caller's column, which cannot hold it.
   */
  readonly strictOutputs?: boolean;
  /**
   * Whether a value may be appended to a binding's rows, whose column it then reads as that
   * column's type (split-rows.ts). Absent: every value may.
   */
  readonly unionSafe?: (value: Value) => boolean;
  /** The policy's files, for the span of a refusal; absent: refusals name no place. */
  readonly sources?: readonly SourceFile[];
  /**
   * Param lists stay `param` sources, read from one array parameter when printed (the
   * dialect's `idsTable`), instead of rows of their ids: the statement's text is then the same
   * for any number of ids. Absent: lists become rows.
   */
  readonly idArrays?: boolean;
}

/**
 * The value of a literal, a single param or a builtin; null for other terms. Params and
 * builtins stay in the plan and are rendered from these values when printed.
 */
export function staticValue(term: Term, runtime: Pick<Runtime, "params" | "now">): Value | null {
  switch (term.kind) {
    case "literal":
      return term.value;
    case "builtin":
      return BUILTINS[term.name].value(runtime);
    case "param": {
      const ids = runtime.params.get(term.name) ?? [];
      if (ids.length !== 1) {
        throw new Error(`internal: param \`${term.name}\` needs exactly one id, got ${ids.length}`);
      }
      return { type: term.type, id: ids[0]! };
    }
    default:
      return null;
  }
}

/** The terms of a compare/in condition, its evaluation given their values. */
export function conditionTerms(
  condition: Condition,
): { terms: Term[]; test: (values: Value[]) => boolean } | null {
  switch (condition.kind) {
    case "compare":
      return {
        terms: [condition.left, condition.right],
        test: ([a, b]) => compareValues(condition.op, a!, b!),
      };
    case "in":
      return {
        terms: [condition.term, ...condition.values],
        test: ([element, ...values]) => values.some((v) => valuesEqual(element!, v)),
      };
    case "not_exists":
    case "exists":
      return null;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}
