/**
 * Loading better-sqlite3. A module of its own so that no published declaration names
 * better-sqlite3's types (they come from @types/better-sqlite3, which consumers do not have):
 * the declarations of src/dialects/sqlite/catalog.ts and src/store/sqlite-connection.ts reach it only
 * from function bodies.
 */
import type Database from "better-sqlite3";

/**
 * better-sqlite3, a native module, loaded when a SQLite database is first opened (a session
 * here, or the fact store: src/store/sqlite-connection.ts), not when the package loads.
 */
export async function loadBetterSqlite3(): Promise<typeof Database> {
  try {
    return (await import("better-sqlite3")).default;
  } catch (cause) {
    throw new Error(
      "SQLite needs the `better-sqlite3` package, which did not load (its native build may have failed): npm install better-sqlite3",
      { cause },
    );
  }
}
