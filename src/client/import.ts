/**
 * Sending checked facts to a server, all or nothing from the caller's view. Each batch is one
 * atomic `/batch` request. Before a batch that later ones follow is sent, the facts of it that
 * are not stored yet are looked up: if a later batch is refused, exactly those are deleted
 * again, so that the store is as it was (a fact stored before the import stays stored). The
 * refused fact is found by halving its batch, and its halves are undone too.
 */
import { ClientError, type PolarClient, type WireFact } from "./http.js";

export interface NumberedFact {
  readonly line: number;
  readonly fact: WireFact;
}

/** Bodies stay well below the server's 10 MiB limit whatever the batch size. */
const MAX_BATCH_BYTES = 4 << 20;

/** Lookups of stored facts under way at once. */
const LOOKUPS_AT_ONCE = 8;

/** Why the import stopped, the line of the refused fact if one, and whether it was undone. */
export class ImportFailure extends Error {
  constructor(
    readonly reason: string,
    readonly line: number | null,
    /** The facts this import stored and could not delete again (0 when fully undone). */
    readonly remaining: number,
    /** How many facts the import had stored when it stopped (and then deleted again). */
    readonly undone: number,
  ) {
    super(reason);
    this.name = "ImportFailure";
  }
}

interface SendOptions {
  /** Facts per request. */
  readonly batchSize: number;
  /** How many facts the records hold (known from the first pass): the last batch needs no lookup. */
  readonly total: number;
  /** Called after each batch with the number of facts sent so far. */
  readonly progress?: (sent: number) => void;
}

/**
 * Sends every fact in batches; on a failure, deletes what the import added and throws an
 * `ImportFailure`. Returns the number of facts sent.
 */
export async function sendFacts(
  client: PolarClient,
  records: AsyncIterable<NumberedFact>,
  options: SendOptions,
): Promise<number> {
  const added: WireFact[] = [];
  let sent = 0;
  let batch: NumberedFact[] = [];
  let bytes = 0;
  const send = async () => {
    const last = sent + batch.length >= options.total;
    try {
      // The last batch is atomic, and nothing follows it that could need it undone.
      const fresh = last ? [] : await notStored(client, batch);
      await client.batch([{ inserts: batch.map((record) => record.fact) }]);
      added.push(...fresh);
    } catch (error) {
      throw await undo(client, added, await refusal(client, batch, error, added));
    }
    sent += batch.length;
    batch = [];
    bytes = 0;
    options.progress?.(sent);
  };
  for await (const record of records) {
    batch.push(record);
    bytes += JSON.stringify(record.fact).length;
    if (batch.length >= options.batchSize || bytes >= MAX_BATCH_BYTES) await send();
  }
  if (batch.length > 0) await send();
  return sent;
}

/** The facts of a batch not stored yet, each once. */
async function notStored(client: PolarClient, batch: readonly NumberedFact[]): Promise<WireFact[]> {
  const unique = new Map(batch.map((record) => [JSON.stringify(record.fact), record.fact]));
  const facts = [...unique.values()];
  const fresh: WireFact[] = [];
  for (let start = 0; start < facts.length; start += LOOKUPS_AT_ONCE) {
    const group = facts.slice(start, start + LOOKUPS_AT_ONCE);
    const found = await Promise.all(group.map((fact) => isStored(client, fact)));
    group.forEach((fact, i) => {
      if (!found[i]) fresh.push(fact);
    });
  }
  return fresh;
}

async function isStored(client: PolarClient, fact: WireFact): Promise<boolean> {
  // `GET /facts` matches facts of any arity whose listed positions match.
  const matches = await client.getFacts(fact.predicate, fact.args);
  return matches.some((match) => match.args.length === fact.args.length);
}

/**
 * Why a batch failed. A refusal (400) of an atomic batch stored nothing: its refused fact is
 * found by halving, whose accepted halves are recorded in `added` to be undone.
 */
async function refusal(
  client: PolarClient,
  batch: readonly NumberedFact[],
  error: unknown,
  added: WireFact[],
): Promise<ImportFailure> {
  if (!(error instanceof ClientError)) throw error;
  if (error.status !== 400) return new ImportFailure(error.message, null, 0, 0);
  const post = async (records: readonly NumberedFact[]) => {
    const fresh = await notStored(client, records);
    await client.batch([{ inserts: records.map((record) => record.fact) }]);
    added.push(...fresh);
  };
  let good = 0; // batch[0, good) are stored; the first refused fact is in [good, bad)
  let bad = batch.length;
  try {
    while (bad - good > 1) {
      const middle = Math.floor((good + bad) / 2);
      try {
        await post(batch.slice(good, middle));
        good = middle;
      } catch (cause) {
        if (!(cause instanceof ClientError) || cause.status !== 400) throw cause;
        bad = middle;
      }
    }
  } catch (cause) {
    if (!(cause instanceof ClientError)) throw cause;
    return new ImportFailure(cause.message, null, 0, 0);
  }
  const refused = batch[good]!;
  // Alone, the fact is refused again (nothing stored) with its own reason.
  try {
    await post([refused]);
    return new ImportFailure(
      "refused in its batch but accepted alone; run the import again",
      refused.line,
      0,
      0,
    );
  } catch (cause) {
    if (!(cause instanceof ClientError)) throw cause;
    return new ImportFailure(cause.message, refused.line, 0, 0);
  }
}

/** Deletes what the import added; the failure says how much was undone and what remains. */
async function undo(
  client: PolarClient,
  added: readonly WireFact[],
  failure: ImportFailure,
): Promise<ImportFailure> {
  let deleted = 0;
  try {
    for (let start = 0; start < added.length; start += 1000) {
      const chunk = added.slice(start, start + 1000);
      await client.batch([{ deletes: chunk }]);
      deleted += chunk.length;
    }
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
  }
  return new ImportFailure(failure.reason, failure.line, added.length - deleted, deleted);
}
