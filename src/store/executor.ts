/**
 * The few things the fact store needs from a PostgreSQL connection, implemented for embedded
 * PGlite (in memory or a data directory) and for a PostgreSQL server through a `pg` pool.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { quoteIdentifier, quoteString } from "../print/postgres-literal.js";
import { cachedEmptyImage, EMBEDDED_SETTINGS, keepEmptyImage } from "./pglite-setup.js";
import { pgliteStatements } from "./pglite-statements.js";

/** What the caller knows of a statement that the engine may plan better for. */
export interface StatementHints {
  /**
   * The statement joins rows no index serves (an id array read as a table): SQLite builds an
   * automatic index on them for this statement, which the store otherwise leaves off
   * (src/store/sqlite-executor.ts). Others plan such joins themselves.
   */
  readonly joinsUnindexedRows?: boolean;
}

/**
 * The first `count` parameter placeholders of a hand-written statement for the engine:
 * `$1, $2, …` (PostgreSQL) or `?, ?, …` (SQLite, positional).
 */
export function placeholders(engine: SqlExecutor["engine"], count: number): string[] {
  return Array.from({ length: count }, (_, i) => (engine === "sqlite" ? "?" : `$${i + 1}`));
}

export interface SqlExecutor {
  /**
   * The SQL the connection speaks: PostgreSQL (a server or PGlite) or SQLite
   * (src/store/sqlite-executor.ts). Statements are written for it (`$n` or `?` parameters).
   */
  readonly engine: "postgres" | "sqlite";
  /** One statement with `$n` parameters. */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    hints?: StatementHints,
  ): Promise<Row[]>;
  /**
   * A statement that recurs with different values: from its second use it is `PREPARE`d once
   * per session and then only `EXECUTE`d, so PostgreSQL can reuse its plan. Every `$n` must
   * appear as `CAST($n AS <type>)`, since the parameter types are inferred from the text.
   */
  prepared<Row = Record<string, unknown>>(
    sql: string,
    params: readonly string[],
    hints?: StatementHints,
  ): Promise<Row[]>;
  /** Follows `NOTIFY`s on `channel`, also from other processes. Resolves once listening. */
  listen(channel: string, listener: ChannelListener): Promise<void>;
  /** Runs `work` in one transaction: all of it commits, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface ChannelListener {
  /** The payload of one notification. */
  notice(payload: string): void;
  /** Notifications may have been missed: the listening connection broke (it reconnects). */
  lost(): void;
  /** Listening again after `lost`. */
  listening(): void;
}

/** Statements seen once; a second sighting prepares them. Bounded, cleared when full. */
const SEEN_LIMIT = 2000;
/** Prepared statements kept per session; the least recently used one is deallocated. */
const PREPARED_PER_SESSION = 200;

/** Statement texts worth preparing: the second time a text is run. */
function recurrenceFilter(): (sql: string) => boolean {
  const seen = new Set<string>();
  return (sql) => {
    if (seen.has(sql)) return true;
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(sql);
    return false;
  };
}

type RunText = (sql: string) => Promise<unknown[]>;

/**
 * The prepared statements of one session, least recently used first. `EXECUTE`'s arguments
 * are literals from `quoteString`, the audited renderer (PostgreSQL takes no parameters there).
 */
function sessionStatements(run: RunText) {
  const names = new Map<string, string>();
  let next = 0;
  return async <Row>(sql: string, params: readonly string[]): Promise<Row[]> => {
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= PREPARED_PER_SESSION) {
        const [oldestSql, oldest] = names.entries().next().value!;
        names.delete(oldestSql);
        await run(`DEALLOCATE ${oldest}`);
      }
      name = `polar_q${next++}`;
      await run(`PREPARE ${name} AS ${sql}`);
    } else {
      names.delete(sql);
    }
    names.set(sql, name);
    const args = params.length > 0 ? `(${params.map(quoteString).join(", ")})` : "";
    return (await run(`EXECUTE ${name}${args}`)) as Row[];
  };
}

