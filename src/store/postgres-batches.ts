/**
 * Recurring reads on a PostgreSQL pool (`SqlExecutor.prepared`), several to a message.
 *
 * Each read is a prepared statement `EXECUTE`d with literal arguments. While the sessions the
 * reads use are busy, new ones wait; a session that comes free sends all that wait (up to
 * `BATCH_LIMIT`) in one simple-protocol message, `EXECUTE a(…); EXECUTE b(…)`, and PostgreSQL
 * answers each in turn before one ReadyForQuery. A read that finds a session free goes alone,
 * so a quiet store sees no change; a saturated one pays one message, one wake-up of its backend
 * and one of the event loop per batch instead of per read (bench/RESULTS.md, "Reads in
 * batches").
 *
 * The statements of one message run in one implicit transaction: the first that fails (a
 * cancel at the earliest deadline, a session the server ended) ends the rest. The batch is then
 * sent again one read at a time on fresh sessions, so each read fails or answers on its own.
 */
import type pg from "pg";
import { DeadlineExceeded } from "../core/deadline.js";
import { Fifo } from "../core/fifo.js";
import { quoteString } from "../dialects/postgres/literal.js";
import { preparedNames, type ReadMessages } from "./executor.js";

/** Reads sent in one message at most. */
const BATCH_LIMIT = 8;
/**
 * Sessions reads keep while those answer: two backends keep a PostgreSQL of a few cores busy,
 * and reads that wait for them go in fuller messages (bench/RESULTS.md, "Two steady sessions").
 */
const STEADY_SESSIONS = 2;
/**
 * How long the sessions in use may answer nothing before a waiting read takes one more. Longer
 * than a scheduler's time slice: on a busy machine a backend waiting for a core is not a stuck
 * statement (at 2 ms the bench opened ~40 extra sessions a second, bench/RESULTS.md).
 */
const STALL_MS = 10;
/**
 * Prepared statements kept per session; the least recently used one is deallocated. Far more
 * than a batch holds: preparing a batch's last statement never drops one of its first.
 */
const PREPARED_PER_SESSION = 200;

/** Runs one statement on `client` until `deadline` (src/store/postgres-executor.ts). */
export interface DeadlineGuard {
  <T>(client: pg.PoolClient, deadline: number, run: () => Promise<T>): Promise<T>;
  /** A cancel was sent on this session: it must not go back to the pool. */
  cancelled(client: pg.PoolClient): boolean;
}

interface Waiting {
  readonly sql: string;
  readonly params: readonly string[];
  readonly deadline: number | undefined;
  readonly since: number;
  /** Sent in a message of its own: a batch it was in failed. */
  alone: boolean;
  resolve(rows: unknown[]): void;
  reject(cause: unknown): void;
}

interface RecurringRead {
  <Row>(sql: string, params: readonly string[], deadline: number | undefined): Promise<Row[]>;
  /** Reads sent so far, and the messages they went in. */
  counts(): ReadMessages;
}

interface Pace {
  /** Sessions kept while they answer; default `STEADY_SESSIONS`. */
  readonly steady?: number;
  /** Default `STALL_MS`. */
  readonly stallMs?: number;
}

/**
 * Reads on `steady` of `pool`'s sessions while those answer, and on more (up to `sessions`)
 * while they do not: statements that take long (large lists) do not hold up the questions
 * behind them. A session taken for a stall is given back after a message once the steady ones
 * answer again. Each session prepares what it runs; a session whose state is unknown after a
 * failure is closed, not reused.
 */
