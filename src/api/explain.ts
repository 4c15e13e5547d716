/**
 * `POST /explain` over the fact store. The reference evaluator needs facts by pattern, not all
 * of them: explain runs over the facts loaded so far while recording every lookup it could not
 * answer, loads those (one statement of indexed reads), and runs again, until a run asks for
 * nothing new. That run saw every stored fact it could have read, so its answer is exact.
 */
import type { PredicateKey, Program } from "../check/program.js";
import { type GroundFact, isAbstractType } from "../core/value.js";
import { abstractDenial, allowHolds, explainAllow } from "../evaluate/explain.js";
import type { FactLayer } from "../evaluate/explain-context.js";
import type { Explanation } from "../evaluate/explain-node.js";
import { indexFacts } from "../evaluate/facts.js";
import { isWildcard, type Slot } from "../evaluate/slot.js";
import type { FactLookupListener } from "../evaluate/tables.js";
import type { SqlExecutor } from "../store/executor.js";
import { type FactLookup, matchingFactsOfEach, relationClosure } from "../store/facts.js";

/** A validated `/authorize` body (see `authorizeBodySchema`). */
export interface ExplainRequest {
  readonly actor_type: string;
  readonly actor_id: string;
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
}

/**
 * Explains an `/authorize` question from stored facts plus the (checked) context facts.
 *
 *   await explainStored(store.db, program, body, contextFacts, { now });
 *   // { allowed: false, explanation: { goal: 'allow(User{"bo"}, …)', holds: false, … } }
 */
export async function explainStored(
  db: SqlExecutor,
  program: Program,
  request: ExplainRequest,
  contextFacts: readonly GroundFact[],
  clock: { readonly now?: () => bigint },
): Promise<Explanation> {
  const question = {
    actor: { type: request.actor_type, id: request.actor_id },
    action: request.action,
    resource: { type: request.resource_type, id: request.resource_id },
  };
  const denial = abstractDenial(question);
  if (denial) return denial;
  const context: FactLayer[] = contextFacts.length
    ? [{ source: "context", facts: indexFacts(contextFacts) }]
    : [];
  const loaded = new LoadedFacts();
  // Relations chain (a document's folder, its parents, their organization) one level per run;
  // reading the chains from the question's values first saves a run per level.
  const chains = await relationClosure(db, [question.resource, question.actor], MAX_CHAIN_VALUES);
  for (const [key, facts] of chains) {
    const [type, id] = key.split("\u0000") as [string, string];
    loaded.add(
      { predicate: "has_relation", arity: 3, pattern: [{ type, id }, null, null], types: [] },
      facts,
    );
  }
  const options = clock.now ? { now: clock.now } : {};
  // First only the answer, which reads most of what the tree needs, then the tree.
  await untilComplete(db, program, loaded, (layers, onLookup) =>
    allowHolds(program, [...layers, ...context], question, { ...options, onLookup }),
  );
  return untilComplete(db, program, loaded, (layers, onLookup) =>
    explainAllow(program, [...layers, ...context], question, { ...options, onLookup }),
  );
}

/** Values whose relations are read up front; a longer chain is read run by run. */
const MAX_CHAIN_VALUES = 256;

/** Stored facts read so far, and which lookups they answer. */
class LoadedFacts {
  private readonly lookups = new Map<string, FactLookup[]>();
  private readonly facts: GroundFact[] = [];

  add(lookup: FactLookup, facts: readonly GroundFact[]): void {
    const key = `${lookup.predicate}/${lookup.arity}`;
    this.lookups.set(key, [...(this.lookups.get(key) ?? []), lookup]);
    this.facts.push(...facts);
  }

  /** Some lookup read so far returned every fact this one can (a superset is fine). */
  answers(wanted: FactLookup): boolean {
    const candidates = this.lookups.get(`${wanted.predicate}/${wanted.arity}`) ?? [];
    return candidates.some((done) => covers(done, wanted));
  }

  index() {
    return indexFacts(this.facts);
  }
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
 * Runs `work` over the stored facts loaded so far, loads the lookups it could not answer (in
 * one statement), and runs it again until it asks for nothing new.
 */
async function untilComplete<T>(
  db: SqlExecutor,
  program: Program,
  loaded: LoadedFacts,
  work: (layers: readonly FactLayer[], onLookup: FactLookupListener) => T,
): Promise<T> {
  for (;;) {
    const missing = new Map<string, FactLookup>();
    const onLookup = (predicate: PredicateKey, pattern: readonly Slot[]) => {
      const lookup = storeLookup(program, predicate, pattern);
      if (!loaded.answers(lookup)) missing.set(JSON.stringify(lookup), lookup);
    };
    let result: { value: T } | undefined;
    let failure: unknown;
    try {
      result = { value: work([{ source: "stored", facts: loaded.index() }], onLookup) };
    } catch (error) {
      // Over a part of the facts a question may fail where the whole would not: load and retry.
      failure = error;
    }
    if (missing.size === 0) {
      if (result) return result.value;
      throw failure;
    }
    const lookups = [...missing.values()];
    const found = await matchingFactsOfEach(db, lookups);
    lookups.forEach((lookup, i) => {
      loaded.add(lookup, found[i]!);
    });
  }
}

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
