/**
 * `POST /explain` over the fact store. The reference evaluator needs facts by pattern, not all
 * of them: explain runs over the facts loaded so far while recording every lookup it could not
 * answer, loads those (set-based reads: src/store/facts.ts), and runs again, until a run asks
 * for nothing new. That run saw every stored fact it could have read, so its answer is exact.
 * The answer is written as JSON here, within the `explainNodes` and `explainBytes` limits.
 */
import { setImmediate } from "node:timers/promises";
import type { Program } from "../check/program.js";
import type { GroundFact, Value } from "../core/value.js";
import { abstractDenial } from "../evaluate/explain.js";
import { explanationJson, withJsonText } from "../evaluate/explain-json.js";
import type { Explanation } from "../evaluate/explain-node.js";
import type { SqlExecutor } from "../store/executor.js";
import { type FactLookup, matchingFactsOfEach } from "../store/fact-lookups.js";
import { relationClosure } from "../store/facts.js";
import {
  type ExplainEvaluator,
  type ExplainRun,
  type ExplainRunOutcome,
  lookupKey,
  performExplainRun,
} from "./explain-run.js";
import { DEFAULT_LIMITS, type Limits, limitError } from "./limits.js";
import { ApiError } from "./service.js";

/** A validated `/authorize` body (see `authorizeBodySchema`). */
interface ExplainRequest {
  readonly actor_type: string;
  readonly actor_id: string;
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
}

/** The clock, the limits of an explanation's size (the defaults when not given), and where runs are made. */
interface ExplainSettings {
  readonly now?: () => bigint;
  readonly limits?: Pick<Limits, "explainNodes" | "explainBytes">;
  /** Where each run of the evaluator is made; in this thread by default. */
  readonly evaluate?: ExplainEvaluator;
}

/**
 * Explains an `/authorize` question from stored facts plus the (checked) context facts. The
 * answer carries its JSON text (`jsonTextOf`); one over the size limits is refused with a 422.
 *
 *   await explainStored(store.db, program, body, contextFacts, { now });
 *   // { allowed: false, explanation: { goal: 'allow(User{"bo"}, …)', holds: false, … } }
 */
export async function explainStored(
  db: SqlExecutor,
  program: Program,
  request: ExplainRequest,
  contextFacts: readonly GroundFact[],
  settings: ExplainSettings,
): Promise<Explanation> {
  const question = {
    actor: { type: request.actor_type, id: request.actor_id },
    action: request.action,
    resource: { type: request.resource_type, id: request.resource_id },
  };
  const denial = abstractDenial(question);
  if (denial) return withJsonText(denial, explanationJson(denial));
  const limits = settings.limits ?? DEFAULT_LIMITS;
  const evaluate =
    settings.evaluate ?? ((run: ExplainRun) => Promise.resolve(performExplainRun(program, run)));
  const loaded = new LoadedFacts();
  // Relations chain (a document's folder, its parents, their organization) one level per run;
  // reading the chains from the question's values first saves a run per level.
  await loadChains(db, loaded, [question.resource, question.actor]);
  const base = {
    question,
    context: contextFacts,
    now: settings.now ? settings.now().toString() : null,
    budget: { maxNodes: limits.explainNodes, maxBytes: limits.explainBytes },
  };
  // First only the answer, which reads most of what the tree needs, then the tree.
  refuseIfRefused(await untilComplete(db, loaded, evaluate, { ...base, mode: "holds" }));
  const outcome = await untilComplete(db, loaded, evaluate, { ...base, mode: "explain" });
  refuseIfRefused(outcome);
  switch (outcome.kind) {
    case "explained":
      // JSON.parse reads any depth; the text is what the reply sends.
      return withJsonText(JSON.parse(outcome.json) as Explanation, outcome.json);
    case "too-large": {
      const name = outcome.bound === "maxNodes" ? "explainNodes" : "explainBytes";
      throw limitError(name, outcome.value, "the explanation is too large");
    }
    case "holds":
      throw new Error("internal: an explain run answered without its tree");
    default: {
      const _never: never = outcome;
      return _never;
    }
  }
}

/** The evaluator's refusal of the question, as the 400 every stage's refusal is. */
function refuseIfRefused(
  outcome: ExplainRunOutcome,
): asserts outcome is Exclude<ExplainRunOutcome, { kind: "refused" }> {
  if (outcome.kind === "refused") throw new ApiError(400, outcome.message);
}

/** Values whose relations one closure reads; a longer chain takes another run per this many. */
const MAX_CHAIN_VALUES = 4096;

