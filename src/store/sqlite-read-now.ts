/**
 * A read-only connection to the store's SQLite file on the main thread, for reads that an
 * index bounds (`SqlExecutor.readNow`): a local question's lookup of a user's stored roles
 * reads a handful of index entries in about 20 µs, where the round trip to a store thread took
 * 100 µs and, on a busy machine, milliseconds to wake the thread (bench/RESULTS.md, "The stored
 * roles of a new user"). Every other statement still runs in a store thread.
 *
 * It never waits: with no busy timeout, a lock (a checkpoint resetting the write-ahead log)
 * fails the read at once, and the caller asks a store thread instead. Pages come from the
 * file's memory map, as for the other connections.
 */
import type Database from "better-sqlite3";
import { loadBetterSqlite3 } from "../dialects/sqlite/better-sqlite3.js";
import { MMAP_BYTES, openDatabase } from "./sqlite-connection.js";

/** Statements kept by text: the lookups' shapes, a handful. */
const STATEMENTS_KEPT = 100;

export interface ReadNow {
  /** The rows, or null when the read would have to wait for a lock. */
  read(sql: string, params: readonly unknown[]): Record<string, unknown>[] | null;
  close(): void;
}

export async function openReadNow(path: string): Promise<ReadNow> {
  const open = await loadBetterSqlite3();
  const db = openDatabase(open, path);
  db.pragma("busy_timeout = 0");
  db.pragma("query_only = ON");
  db.pragma("automatic_index = OFF");
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  const statements = new Map<string, Database.Statement<unknown[], Record<string, unknown>>>();
  return {
    read(sql, params) {
      try {
        // Preparing reads the schema, which a lock can hold up too.
        let statement = statements.get(sql);
        if (!statement) {
          if (statements.size >= STATEMENTS_KEPT) statements.clear();
          statement = db.prepare(sql);
          if (!statement.reader) throw new Error("internal: a read now must be a query");
          statements.set(sql, statement);
        }
        return statement.all(...params);
      } catch (cause) {
        if ((cause as { code?: string }).code?.startsWith("SQLITE_BUSY")) return null;
        throw cause;
      }
    },
    close: () => db.close(),
  };
}