export interface PgliteOptions {
  /** A directory for persistent data; omitted means in memory. */
  readonly dataDir?: string;
  /** `postgresql.conf` lines; the embedded settings by default (store/pglite-setup.ts). */
  readonly settings?: readonly string[];
  /** Whether an in-memory database starts from the cached empty image; true by default. */
  readonly cachedImage?: boolean;
}

/** Embedded PostgreSQL (WASM). Statements are serialized by PGlite itself. */
export async function openPglite(options: PgliteOptions = {}): Promise<SqlExecutor> {
  const postgresqlconf = [...(options.settings ?? EMBEDDED_SETTINGS)];
  const image = !options.dataDir && options.cachedImage !== false ? await cachedEmptyImage() : null;
  const db = await PGlite.create({
    postgresqlconf,
    ...(options.dataDir && { dataDir: options.dataDir }),
    ...(image && { loadDataDir: image }),
  });
  if (!options.dataDir && options.cachedImage !== false && !image) await keepEmptyImage(db);
  const recurs = recurrenceFilter();
  const statements = pgliteStatements(db);
  const wrap = (runner: Pick<PGlite, "query">): SqlExecutor => ({
    engine: "postgres",
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await runner.query<Row>(sql, params ? [...params] : undefined)).rows;
    },
    prepared<Row>(sql: string, params: readonly string[]) {
      // Inside a transaction, plainly: the session's statements belong to the outer runner.
      if (runner !== db || !recurs(sql)) return this.query<Row>(sql, params);
      return statements<Row>(sql, params);
    },
    // One process owns an embedded database, and PGlite delivers its own notifications.
    async listen(channel, listener) {
      await db.listen(channel, (payload) => listener.notice(payload));
    },
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  });
  return wrap(db);
}

export interface PostgresOptions {
  readonly connectionString: string;
  /** Pool size; defaults to 10. */
  readonly max?: number;
}

/** A PostgreSQL server through a connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<SqlExecutor> {
  // The compiled questions are short, but chained recursive CTEs get huge row estimates, and
  // JIT then spends ~0.7 s compiling a list that runs in 70 ms: off for every session, as a
  // startup option next to any the URL has (a `search_path`, say).
  const url = new URL(options.connectionString);
  url.searchParams.set("options", `${url.searchParams.get("options") ?? ""} -c jit=off`.trim());
  const pool = new pg.Pool({ connectionString: url.toString(), max: options.max ?? 10 });
  // Fail fast on a wrong URL instead of at the first question.
  const probe = await pool.connect();
  probe.release();
  const recurs = recurrenceFilter();
  const sessions = new WeakMap<pg.PoolClient, ReturnType<typeof sessionStatements>>();
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
  const query = async <Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> =>
    (await pool.query(sql, params ? [...params] : undefined)).rows as Row[];
  return {
    engine: "postgres",
    query,
    async prepared<Row>(sql: string, params: readonly string[]) {
      if (!recurs(sql)) return query<Row>(sql, params);
      const client = await pool.connect();
      try {
        let statements = sessions.get(client);
        if (!statements) {
          statements = sessionStatements(async (text) => (await client.query(text)).rows);
          sessions.set(client, statements);
        }
        return await statements<Row>(sql, params);
      } catch (cause) {
        // Whether the session still holds its statements is unknown: drop the connection.
        sessions.delete(client);
        client.release(true);
        throw cause;
      } finally {
        if (sessions.has(client)) client.release();
      }
    },
    async listen(channel, listener) {
      const connect = async (): Promise<pg.Client> => {
        const client = new pg.Client({ connectionString: options.connectionString });
        client.on("notification", (message) => {
          if (message.channel === channel) listener.notice(message.payload ?? "");
        });
        client.on("error", () => {}); // "end" follows, and reconnects
        try {
          await client.connect();
          await client.query(`LISTEN ${quoteIdentifier(channel)}`);
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
      await pool.end();
    },
  };
}
