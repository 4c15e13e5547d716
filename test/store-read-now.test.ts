/**
 * Lookups read on the calling thread (`SqlExecutor.readNow`, src/store/sqlite-read-now.ts and
 * src/store/fact-lookups.ts): on the SQLite store, lookups that fix a value at an indexed
 * position are answered without a store thread, exactly as the threads answer them; anything an
 * index does not bound (no such value, too many prefixes, too many rows) and a lock go to a
 * store thread; and a read never waits for a lock.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroundFact } from "../src/core/value.js";
import { loadBetterSqlite3 } from "../src/dialects/sqlite/better-sqlite3.js";
import type { SqlExecutor } from "../src/store/executor.js";
import { type FactLookup, matchingFactsOfEach } from "../src/store/fact-lookups.js";
import { insertFacts } from "../src/store/facts.js";
import { openDatabase } from "../src/store/sqlite-connection.js";
import { openReadNow } from "../src/store/sqlite-read-now.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { propertyRuns } from "./support/runs.js";

const user = (id: string) => ({ type: "User", id });
const role = (u: string, name: string, on: { type: string; id: string }): GroundFact => ({
  predicate: "has_role",
  args: [user(u), { type: "String", id: name }, on],
});

/** `db` with its statements counted: those a store thread ran, and the reads run now. */
function counted(db: SqlExecutor) {
  const counts = { thread: 0, now: 0 };
  const executor: SqlExecutor = {
    ...db,
    query(...args) {
      counts.thread++;
      return db.query(...args);
    },
    prepared(...args) {
      counts.thread++;
      return db.prepared(...args);
    },
    readNow(sql, params) {
      counts.now++;
      return db.readNow!(sql, params);
    },
  };
  return { executor, counts };
}

/** The same lookups with no read-now path: what the store threads answer. */
const threadsOnly = (db: SqlExecutor): SqlExecutor => ({ ...db, readNow: undefined });

const sorted = (found: GroundFact[][]) =>
  found.map((facts) => facts.map((fact) => JSON.stringify(fact)).sort());

describe("lookups read on the calling thread (SQLite store)", () => {
  let store: FactStore;
  beforeAll(async () => {
    store = await openStore({ embedded: "sqlite" });
  });
  afterAll(() => store.close());

  it("answers a user's roles in one read, no store thread, as the threads do", async () => {
    await store.db.query("DELETE FROM polar_fact");
    const facts = [
      role("ada", "owner", { type: "Folder", id: "f1" }),
      role("ada", "admin", { type: "Organization", id: "acme" }),
      role("bo", "viewer", { type: "Folder", id: "f1" }),
    ];
    await insertFacts(store.db, facts);
    const lookups: FactLookup[] = [
      {
        predicate: "has_role",
        arity: 3,
        pattern: [user("ada"), null, null],
        types: ["User", "String", "Folder"],
      },
      {
        predicate: "has_role",
        arity: 3,
        pattern: [user("ada"), { type: "String", id: "admin" }, null],
      },
      { predicate: "has_role", arity: 3, pattern: [null, null, { type: "Folder", id: "f1" }] },
    ];
    const { executor, counts } = counted(store.db);
    const found = await matchingFactsOfEach(executor, lookups);
    expect(counts).toEqual({ thread: 0, now: 1 });
    expect(sorted(found)).toEqual(sorted([[facts[0]!], [facts[1]!], [facts[0]!, facts[2]!]]));
    expect(found).toEqual(await matchingFactsOfEach(threadsOnly(store.db), lookups));
  });

  it("leaves to a store thread what no index bounds: no indexed value, many prefixes, many rows", async () => {
    await store.db.query("DELETE FROM polar_fact");
    const many = Array.from({ length: 300 }, (_, i) =>
      role("crowd", "viewer", { type: "Folder", id: `f${i}` }),
    );
    await insertFacts(store.db, many);
    const byType: FactLookup = {
      predicate: "has_role",
      arity: 3,
      types: ["User", "String", "Folder"],
    };
    const users = Array.from({ length: 17 }, (_, i) => ({
      predicate: "has_role",
      arity: 3,
      pattern: [user(`u${i}`), null, null],
    }));
    const crowd: FactLookup = {
      predicate: "has_role",
      arity: 3,
      pattern: [user("crowd"), null, null],
    };
    for (const [lookups, rows] of [
      [[byType], 300],
      [users, 0],
      [[crowd], 300],
    ] as const) {
      const { executor, counts } = counted(store.db);
      const found = await matchingFactsOfEach(executor, lookups);
      expect(counts.thread).toBe(1);
      expect(found.flat()).toHaveLength(rows);
    }
  });

  it("finds what the store threads find, for any small set of lookups", async () => {
    const value = fc.record({
      type: fc.constantFrom("User", "Folder"),
      id: fc.constantFrom("a", "b", '"c\\', "5", "é"),
    });
    const fact = fc.record({
      predicate: fc.constantFrom("has_role", "p"),
      args: fc.array(value, { minLength: 1, maxLength: 4 }),
    });
    const lookup: fc.Arbitrary<FactLookup> = fc.record({
      predicate: fc.constantFrom("has_role", "p"),
      arity: fc.integer({ min: 1, max: 4 }),
      pattern: fc.array(fc.option(value, { nil: null }), { maxLength: 4 }),
      types: fc.array(fc.option(fc.constantFrom("User", "Folder"), { nil: null }), {
        maxLength: 4,
      }),
    });
    let readsNow = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fact, { maxLength: 40 }),
        fc.array(lookup, { minLength: 1, maxLength: 6 }),
        async (facts, lookups) => {
          await store.db.query("DELETE FROM polar_fact");
          await insertFacts(store.db, facts);
          const { executor, counts } = counted(store.db);
          const found = await matchingFactsOfEach(executor, lookups);
          if (counts.thread === 0) readsNow++;
          expect(sorted(found)).toEqual(
            sorted(await matchingFactsOfEach(threadsOnly(store.db), lookups)),
          );
        },
      ),
      { numRuns: propertyRuns(60, 400) },
    );
    // The property tested the read-now path, not only the threads.
    expect(readsNow).toBeGreaterThan(5);
  });
});

describe("a read now", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("gives way to another connection's lock (the caller asks a store thread), and reads after", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-read-now-"));
    dirs.push(dir);
    const path = join(dir, "db.sqlite3");
    const other = openDatabase(await loadBetterSqlite3(), path);
    other.exec("CREATE TABLE t (v integer); INSERT INTO t VALUES (1)");
    const now = await openReadNow(path);
    try {
      other.exec("BEGIN EXCLUSIVE");
      expect(now.read("SELECT v FROM t", [])).toBeNull();
      other.exec("COMMIT");
      expect(now.read("SELECT v FROM t", [])).toEqual([{ v: 1 }]);
      expect(() => now.read("DELETE FROM t", [])).toThrow("a read now must be a query");
    } finally {
      now.close();
      other.close();
    }
  });
});