/** Every relation of the values reachable from `seeds` (up to `MAX_CHAIN_VALUES`), loaded. */
async function loadChains(db: SqlExecutor, loaded: LoadedFacts, seeds: readonly Value[]) {
  // No stored value holds a NUL (PostgreSQL text cannot).
  const readable = seeds.filter((value) => !`${value.type}${value.id}`.includes("\u0000"));
  const chains = await relationClosure(db, readable, MAX_CHAIN_VALUES);
  for (const [key, facts] of chains) {
    const [type, id] = key.split("\u0000") as [string, string];
    const lookup = relationsOf({ type, id });
    if (!loaded.answers(lookup)) loaded.add(lookup, facts);
  }
}

const relationsOf = (value: Value): FactLookup => ({
  predicate: "has_relation",
  arity: 3,
  pattern: [value, null, null],
  types: [],
});

/** Stored facts read so far, and which lookups they answer. */
class LoadedFacts {
  /** Lookups by predicate, arity and the values they fix (`bucketKey`). */
  private readonly lookups = new Map<string, FactLookup[]>();
  private readonly facts: GroundFact[] = [];
  /** Lookups known to be answered, as `lookupKey` gives them. */
  private readonly answered = new Set<string>();

  add(lookup: FactLookup, facts: readonly GroundFact[]): void {
    const key = bucketKey(lookup, boundPositions(lookup));
    const bucket = this.lookups.get(key);
    if (bucket) bucket.push(lookup);
    else this.lookups.set(key, [lookup]);
    for (const fact of facts) this.facts.push(fact);
  }

  /**
   * Some lookup read so far returned every fact this one can (a superset is fine): one that
   * fixes some of the values this one fixes, and no others.
   */
  answers(wanted: FactLookup, key = lookupKey(wanted)): boolean {
    if (this.answered.has(key)) return true;
    const bound = boundPositions(wanted);
    // Every subset of the fixed positions (a few: facts have at most 8 arguments).
    const subsets = bound.length <= 8 ? 1 << bound.length : 0;
    const candidates = subsets > 0 ? [] : [[], bound];
    for (let mask = 0; mask < subsets; mask++) {
      candidates.push(bound.filter((_, i) => mask & (1 << i)));
    }
    const found = candidates.some((positions) =>
      this.lookups.get(bucketKey(wanted, positions))?.some((done) => covers(done, wanted)),
    );
    if (found) this.answered.add(key);
    return found;
  }

  stored(): readonly GroundFact[] {
    return this.facts;
  }
}

function boundPositions(lookup: FactLookup): number[] {
  return (lookup.pattern ?? []).flatMap((value, i) => (value ? [i] : []));
}

/** Predicate and arity, and the values at `positions`. */
function bucketKey(lookup: FactLookup, positions: readonly number[]): string {
  const values = positions.map((i) => {
    const value = lookup.pattern![i]!;
    return `\u0001${i}\u0001${value.type}\u0000${value.id}`;
  });
  return `${lookup.predicate}/${lookup.arity}${values.join("")}`;
}

function covers(done: FactLookup, wanted: FactLookup): boolean {
  for (let i = 0; i < wanted.arity; i++) {
    const value = done.pattern?.[i];
    const other = wanted.pattern?.[i];
    if (value && !(other && other.type === value.type && other.id === value.id)) return false;
    const type = done.types?.[i];
    if (type && (other ? other.type : wanted.types?.[i]) !== type) return false;
  }
  return true;
}

/**
 * Runs the evaluator over the stored facts loaded so far, loads the lookups it could not
 * answer (in one statement), and runs it again until it asks for nothing new.
 */
async function untilComplete(
  db: SqlExecutor,
  loaded: LoadedFacts,
  evaluate: ExplainEvaluator,
  run: Omit<ExplainRun, "stored">,
): Promise<ExplainRunOutcome> {
  for (;;) {
    // Other requests go first between runs (a run in this thread holds the event loop).
    await setImmediate();
    const result = await evaluate({ ...run, stored: loaded.stored() });
    const missing = new Map<string, FactLookup>();
    for (const lookup of result.lookups) {
      const key = lookupKey(lookup);
      if (!missing.has(key) && !loaded.answers(lookup, key)) missing.set(key, lookup);
    }
    if (missing.size === 0) return result.outcome;
    // A relation from a value: read the chains from there, a run per `MAX_CHAIN_VALUES`.
    const seeds = [...missing.values()].flatMap((lookup) => {
      const from = lookup.pattern?.[0];
      return lookup.predicate === "has_relation" && lookup.arity === 3 && from ? [from] : [];
    });
    if (seeds.length > 0) await loadChains(db, loaded, seeds);
    const lookups = [...missing.values()].filter((lookup) => !loaded.answers(lookup));
    const found = await matchingFactsOfEach(db, lookups);
    lookups.forEach((lookup, i) => {
      loaded.add(lookup, found[i]!);
    });
  }
}
