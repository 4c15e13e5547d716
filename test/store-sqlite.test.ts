/**
 * The fact store on embedded SQLite (src/store/sqlite-store.ts), where it differs from the
 * PostgreSQL stores: one connection shared by concurrent requests, statements kept prepared by
 * text, integers beyond 2^53, several processes on one file, and booleans as 1/0. The store
 * suites that every store passes run it too (test/support/central-services.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBetterSqlite3 } from "../src/dialects/sqlite/better-sqlite3.js";
import { serviceOver } from "../src/service/service.js";
import type { StatementHints } from "../src/store/executor.js";
import { openDatabase, switchToWal } from "../src/store/sqlite-connection.js";
import { openSqliteStore, SQLITE_FILE } from "../src/store/sqlite-store.js";
import { openStore } from "../src/store/store.js";
import { storeThrough } from "./support/watched-store.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "polar-sqlite-"));
  dirs.push(dir);
  return dir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the SQLite executor", () => {
  it("keeps a transaction's uncommitted rows from statements outside it", async () => {
    const db = await openSqliteStore();
    try {
      await db.query("CREATE TABLE t (v text)");
      let seenDuring: unknown = null;
      const failing = db.transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES ('uncommitted')");
        // Another request asks while the transaction waits between its statements.
        const outside = db.query<{ n: number }>("SELECT count(*) AS n FROM t");
        await sleep(30);
        seenDuring = outside;
        throw new Error("rolled back");
      });
      await expect(failing).rejects.toThrow("rolled back");
      // The outside read ran after the rollback, so it never saw the row.
      expect(await (seenDuring as Promise<{ n: number }[]>)).toEqual([{ n: 0 }]);
      expect(await db.query("SELECT count(*) AS n FROM t")).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  it("runs transactions one after another, each whole", async () => {
    const db = await openSqliteStore();
    try {
      await db.query("CREATE TABLE c (n integer)");
      await db.query("INSERT INTO c VALUES (0)");
      // Read-modify-write with a pause inside: interleaved, increments would be lost.
      const bump = () =>
        db.transaction(async (tx) => {
          const [row] = await tx.query<{ n: number }>("SELECT n FROM c");
          await sleep(2);
          await tx.query("UPDATE c SET n = ?", [row!.n + 1]);
        });
      await Promise.all(Array.from({ length: 20 }, bump));
      expect(await db.query("SELECT n FROM c")).toEqual([{ n: 20 }]);
    } finally {
      await db.close();
    }
  });

  it("answers integers beyond 2^53 exactly, and smaller ones as numbers", async () => {
    const db = await openSqliteStore();
    try {
      const [row] = await db.query<{ big: unknown; small: unknown }>(
        "SELECT CAST('9007199254740993' AS integer) AS big, 42 AS small",
      );
      expect(row).toEqual({ big: 9007199254740993n, small: 42 });
    } finally {
      await db.close();
    }
  });

  it("keeps answering past the number of statements it keeps prepared", async () => {
    const db = await openSqliteStore();
    try {
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 700; i++) {
          const [row] = await db.prepared<{ n: number }>(`SELECT CAST(? AS integer) + ${i} AS n`, [
            String(round),
          ]);
          expect(row!.n).toBe(round + i);
        }
      }
    } finally {
      await db.close();
    }
  });

  it("indexes unindexed rows for a statement that says it joins them, and only for it", async () => {
    const db = await openSqliteStore();
    try {
      const automatic = (hints?: { joinsUnindexedRows: boolean }) =>
        db.query<{ automatic_index: number }>("PRAGMA automatic_index", [], hints);
      expect(await automatic()).toEqual([{ automatic_index: 0 }]);
      expect(await automatic({ joinsUnindexedRows: true })).toEqual([{ automatic_index: 1 }]);
      expect(await automatic()).toEqual([{ automatic_index: 0 }]);
      // Also when the statement fails.
      await expect(
        db.query("SELECT * FROM missing_table", [], { joinsUnindexedRows: true }),
      ).rejects.toThrow(/no such table/);
      expect(await automatic()).toEqual([{ automatic_index: 0 }]);
    } finally {
      await db.close();
    }
  });

  it("says what to do when better-sqlite3's native module was never built", () => {
    const failing = (message: string) =>
      class {
        constructor() {
          throw new Error(message);
        }
      } as unknown as Parameters<typeof openDatabase>[0];
    expect(() =>
      openDatabase(failing("Could not locate the bindings file. Tried: …"), ":memory:"),
    ).toThrow("allow its install script and reinstall, or start with `--store pglite`");
    // Any other failure is its own.
    expect(() => openDatabase(failing("unable to open database file"), "/nope/x")).toThrow(
      "unable to open database file",
    );
  });

  // The switch of a new file to WAL fails at once, whatever the busy timeout, while another
  // connection holds the write lock: as happens when a store's threads open it together.
  it("opens a new file while another connection holds its write lock, once it lets go", async () => {
    const dir = freshDir();
    const other = openDatabase(await loadBetterSqlite3(), join(dir, SQLITE_FILE));
    other.exec("BEGIN IMMEDIATE");
    const opening = openSqliteStore({ dataDir: dir });
    await sleep(100);
    other.exec("COMMIT");
    const db = await opening;
    try {
      expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      await db.close();
      other.close();
    }
  });

  it("gives up the switch to WAL after its timeout while the lock is held", async () => {
    const path = join(freshDir(), SQLITE_FILE);
    const open = await loadBetterSqlite3();
    const [holder, opener] = [openDatabase(open, path), openDatabase(open, path)];
    holder.exec("BEGIN IMMEDIATE");
    const started = Date.now();
    await expect(switchToWal(opener, 60)).rejects.toThrow("database is locked");
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    holder.exec("COMMIT");
    await switchToWal(opener, 60);
    expect(holder.pragma("journal_mode", { simple: true })).toBe("wal");
    holder.close();
    opener.close();
  });

  it("reports a failing statement and goes on", async () => {
    const db = await openSqliteStore();
    try {
      await expect(db.query("SELECT * FROM missing_table")).rejects.toThrow(/no such table/);
      expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});

const POLICY = `actor User {}
resource Ticket {
  permissions = ["view"];
  roles = ["reader"];
  "view" if "reader";
  "view" if is_public(resource, true);
}`;

const ticket = (id: string) => ({ type: "Ticket", id });
const isPublic = (id: string, value: boolean) => ({
  predicate: "is_public",
  args: [ticket(id), { type: "Boolean", id: String(value) }],
});
const view = (id: string) => ({
  actor_type: "User",
  actor_id: "ada",
  action: "view",
  resource_type: "Ticket",
  resource_id: id,
});
const allowed = (reply: { body: unknown }) => (reply.body as { allowed: boolean }).allowed;

describe("the SQLite store", () => {
  it("compares Boolean arguments as booleans (a stored false is not true)", async () => {
    const service = serviceOver(await openStore({ embedded: "sqlite" }), { workers: 0 });
    try {
      await service.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      await service.batch([{ inserts: [isPublic("t1", true), isPublic("t2", false)] }]);
      expect(allowed(await service.authorize(view("t1")))).toBe(true);
      expect(allowed(await service.authorize(view("t2")))).toBe(false);
      const found = await service.evaluateQuery({
        predicate: ["is_public", ["t", "b"]],
        calls: [],
        constraints: { t: { type: "Ticket", ids: null }, b: { type: "Boolean", ids: null } },
        context_facts: [],
      });
      expect(found.body).toEqual({
        results: expect.arrayContaining([
          { t: "t1", b: "true" },
          { t: "t2", b: "false" },
        ]),
      });
    } finally {
      await service.close();
    }
  });

  // A temporary file is the store's own: its head moves only with its own commits, which it
  // knows without a statement. A file in a data directory may be written by another process.
  it.each([
    ["a temporary file knows its head without reading it", false, 0],
    ["a file in a data directory reads its head for every question", true, 1],
  ])("%s", async (_what, inDataDir, headStatements) => {
    const store = await openStore({
      embedded: "sqlite",
      ...(inDataDir && { dataDir: freshDir() }),
    });
    const service = serviceOver(store, { workers: 0 });
    try {
      await service.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      const before = (await store.head()).dataVersion;
      await service.batch([{ inserts: [isPublic("t1", true)] }]);
      let statements = 0;
      for (const method of ["query", "prepared"] as const) {
        const original = store.db[method].bind(store.db);
        (store.db as { [m in typeof method]: unknown })[method] = (...args: never[]) => {
          statements++;
          return (original as (...a: never[]) => unknown)(...args);
        };
      }
      const head = await store.head();
      expect(statements).toBe(headStatements);
      expect(head.dataVersion).toBe(before + 1);
      expect(head.program).not.toBeNull();
      expect(allowed(await service.authorize(view("t1")))).toBe(true);
    } finally {
      await service.close();
    }
  });

  it("keeps facts and policy in its directory, and answers after a restart", async () => {
    const dir = freshDir();
    const first = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), {
      workers: 0,
    });
    await first.postPolicy({ src: POLICY, filename: "p.polar" }, {});
    await first.batch([{ inserts: [isPublic("t1", true)] }]);
    await first.close();
    const second = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), {
      workers: 0,
    });
    try {
      expect((await second.getPolicy({})).body).toEqual({
        policy: { filename: "p.polar", src: POLICY },
      });
      expect(allowed(await second.authorize(view("t1")))).toBe(true);
      expect(allowed(await second.authorize(view("t2")))).toBe(false);
    } finally {
      await second.close();
    }
    expect(SQLITE_FILE).toMatch(/\.sqlite3$/);
  });

  it("two instances on one file: a policy posted through one is the other's at once", async () => {
    const dir = freshDir();
    const a = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    const b = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    try {
      await a.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      await a.batch([{ inserts: [isPublic("t1", true)] }]);
      expect(allowed(await b.authorize(view("t1")))).toBe(true);
      // Public tickets are no longer viewable: b answers so with its next question.
      const closed = POLICY.replace('  "view" if is_public(resource, true);\n', "");
      expect(closed).not.toBe(POLICY);
      await a.postPolicy({ src: closed, filename: "p.polar" }, {});
      expect(allowed(await b.authorize(view("t1")))).toBe(false);
      expect((await b.getPolicy({})).body).toEqual({
        policy: { filename: "p.polar", src: closed },
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("refuses a directory that holds the other embedded store's data, rather than look empty", async () => {
    const pgliteDir = freshDir();
    writeFileSync(join(pgliteDir, "PG_VERSION"), "17\n");
    await expect(openStore({ dataDir: pgliteDir })).rejects.toThrow(
      `${pgliteDir} holds a PGlite store; open it with \`--store pglite\``,
    );
    const sqliteDir = freshDir();
    const store = await openStore({ embedded: "sqlite", dataDir: sqliteDir });
    await store.close();
    await expect(openStore({ embedded: "pglite", dataDir: sqliteDir })).rejects.toThrow(
      `${sqliteDir} holds a SQLite store`,
    );
    // A directory of its own store opens.
    const again = await openStore({ dataDir: sqliteDir });
    await again.close();
  });

  it("two instances on one file: each answers with the other's last write", async () => {
    const dir = freshDir();
    const a = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    const b = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    try {
      await a.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      for (let i = 0; i < 5; i++) {
        // b has answered (and cached) the question before each write through a.
        expect(allowed(await b.authorize(view(`t${i}`)))).toBe(false);
        await a.batch([{ inserts: [isPublic(`t${i}`, true)] }]);
        expect(allowed(await b.authorize(view(`t${i}`)))).toBe(true);
        await b.batch([{ deletes: [isPublic(`t${i}`, true)] }]);
        expect(allowed(await a.authorize(view(`t${i}`)))).toBe(false);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("the SQLite store's iteration (src/fixpoint)", () => {
  const CLOSURE = `actor User {}
resource Node { permissions = ["read"]; }
path(x: Node, z: Node) if edge(x, z);
path(x: Node, z: Node) if path(x, y) and path(y, z);
allow(u: User, "read", n: Node) if start(u, m) and path(m, n);`;
  const node = (id: string) => ({ type: "Node", id });
  const chain = (length: number) =>
    Array.from({ length }, (_, i) => ({
      predicate: "edge",
      args: [node(`n${i}`), node(`n${i + 1}`)],
    }));
  const start = { predicate: "start", args: [{ type: "User", id: "ada" }, node("n0")] };
  const read = (id: string) => ({
    actor_type: "User",
    actor_id: "ada",
    action: "read",
    resource_type: "Node",
    resource_id: id,
  });

  it("uses automatic indexes while it runs and leaves them off after, also when refused", async () => {
    const store = await openStore({ embedded: "sqlite" });
    const service = serviceOver(store, { workers: 0, fixpointBudget: { rounds: 3, rows: 10_000 } });
    const automatic = async () =>
      (await store.db.query<{ automatic_index: number }>("PRAGMA automatic_index"))[0]
        ?.automatic_index;
    try {
      await service.postPolicy({ src: CLOSURE, filename: "closure.polar" }, {});
      await service.batch([{ inserts: [...chain(3), start] }]);
      expect(allowed(await service.authorize(read("n3")))).toBe(true);
      expect(await automatic()).toBe(0);
      await service.batch([{ inserts: chain(40) }]);
      await expect(service.authorize(read("n40"))).rejects.toMatchObject({ status: 400 });
      expect(await automatic()).toBe(0);
    } finally {
      await service.close();
    }
  });
});

describe("central questions over an id array", () => {
  it("ask the SQLite store to index the array for the statement", async () => {
    const store = await openStore({ embedded: "sqlite" });
    const hinted: boolean[] = [];
    const db = store.db;
    const watched = {
      ...db,
      query: <Row>(sql: string, params?: readonly unknown[], hints?: StatementHints) => {
        if (/json_each/.test(sql)) hinted.push(hints?.joinsUnindexedRows === true);
        return db.query<Row>(sql, params, hints);
      },
      prepared: <Row>(sql: string, params: readonly string[], hints?: StatementHints) => {
        if (/json_each/.test(sql)) hinted.push(hints?.joinsUnindexedRows === true);
        return db.prepared<Row>(sql, params, hints);
      },
    };
    const service = serviceOver(storeThrough(store, watched), { workers: 0 });
    try {
      await service.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      await service.batch([{ inserts: [isPublic("t1", true)] }]);
      for (const count of [3, 500]) {
        const resources = Array.from({ length: count }, (_, i) => ticket(`t${i}`));
        const reply = await service.authorizeResources({
          actor_type: "User",
          actor_id: "ada",
          action: "view",
          resources,
        });
        expect(reply.body).toEqual({ results: [ticket("t1")] });
      }
      expect(hinted).toEqual([true, true]);
    } finally {
      await service.close();
    }
  });
});
