/** A PostgreSQL server through a `pg` connection pool, as a `SqlExecutor`. */
import { sql } from "kysely";
import pg from "pg";
import { DeadlineExceeded, msUntil } from "../core/deadline.js";
import { compile } from "./compile.js";
import { recurrenceFilter, type SqlExecutor, type StatementHints } from "./executor.js";
import { type DeadlineGuard, recurringReads } from "./postgres-batches.js";

interface PostgresOptions {
  readonly connectionString: string;
  /** Pool size; defaults to 10. */
  readonly max?: number;
  /** How long opening a connection may take (ms); default no limit. */
  readonly connectTimeoutMs?: number;
}

/** A PostgreSQL server through a connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<SqlExecutor> {
  // The compiled questions are short, but chained recursive CTEs get huge row estimates, and
  // JIT then spends ~0.7 s compiling a list that runs in 70 ms: off for every session, as a
  // startup option next to any the URL has (a `search_path`, say).
  const url = new URL(options.connectionString);
  url.searchParams.set("options", `${url.searchParams.get("options") ?? ""} -c jit=off`.trim());
  const sessions = options.max ?? 10;
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: sessions,
    ...(options.connectTimeoutMs && { connectionTimeoutMillis: options.connectTimeoutMs }),
  });
  // An idle session the server ends (a restart, a standby stopping) is dropped by the pool;
  // without a listener its error would end the process.
  pool.on("error", () => {});
  pool.on("connect", keepErrorsFromProcess);
  // Fail fast on a wrong URL instead of at the first question.
  const probe = await pool.connect();
  probe.release();
  const recurs = recurrenceFilter();
  const listeners = new Set<pg.Client>();
  let closed = false;
  const onClient = (client: pg.PoolClient): SqlExecutor => ({
    engine: "postgres",
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await client.query(sql, params ? [...params] : undefined)).rows as Row[];
    },
    async prepared<Row>(sql: string, params: readonly string[]) {
      return (await client.query(sql, [...params])).rows as Row[];
    },
    listen: () => Promise.reject(new Error("internal: listen inside a transaction")),
    transaction: (work) => work(onClient(client)),
    close: async () => {},
  });
  // Cancels run on a session of their own, so that a full pool cannot hold them up.
  const cancels = new pg.Pool({ connectionString: url.toString(), max: 1 });
  cancels.on("error", () => {});
  cancels.on("connect", keepErrorsFromProcess);
  const bounded = deadlineGuard(cancels);
  const read = recurringReads(pool, sessions, bounded);
  const query = async <Row>(
    sql: string,
    params?: readonly unknown[],
    hints?: StatementHints,
  ): Promise<Row[]> => {
    const values = params ? [...params] : undefined;
    if (hints?.deadline === undefined) return (await pool.query(sql, values)).rows as Row[];
    const client = await pool.connect();
    try {
      return (await bounded(client, hints.deadline, () => client.query(sql, values))).rows as Row[];
    } finally {
      client.release(bounded.cancelled(client));
    }
  };
  return {
    engine: "postgres",
    query,
    prepared<Row>(sql: string, params: readonly string[], hints?: StatementHints) {
      if (!recurs(sql)) return query<Row>(sql, params, hints);
      return read<Row>(sql, params, hints?.deadline);
    },
    readMessages: read.counts,
    async listen(channel, listener) {
      const connect = async (): Promise<pg.Client> => {
        const client = new pg.Client({ connectionString: options.connectionString });
        client.on("notification", (message) => {
          if (message.channel === channel) listener.notice(message.payload ?? "");
        });
        client.on("error", () => {}); // "end" follows, and reconnects
        try {
          await client.connect();
          await client.query(compile("postgres", sql`LISTEN ${sql.id(channel)}`).sql);
          return client;
        } catch (cause) {
          await client.end().catch(() => {});
          throw cause;
        }
      };
      const watch = (client: pg.Client) => {
        listeners.add(client);
        client.once("end", () => {
          listeners.delete(client);
          if (closed) return;
          listener.lost();
          const again = () =>
            setTimeout(() => {
              if (closed) return;
              connect().then((next) => {
                watch(next);
                listener.listening();
              }, again);
            }, 1000);
          again();
        });
      };
      watch(await connect());
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(onClient(client));
        await client.query("COMMIT");
        return result;
      } catch (cause) {
        await client.query("ROLLBACK").catch(() => {});
        throw cause;
      } finally {
        client.release();
      }
    },
    async close() {
      closed = true;
      await Promise.all([...listeners].map((client) => client.end().catch(() => {})));
      await Promise.all([pool.end(), cancels.end()]);
    },
  };
}

/**
 * A listener for a session's errors for its whole life. The pool listens only while the
 * session is idle; one the server ends while the store holds it between two statements (in a
 * transaction, preparing then executing) would raise an `error` nobody hears, which ends the
 * process. The next statement on it fails instead, and the session is not reused.
 */
function keepErrorsFromProcess(client: pg.PoolClient): void {
  client.on("error", () => {});
}

/** PostgreSQL's SQLSTATE for a statement cancelled on request. */
const QUERY_CANCELED = "57014";

/**
 * Runs one statement on `client` until `deadline`: past it, the statement is cancelled from a
 * session of `cancels` (`pg_cancel_backend`), and the call fails with `DeadlineExceeded`.
 */
function deadlineGuard(cancels: pg.Pool): DeadlineGuard {
  /**
   * Sessions a cancel was sent to: the cancel may land after the statement ended, on the
   * session's next one, so they are closed instead of going back to the pool.
   */
  const doomed = new WeakSet<pg.PoolClient>();
  const guard = async <T>(
    client: pg.PoolClient,
    deadline: number,
    run: () => Promise<T>,
  ): Promise<T> => {
    const started = Date.now();
    const pid = (client as unknown as { processID: number | null }).processID;
    let cancel: Promise<unknown> | null = null;
    const timer = setTimeout(() => {
      doomed.add(client);
      cancel = cancels.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => {});
    }, msUntil(deadline));
    try {
      return await run();
    } catch (cause) {
      if (cancel && (cause as { code?: string }).code === QUERY_CANCELED)
        throw new DeadlineExceeded(Date.now() - started);
      throw cause;
    } finally {
      clearTimeout(timer);
      if (cancel) await cancel;
    }
  };
  return Object.assign(guard, { cancelled: (client: pg.PoolClient) => doomed.has(client) });
}
