/**
 * Recurring reads on a PostgreSQL pool (`SqlExecutor.prepared`), several to a message.
 *
 * Each read is a prepared statement `EXECUTE`d with literal arguments. While every session the
 * reads may use is busy, new ones wait; a session that comes free sends all that wait (up to
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
import { quoteString } from "../dialects/postgres/literal.js";
import { preparedNames } from "./executor.js";

/** Reads sent in one message at most. */
const BATCH_LIMIT = 8;
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

type RecurringRead = <Row>(
  sql: string,
  params: readonly string[],
  deadline: number | undefined,
) => Promise<Row[]>;

/**
 * Reads on at most `sessions` of `pool`'s sessions at once. Each session prepares what it
 * runs; a session whose state is unknown after a failure is closed, not reused.
 */
export function recurringReads(
  pool: pg.Pool,
  sessions: number,
  bounded: DeadlineGuard,
): RecurringRead {
  const prepared = new WeakMap<pg.PoolClient, SessionStatements>();
  const waiting: Waiting[] = [];
  let sending = 0;

  /** The next message's reads: one alone, or up to BATCH_LIMIT; those past their deadline fail. */
  const nextBatch = (): Waiting[] => {
    const batch: Waiting[] = [];
    const now = Date.now();
    while (waiting.length > 0 && batch.length < BATCH_LIMIT) {
      const read = waiting[0]!;
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
      prepared.delete(client);
      client.release(true);
      return false;
    } catch (cause) {
      prepared.delete(client);
      client.release(true);
      if (batch.length === 1) batch[0]!.reject(cause);
      else {
        for (const read of batch) read.alone = true;
        waiting.unshift(...batch);
      }
      return false;
    }
  };

  const drain = async () => {
    let client: pg.PoolClient | null = null;
    try {
      for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
        if (!client) {
          try {
            client = await pool.connect();
          } catch (cause) {
            for (const read of [...batch, ...waiting.splice(0)]) read.reject(cause);
            return;
          }
        }
        if (!(await send(client, batch))) client = null;
      }
    } finally {
      sending--;
      client?.release();
    }
  };

  return <Row>(sql: string, params: readonly string[], deadline: number | undefined) =>
    new Promise<Row[]>((resolve, reject) => {
      const since = Date.now();
      const answer = resolve as Waiting["resolve"];
      waiting.push({ sql, params, deadline, since, alone: false, resolve: answer, reject });
      if (sending < sessions) {
        sending++;
        void drain();
      }
    });
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
