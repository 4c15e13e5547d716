/**
 * One connection to the store's SQLite file (better-sqlite3), used inside a store thread
 * (src/store/store-thread.ts): the writer's, or a reader's. better-sqlite3 runs each statement
 * synchronously, so a statement never interleaves with another on the connection; a
 * transaction, whose work awaits between its statements, holds the connection until it ends,
 * and other statements wait for it. Several connections and processes share one file in WAL
 * mode: readers read beside the writer, and SQLite locks the file for each write.
 */
import type Database from "better-sqlite3";
import { loadBetterSqlite3 } from "../dialects/sqlite/better-sqlite3.js";
import type { SqlExecutor, StatementHints } from "./executor.js";

interface SqliteConnectionOptions {
  /** The database file. */
  readonly path: string;
  /** A file removed when the store closes: nothing to keep through a crash. */
  readonly temporary: boolean;
}

/** How long a statement waits for another connection's lock before it fails. */
const BUSY_TIMEOUT_MS = 5000;

/** How much of the database file is read through a memory map (2 GiB). */
export const MMAP_BYTES = 2 ** 31;

/** Prepared statements kept by text; the least recently used one is dropped. */
const STATEMENTS_KEPT = 500;

type Statement = Database.Statement<unknown[], Record<string, unknown>>;

/**
 * Opens a connection. Commits are durable when the process is killed (WAL, `synchronous =
 * NORMAL`); a power loss may take the last transactions (docs/operations.md).
 */
export async function openSqliteConnection(options: SqliteConnectionOptions): Promise<SqlExecutor> {
  const open = await loadBetterSqlite3();
  const db = openDatabase(open, options.path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  await switchToWal(db, BUSY_TIMEOUT_MS);
  db.pragma(options.temporary ? "synchronous = OFF" : "synchronous = NORMAL");
  db.pragma("foreign_keys = OFF");
  // Every lookup of the fact table has its index; an automatic index only lets the planner
  // scan a whole predicate and probe a CTE's rows, instead of the reverse: a list on the
  // recursive bench data took 100 ms with them and 3 ms without (bench/RESULTS.md). The
  // iteration's tables have none, and turn them on while it runs (src/fixpoint/tables.ts).
  db.pragma("automatic_index = OFF");
  // Reads through a memory map instead of a read call per page: a policy preview over 300k
  // facts took 1.4 s of CPU instead of 2.2 s (bench/RESULTS.md, "Policy preview"). Mapped
  // pages are the file's, shared by every connection, and counted only once touched.
  db.pragma(`mmap_size = ${MMAP_BYTES}`);

  const statements = new Map<string, Statement>();
  function statement(sql: string): Statement {
    let found = statements.get(sql);
    if (found) {
      statements.delete(sql);
    } else {
      found = db.prepare(sql) as Statement;
      // Integers beyond 2^53 come back exact (as bigint); others as numbers.
      if (found.reader) found.safeIntegers(true);
      if (statements.size >= STATEMENTS_KEPT) {
        statements.delete(statements.keys().next().value!);
      }
    }
    statements.set(sql, found);
    return found;
  }

  function run<Row>(sql: string, params: readonly unknown[] = [], hints?: StatementHints): Row[] {
    const prepared = statement(sql);
    if (hints?.readOnly && !prepared.readonly) throw new WritingStatement();
    if (!prepared.reader) {
      prepared.run(...params);
      return [];
    }
    // The statement runs whole before any other (synchronously): the setting is its own.
    // Setting it expires prepared statements, so this one is planned again with it (and the
    // others once more without it, when next run).
    if (!hints?.joinsUnindexedRows) return prepared.all(...params).map(smallIntegers) as Row[];
    db.pragma("automatic_index = ON");
    try {
      return prepared.all(...params).map(smallIntegers) as Row[];
    } finally {
      db.pragma("automatic_index = OFF");
    }
  }

  /** The transaction in progress, which statements from outside it wait for. */
  let busy: Promise<unknown> | null = null;

  async function outside<T>(work: () => T): Promise<T> {
    while (busy) await busy.catch(() => {});
    return work();
  }

  const inTransaction: SqlExecutor = {
    engine: "sqlite",
    query: async (sql, params, hints) => run(sql, params, hints),
    prepared: async (sql, params, hints) => run(sql, params, hints),
    listen: () => Promise.reject(new Error("internal: listen inside a transaction")),
    transaction: (work) => work(inTransaction),
    close: async () => {},
  };

  let closed = false;
  return {
    engine: "sqlite",
    query: (sql, params, hints) => outside(() => run(sql, params, hints)),
    prepared: (sql, params, hints) => outside(() => run(sql, params, hints)),
    // One process writes a SQLite database at a time and SQLite has no notifications: the
    // store reads the data version for every question instead (store.ts, `follow`).
    listen: () => Promise.reject(new Error("the SQLite store cannot follow other processes")),
    async transaction(work) {
      for (;;) {
        const current = busy;
        if (!current) break;
        await current.catch(() => {});
      }
      const done = (async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(inTransaction);
          db.exec("COMMIT");
          return result;
        } catch (cause) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw cause;
        }
      })();
      busy = done;
      try {
        return await done;
      } finally {
        if (busy === done) busy = null;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      while (busy) await busy.catch(() => {});
      statements.clear();
      db.close();
    },
  };
}

/**
 * Puts the file in WAL mode, which it keeps. On a new file in rollback mode the switch reads
 * the header and then writes it; when another connection opening the same file at once (a
 * store's other threads, another process) holds the write lock, SQLite fails the switch at
 * once instead of waiting (it would be a reader upgrading to a writer), so it is tried again
 * until `timeoutMs`, as a statement waits for a lock.
 */
export async function switchToWal(db: Database.Database, timeoutMs: number): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (mode !== "wal")
        throw new Error(
          `the SQLite store needs WAL mode, and the file stayed in ${String(mode)} mode`,
        );
      return;
    } catch (cause) {
      if ((cause as { code?: string }).code !== "SQLITE_BUSY" || Date.now() >= giveUp) throw cause;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 50)));
  }
}

/** A reader was given a statement that writes: the writer runs it (src/store/sqlite-store.ts). */
export class WritingStatement extends Error {
  constructor() {
    super("the statement writes");
    this.name = "WritingStatement";
  }
}

const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);

/** Integers that fit a JavaScript number as numbers; larger ones stay exact as bigints. */
function smallIntegers(row: unknown): Record<string, unknown> {
  const values = row as Record<string, unknown>;
  for (const key in values) {
    const value = values[key];
    if (typeof value === "bigint" && value <= SAFE_MAX && value >= SAFE_MIN) {
      values[key] = Number(value);
    }
  }
  return values;
}

/** The database, or an error that says what to do when the native module was never built. */
export function openDatabase(open: typeof Database, path: string): Database.Database {
  try {
    return new open(path);
  } catch (cause) {
    if (!/bindings|NODE_MODULE_VERSION|ELF|dlopen/i.test(String(cause))) throw cause;
    throw new Error(
      "the SQLite store needs better-sqlite3's native module, which is not built here (were install scripts disabled?): allow its install script and reinstall, or start with `--store pglite`",
      { cause },
    );
  }
}
