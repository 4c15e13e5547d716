/**
 * The fact store on embedded SQLite, off the event loop: one writer thread and reader threads,
 * each with its own connection to one file in WAL mode (src/store/store-thread.ts), so that
 * readers read beside the writer and no statement holds the main thread (but the bounded reads
 * of `readNow`, src/store/sqlite-read-now.ts). Statements go to
 * the least busy reader; one that writes is refused there and sent to the writer, which also
 * runs every transaction. A reader still running a statement at its deadline is ended and
 * replaced (better-sqlite3 cannot interrupt a statement); the writer is never ended.
 * Without a data directory the file is temporary, removed when the store closes.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqlExecutor, StatementHints } from "./executor.js";
import { openReadNow, type ReadNow } from "./sqlite-read-now.js";
import { closeThread, runOn, transactionOn } from "./thread-executor.js";
import type { ThreadDatabase } from "./thread-protocol.js";
import { type StoreThread, startStoreThread } from "./threads.js";

interface SqliteStoreOptions {
  /** A directory for the database file (`polar-sql.sqlite3`); omitted means a temporary file. */
  readonly dataDir?: string;
  /** Reader threads; default 2. */
  readonly readers?: number;
}

/** The database file of a store in `dataDir`. */
export const SQLITE_FILE = "polar-sql.sqlite3";

/** Statement texts found to write, sent straight to the writer; bounded, cleared when full. */
const WRITES_KEPT = 1000;

export async function openSqliteStore(options: SqliteStoreOptions = {}): Promise<SqlExecutor> {
  const temporary = options.dataDir ? null : mkdtempSync(join(tmpdir(), "polar-sql-"));
  const dir = options.dataDir ?? temporary!;
  mkdirSync(dir, { recursive: true });
  const removeTemporary = () => {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  };
  if (temporary) process.once("exit", removeTemporary);
  const database: ThreadDatabase = {
    engine: "sqlite",
    path: join(dir, SQLITE_FILE),
    temporary: temporary !== null,
  };
  // All at once: on a new file, each connection's switch to WAL waits for the one that holds
  // the lock to finish its own (switchToWal in src/store/sqlite-connection.ts).
  let writer: StoreThread;
  let readers: StoreThread[];
  try {
    [writer, ...readers] = await Promise.all([
      startStoreThread(database),
      ...Array.from({ length: options.readers ?? 2 }, () => startReader(database)),
    ]);
  } catch (cause) {
    removeTemporary();
    throw cause;
  }
  // After the threads: the file exists and is in WAL mode.
  let now: ReadNow;
  try {
    now = await openReadNow(database.path);
  } catch (cause) {
    await Promise.all([writer, ...readers].map(closeThread));
    removeTemporary();
    throw cause;
  }
  const writes = new Set<string>();
  let closed = false;

  async function startReader(from: ThreadDatabase): Promise<StoreThread> {
    const reader = await startStoreThread(from);
    reader.onOverdue(() => void replace(reader));
    return reader;
  }

  /** Ends a reader past its deadline and starts another in its place. */
  async function replace(reader: StoreThread): Promise<void> {
    const index = readers.indexOf(reader);
    if (index >= 0) readers.splice(index, 1);
    await reader.terminate();
    if (closed) return;
    const next = await startReader(database).catch(() => null);
    if (next && !closed) readers.push(next);
    else if (next) await closeThread(next);
  }

  function leastBusyReader(): StoreThread | null {
    let best: StoreThread | null = null;
    for (const reader of readers) {
      if (reader.alive() && (!best || reader.waiting() < best.waiting())) best = reader;
    }
    return best;
  }

  async function statement<Row>(
    op: "query" | "prepared",
    sql: string,
    params: readonly unknown[] | undefined,
    hints: StatementHints | undefined,
  ): Promise<Row[]> {
    const reader = writes.has(sql) ? null : leastBusyReader();
    if (reader) {
      try {
        return await runOn<Row>(reader, op, sql, params, { ...hints, readOnly: true });
      } catch (cause) {
        if ((cause as Error).name !== "WritingStatement") throw cause;
        if (writes.size >= WRITES_KEPT) writes.clear();
        writes.add(sql);
      }
    }
    return runOn<Row>(writer, op, sql, params, hints);
  }

  return {
    engine: "sqlite",
    query: (sql, params, hints) => statement("query", sql, params, hints),
    prepared: (sql, params, hints) => statement("prepared", sql, params, hints),
    // One process writes a SQLite database at a time and SQLite has no notifications: the
    // store reads the data version for every question instead (store.ts, `follow`).
    listen: () => Promise.reject(new Error("the SQLite store cannot follow other processes")),
    readNow: (sql, params) => now.read(sql, params),
    transaction: (work) => transactionOn(writer, "sqlite", work),
    async close() {
      if (closed) return;
      closed = true;
      now.close();
      await Promise.all(readers.splice(0).map(closeThread));
      await closeThread(writer);
      removeTemporary();
      process.removeListener("exit", removeTemporary);
    },
  };
}
