/**
 * The few things the fact store needs from a database connection: implemented for a
 * PostgreSQL server (src/store/postgres-executor.ts), embedded PGlite
 * (src/store/pglite-executor.ts) and SQLite (src/store/sqlite-connection.ts), the embedded ones
 * run in store threads (src/store/store-thread.ts).
 */

/** What the caller knows of a statement that the engine may plan better for. */
export interface StatementHints {
  /**
   * The statement joins rows no index serves (an id array read as a table): SQLite builds an
   * automatic index on them for this statement, which the store otherwise leaves off
   * (src/store/sqlite-connection.ts). Others plan such joins themselves.
   */
  readonly joinsUnindexedRows?: boolean;
  /**
   * When the statement must have answered (`Date.now()` ms): past it, the statement is
   * interrupted where the engine allows it and the call fails with `DeadlineExceeded`
   * (src/core/deadline.ts).
   */
  readonly deadline?: number;
  /** The statement must not write: a reader refuses one that does (src/store/sqlite-connection.ts). */
  readonly readOnly?: boolean;
}

export interface SqlExecutor {
  /**
   * The SQL the connection speaks: PostgreSQL (a server or PGlite) or SQLite
   * (src/store/sqlite-connection.ts). Statements are written for it (`$n` or `?` parameters).
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
  /**
   * Runs a read at once on the calling thread, where the store keeps a connection there
   * (SQLite, src/store/sqlite-read-now.ts); null when it would have to wait for a lock. Only
   * for reads that an index bounds: a `LIMIT` over the entries of one index prefix per row of
   * a small input (src/store/fact-lookups.ts), since nothing can interrupt it.
   */
  readonly readNow?: (sql: string, params: readonly unknown[]) => Record<string, unknown>[] | null;
  /**
   * Recurring reads sent to the server and the messages they went in, where several go in one
   * (PostgreSQL, src/store/postgres-batches.ts).
   */
  readonly readMessages?: () => ReadMessages;
  /** Follows `NOTIFY`s on `channel`, also from other processes. Resolves once listening. */
  listen(channel: string, listener: ChannelListener): Promise<void>;
  /** Runs `work` in one transaction: all of it commits, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Counts since the store opened: reads over messages is the mean batch. */
export interface ReadMessages {
  readonly reads: number;
  readonly messages: number;
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

/** Statement texts worth preparing: the second time a text is run. */
export function recurrenceFilter(): (sql: string) => boolean {
  const seen = new Set<string>();
  return (sql) => {
    if (seen.has(sql)) return true;
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(sql);
    return false;
  };
}

/** How a session makes and drops its named prepared statements. */
interface StatementNaming {
  readonly prefix: string;
  /** Statements kept; the least recently used one is dropped past this. */
  readonly limit: number;
  prepare(name: string, sql: string): Promise<unknown>;
  drop(name: string): Promise<unknown>;
}

/**
 * The name of each statement text prepared on one session, least recently used first: a new
 * text is prepared under a fresh name, after dropping the oldest when `limit` are kept.
 */
export function preparedNames(naming: StatementNaming): (sql: string) => Promise<string> {
  const names = new Map<string, string>();
  let next = 0;
  return async (sql) => {
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= naming.limit) {
        const [oldestSql, oldest] = names.entries().next().value!;
        names.delete(oldestSql);
        await naming.drop(oldest);
      }
      name = `${naming.prefix}${next++}`;
      await naming.prepare(name, sql);
    } else {
      names.delete(sql);
    }
    names.set(sql, name);
    return name;
  };
}
