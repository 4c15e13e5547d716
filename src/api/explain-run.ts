/**
 * One run of explain's reference evaluator over the stored facts loaded so far (src/api/explain.ts
 * loads more and runs again until a run asks for nothing new). A run is plain data in and out,
 * so it can be made in a worker thread (src/workers/work.ts): it answers every fact lookup it
 * made, and its result — whether `allow` holds, or the explanation as JSON text within the
 * size budget, or the evaluator's refusal.
 */
import type { PredicateKey, Program } from "../check/program.js";
import { type GroundFact, isAbstractType } from "../core/value.js";
import { allowHolds, type ExplainQuestion, explainAllow } from "../evaluate/explain.js";
import type { FactLayer } from "../evaluate/explain-context.js";
import {
  type ExplanationBudget,
  ExplanationTooLarge,
  explanationJson,
} from "../evaluate/explain-json.js";
import { indexFacts } from "../evaluate/facts.js";
import { isWildcard, type Slot } from "../evaluate/slot.js";
import { StageError } from "../source/stage-error.js";
import type { FactLookup } from "../store/fact-lookups.js";

export interface ExplainRun {
  /** `holds`: only whether `allow` holds (it reads most of what the tree needs); `explain`: the tree. */
  readonly mode: "holds" | "explain";
  readonly question: ExplainQuestion;
  /** The stored facts loaded so far. */
  readonly stored: readonly GroundFact[];
  readonly context: readonly GroundFact[];
  /** The clock builtins read, in Unix seconds, as text; null: the system clock. */
  readonly now: string | null;
  readonly budget: ExplanationBudget;
}

export type ExplainRunOutcome =
  | { readonly kind: "holds"; readonly holds: boolean }
  /** The explanation as JSON text (`explanationJson`). */
  | { readonly kind: "explained"; readonly json: string }
  | { readonly kind: "too-large"; readonly bound: keyof ExplanationBudget; readonly value: number }
  /** The evaluator refused the question (a `StageError`'s one-line message). */
  | { readonly kind: "refused"; readonly message: string };

export interface ExplainRunResult {
  /** Every fact lookup the run made, each once: the caller loads those it has not. */
  readonly lookups: readonly FactLookup[];
  readonly outcome: ExplainRunOutcome;
}

/** Runs one evaluation somewhere: in place (`performExplainRun`) or in the worker pool. */
export type ExplainEvaluator = (run: ExplainRun) => Promise<ExplainRunResult>;

/** One run, in this thread. */
export function performExplainRun(program: Program, run: ExplainRun): ExplainRunResult {
  const lookups = new Map<string, FactLookup>();
  const onLookup = (predicate: PredicateKey, pattern: readonly Slot[]) => {
    const lookup = storeLookup(program, predicate, pattern);
    const key = lookupKey(lookup);
    if (!lookups.has(key)) lookups.set(key, lookup);
  };
  const layers: FactLayer[] = [{ source: "stored", facts: indexFacts(run.stored) }];
  if (run.context.length > 0) layers.push({ source: "context", facts: indexFacts(run.context) });
  const now = run.now;
  const options = { onLookup, ...(now !== null && { now: () => BigInt(now) }) };
  const outcome = ((): ExplainRunOutcome => {
    try {
      if (run.mode === "holds") {
        return { kind: "holds", holds: allowHolds(program, layers, run.question, options) };
      }
      const explained = explainAllow(program, layers, run.question, options);
      return { kind: "explained", json: explanationJson(explained, run.budget) };
    } catch (error) {
      if (error instanceof ExplanationTooLarge) {
        return { kind: "too-large", bound: error.bound, value: error.value };
      }
      // Over a part of the facts a question may fail where the whole would not: the caller
      // loads what the run asked for and tries again before it reports this.
      if (error instanceof StageError) return { kind: "refused", message: error.message };
      throw error;
    }
  })();
  return { lookups: [...lookups.values()], outcome };
}

export const lookupKey = (lookup: FactLookup) => JSON.stringify(lookup);

/** The fact table read that covers a lookup: bound values, and a type where only one fits. */
function storeLookup(program: Program, key: PredicateKey, pattern: readonly Slot[]): FactLookup {
  return {
    predicate: key.slice(0, key.lastIndexOf("/")),
    arity: pattern.length,
    pattern: pattern.map((slot) => (isWildcard(slot) ? null : slot)),
    types: pattern.map((slot) =>
      isWildcard(slot) && slot.types.length === 1 && exactType(program, slot.types[0]!)
        ? slot.types[0]!
        : null,
    ),
  };
}

/** No other type is a subtype of `type`: a stored value of it has exactly this type. */
function exactType(program: Program, type: string): boolean {
  if (isAbstractType(type)) return false;
  for (const info of program.types.values()) {
    if (info.name !== type && info.ancestors.includes(type)) return false;
  }
  return true;
}
