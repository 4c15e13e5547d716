/**
 * Small reads on the main thread: a read-only connection to the store's SQLite file for the
 * point reads every question makes (the newest policy's version and the data version,
 * src/store/active-policy.ts `head`), which take microseconds where a store thread's round
 * trip takes tens to hundreds (bench/RESULTS.md, "Local requests at compiler speed"). It never
 * waits: in WAL mode a reader takes no lock that a writer holds, and should SQLite answer busy
 * anyway (a checkpoint resetting the log, recovery), the read is left to the store threads.
 * Statements that may read many rows stay on the store threads (src/store/sqlite-store.ts).
 */
import type Database from "better-sqlite3";
import { loadBetterSqlite3 } from "../database/better-sqlite3.js";
import { openDatabase, smallIntegers } from "./sqlite-connection.js";

/** Statements kept prepared by text: the few of the head. */
const STATEMENTS_KEPT = 16;

export interface SqlitePeek {
  /** The rows, or undefined when the read could not be made at once (then read elsewhere). */
  read<Row>(sql: string, params?: readonly unknown[]): Row[] | undefined;
  close(): void;
}

/** Opens the read-only connection; null when it cannot be opened (questions use the threads). */
export async function openSqlitePeek(path: string): Promise<SqlitePeek | null> {
  let db: Database.Database;
  try {
    db = openDatabase(await loadBetterSqlite3(), path, { readonly: true, fileMustExist: true });
    // Never wait on the main thread: a busy answer sends the read to the store threads.
    db.pragma("busy_timeout = 0");
  } catch {
    return null;
  }
  const statements = new Map<string, Database.Statement<unknown[], Record<string, unknown>>>();
  let open = true;
  return {
    read<Row>(sql: string, params: readonly unknown[] = []) {
      if (!open) return undefined;
      try {
        let statement = statements.get(sql);
        if (!statement) {
          statement = db.prepare(sql) as Database.Statement<unknown[], Record<string, unknown>>;
          if (!statement.reader || !statement.readonly) return undefined;
          statement.safeIntegers(true);
          if (statements.size >= STATEMENTS_KEPT) statements.clear();
          statements.set(sql, statement);
        }
        return statement.all(...params).map(smallIntegers) as Row[];
      } catch {
        // Busy, or a table not made yet (before the migration): the store threads answer.
        return undefined;
      }
    },
    close() {
      if (!open) return;
      open = false;
      statements.clear();
      db.close();
    },
  };
}
