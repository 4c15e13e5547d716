/**
 * Fact sync: for each signature of a sync file, the facts its query yields are the facts the
 * target should store under that signature. Planning reads every query and the stored facts
 * and checks every fact before anything is written; applying inserts what is missing and
 * deletes what is stale, in batches. A second run finds nothing to do.
 */
import { checkFact, checkFactValue } from "../check/facts.js";
import { formatFact, type GroundFact } from "../core/value.js";
import { tick } from "../source/diagnostic.js";
import type { SyncConfig, SyncedSignature } from "./config.js";
import type { SourceConnections } from "./source.js";
import type { FactTarget } from "./target.js";

export interface SyncStep {
  readonly signature: SyncedSignature;
  readonly inserts: readonly GroundFact[];
  readonly deletes: readonly GroundFact[];
  /** Wanted facts already stored. */
  readonly unchanged: number;
}

/** A fact a query yields that the target would refuse; nothing was written. */
export class SyncFactError extends Error {
  override readonly name = "SyncFactError";
}

const key = (fact: GroundFact) => JSON.stringify([fact.predicate, fact.args]);

/**
 * The signatures to sync: all, or those given (in any spelling the signature grammar takes).
 *
 *   selectSignatures(config, ["has_role(User:_, admin, Company:_)"]);
 */
export function selectSignatures(
  config: SyncConfig,
  only: readonly string[],
  canonical: (text: string) => string | null,
): SyncedSignature[] {
  if (only.length === 0) return [...config.facts];
  const wanted = only.map((text) => {
    const signature = canonical(text);
    const found = config.facts.find((f) => f.signature === signature);
    if (!found) {
      const listed = config.facts.map((f) => tick(f.signature)).join(", ");
      throw new SyncFactError(
        `${tick(text)} is not a signature of ${config.file}; it lists ${listed || "none"}`,
      );
    }
    return found;
  });
  return config.facts.filter((f) => wanted.includes(f));
}

/**
 * What a sync would change, signature by signature. Reads only.
 *
 *   const steps = await planSync(signatures, sources, target);
 *   steps.map((s) => [s.signature.signature, s.inserts.length, s.deletes.length]);
 */
export async function planSync(
  signatures: readonly SyncedSignature[],
  sources: SourceConnections,
  target: FactTarget,
): Promise<SyncStep[]> {
  const program = await target.program();
  const wanted = new Map<SyncedSignature, GroundFact[]>();
  const desired = new Set<string>();
  for (const signature of signatures) {
    const facts = await sources.facts(signature);
    for (const fact of facts) {
      const problem = program
        ? checkFact(program, fact)
        : fact.args.map(checkFactValue).find((d) => d !== null);
      if (problem) {
        throw new SyncFactError(
          `${signature.where}: the query of ${tick(signature.signature)} yields \`${formatFact(fact)}\`, which the store refuses: ${problem.message}`,
        );
      }
      desired.add(key(fact));
    }
    wanted.set(signature, facts);
  }
  const inserted = new Set<string>();
  const steps: SyncStep[] = [];
  for (const signature of signatures) {
    const stored = await target.stored(signature);
    const storedKeys = new Set(stored.map(key));
    const inserts: GroundFact[] = [];
    let unchanged = 0;
    for (const fact of wanted.get(signature)!) {
      const k = key(fact);
      if (storedKeys.has(k)) unchanged++;
      else if (!inserted.has(k)) {
        inserted.add(k);
        inserts.push(fact);
      }
    }
    // A fact another selected signature wants is not stale.
    const deletes = stored.filter((fact) => !desired.has(key(fact)));
    steps.push({ signature, inserts, deletes, unchanged });
  }
  return steps;
}

/** At most this many facts per write; each batch is one transaction (one request to a server). */
const SYNC_BATCH_FACTS = 2000;
/** And at most about this many bytes of JSON, well below a server's 10 MiB body limit. */
const SYNC_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Consecutive slices of at most `SYNC_BATCH_FACTS` facts and about `SYNC_BATCH_BYTES`.
 *
 *   [...batches(facts)].map((b) => b.length); // [2000, 2000, 17]
 */
export function* batches(facts: readonly GroundFact[]): Generator<GroundFact[]> {
  let batch: GroundFact[] = [];
  let bytes = 0;
  for (const fact of facts) {
    const size = JSON.stringify(fact).length;
    if (batch.length > 0 && (batch.length >= SYNC_BATCH_FACTS || bytes + size > SYNC_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(fact);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

type SyncProgress = (signature: SyncedSignature, done: number, total: number) => void;

/**
 * Applies a plan: per signature, inserts then deletes, in `batches`.
 * A batch that fails stops the sync; earlier batches stay, and running again finishes it.
 */
export async function applySync(
  steps: readonly SyncStep[],
  target: FactTarget,
  progress: SyncProgress = () => {},
): Promise<void> {
  for (const step of steps) {
    const total = step.inserts.length + step.deletes.length;
    let done = 0;
    progress(step.signature, done, total);
    for (const [list, insert] of [
      [step.inserts, true],
      [step.deletes, false],
    ] as const) {
      for (const chunk of batches(list)) {
        await (insert ? target.apply(chunk, []) : target.apply([], chunk));
        done += chunk.length;
        progress(step.signature, done, total);
      }
    }
  }
}