export function recurringReads(
  pool: pg.Pool,
  sessions: number,
  bounded: DeadlineGuard,
  pace: Pace = {},
): RecurringRead {
  const prepared = new WeakMap<pg.PoolClient, SessionStatements>();
  const waiting = new Fifo<Waiting>();
  const steadyLimit = Math.min(sessions, pace.steady ?? STEADY_SESSIONS);
  const stallMs = pace.stallMs ?? STALL_MS;
  let steady = 0;
  let extra = 0;
  /** When a session last answered or started (`performance.now()`); steady sessions apart. */
  let progress = 0;
  let steadyProgress = 0;
  let watch: ReturnType<typeof setTimeout> | null = null;
  let reads = 0;
  let messages = 0;

  /** The next message's reads: one alone, or up to BATCH_LIMIT; those past their deadline fail. */
  const nextBatch = (): Waiting[] => {
    const batch: Waiting[] = [];
    const now = Date.now();
    while (waiting.length > 0 && batch.length < BATCH_LIMIT) {
      const read = waiting.peek()!;
      if (read.deadline !== undefined && read.deadline <= now) {
        waiting.shift();
        read.reject(new DeadlineExceeded(now - read.since));
        continue;
      }
      if (read.alone && batch.length > 0) break;
      batch.push(waiting.shift()!);
      if (read.alone) break;
    }
    return batch;
  };

  /** Closes a session whose state is unknown, with the statements it had prepared. */
  const letGo = (client: pg.PoolClient) => {
    prepared.delete(client);
    client.release(true);
  };

  /**
   * Sends `batch` on `client`; false when the session was let go: after a failure (the reads
   * wait again, each to go alone) or a cancel that may still land on its next statement.
   */
  const send = async (client: pg.PoolClient, batch: Waiting[]): Promise<boolean> => {
    let statements = prepared.get(client);
    if (!statements) {
      statements = sessionStatements(async (text) => (await client.query(text)).rows);
      prepared.set(client, statements);
    }
    const earliest = Math.min(...batch.map((read) => read.deadline ?? Number.POSITIVE_INFINITY));
    reads += batch.length;
    messages++;
    const message = async () => {
      const texts: string[] = [];
      for (const read of batch) texts.push(await statements.execute(read.sql, read.params));
      const answer = await client.query(texts.join(";\n"));
      return Array.isArray(answer) ? answer : [answer];
    };
    try {
      const results = await (earliest === Number.POSITIVE_INFINITY
        ? message()
        : bounded(client, earliest, message));
      for (const [i, read] of batch.entries()) read.resolve(results[i]!.rows);
      if (!bounded.cancelled(client)) return true;
      letGo(client);
      return false;
    } catch (cause) {
      letGo(client);
      if (batch.length === 1) batch[0]!.reject(cause);
      else {
        for (const read of batch) read.alone = true;
        waiting.unshift(batch);
      }
      return false;
    }
  };

  const moved = (isSteady: boolean) => {
    progress = performance.now();
    if (isSteady) steadyProgress = progress;
  };

  const drain = async (isSteady: boolean) => {
    let client: pg.PoolClient | null = null;
    moved(isSteady);
    try {
      for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
        if (!client) {
          try {
            client = await pool.connect();
          } catch (cause) {
            for (const read of [...batch, ...waiting.takeAll()]) read.reject(cause);
            return;
          }
        }
        if (!(await send(client, batch))) client = null;
        moved(isSteady);
        // An extra session leaves once steady ones answer again (reads it put back after a
        // failure are theirs then); with none running it stays.
        if (!isSteady && steady > 0 && performance.now() - steadyProgress < stallMs) break;
      }
    } finally {
      if (isSteady) steady--;
      else extra--;
      client?.release();
    }
  };

  /** While reads wait and no session answers, one more session every `stallMs`. */
  const watchStall = () => {
    watch = null;
    if (waiting.length === 0 || steady + extra >= sessions) return;
    const quiet = performance.now() - progress;
    if (quiet >= stallMs) {
      extra++;
      void drain(false);
    }
    if (waiting.length > 0) arm(quiet >= stallMs ? stallMs : stallMs - quiet);
  };

  const arm = (ms: number) => {
    watch ??= setTimeout(watchStall, ms);
    watch.unref?.();
  };

  const read = <Row>(sql: string, params: readonly string[], deadline: number | undefined) =>
    new Promise<Row[]>((resolve, reject) => {
      const since = Date.now();
      const answer = resolve as Waiting["resolve"];
      waiting.push({ sql, params, deadline, since, alone: false, resolve: answer, reject });
      if (steady < steadyLimit) {
        steady++;
        void drain(true);
      } else if (steady + extra < sessions) arm(stallMs);
    });
  return Object.assign(read, { counts: () => ({ reads, messages }) });
}

interface SessionStatements {
  /** The `EXECUTE` text of `sql` with `params`, preparing it on the session first if new. */
  execute(sql: string, params: readonly string[]): Promise<string>;
}

/**
 * The prepared statements of one session, least recently used first. `EXECUTE`'s arguments
 * are literals from `quoteString`, the audited renderer (PostgreSQL takes no parameters there).
 */
function sessionStatements(run: (sql: string) => Promise<unknown>): SessionStatements {
  // The names are ours (`polar_q<n>`), and the text is a statement the store compiled.
  const nameOf = preparedNames({
    prefix: "polar_q",
    limit: PREPARED_PER_SESSION,
    prepare: (name, sql) => run(`PREPARE ${name} AS ${sql}`),
    drop: (name) => run(`DEALLOCATE ${name}`),
  });
  return {
    async execute(sql, params) {
      const name = await nameOf(sql);
      const args = params.length > 0 ? `(${params.map(quoteString).join(", ")})` : "";
      return `EXECUTE ${name}${args}`;
    },
  };
}
