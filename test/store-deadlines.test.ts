/**
 * The store off the event loop, on every store (issue 27): a statement runs where it cannot
 * hold the event loop, and one still running at its deadline fails with `DeadlineExceeded`
 * (a SQLite reader is ended and replaced, PostgreSQL cancels it); the store answers the next
 * statement. Through the service, such a request is a 422 naming `requestMs`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlineExceeded } from "../src/core/deadline.js";
import { serviceOver } from "../src/service/service.js";
import type { SqlExecutor } from "../src/store/executor.js";
import { type FactStore, openStore, type StoreOptions } from "../src/store/store.js";
import { serverSchema } from "./support/central-services.js";
import { storeThrough } from "./support/watched-store.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const databaseUrl = process.env.DATABASE_URL;

/**
 * A statement that runs far past its deadline on each engine. The embedded engines' have an
 * end: neither can be interrupted. PGlite's thread finishes it before it closes (6M rows: about
 * 1.5 s on a quiet machine, where 1M finished within the 300 ms deadline); SQLite's reader
 * thread, ended by the store, runs it to its end all the same (20M rows: about 2.5 s), and one
 * of 2 billion rows kept a core busy for the rest of the test process (4 minutes).
 */
const SLOW: Record<string, string> = {
  sqlite:
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) SELECT count(*) AS n FROM c",
  postgres: "SELECT count(*) AS n FROM generate_series(1, 2000000000)",
  pglite: "SELECT count(*) AS n FROM generate_series(1, 6000000)",
};

interface StoreCase {
  readonly name: string;
  readonly options: () => Promise<{ options: StoreOptions; drop(): Promise<void> }>;
}

const none = async () => {};
const cases: StoreCase[] = [
  { name: "sqlite", options: async () => ({ options: { embedded: "sqlite" }, drop: none }) },
  { name: "pglite", options: async () => ({ options: { embedded: "pglite" }, drop: none }) },
];
if (databaseUrl) {
  cases.push({
    name: "postgres",
    options: async () => {
      const schema = await serverSchema(databaseUrl, "deadlines");
      return { options: { databaseUrl: schema.url }, drop: () => schema.drop() };
    },
  });
}

describe.each(cases)("statements on $name", ({ name, options }) => {
  let store: FactStore;
  let drop = none;
  beforeAll(async () => {
    const opened = await options();
    drop = opened.drop;
    store = await openStore(opened.options);
  });
  afterAll(async () => {
    await store?.close();
    await drop();
  });

  it("keep the event loop free, fail at their deadline, and the store answers after", async () => {
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 5);
    const slow = store.db.query(SLOW[name]!, [], { deadline: Date.now() + 300 });
    await expect(slow).rejects.toBeInstanceOf(DeadlineExceeded);
    clearInterval(ticking);
    // The loop ran its timers while the statement ran elsewhere.
    expect(ticks).toBeGreaterThan(5);
    // On PGlite the statement goes on in its thread, and the next one waits for it.
    const [row] = await store.db.query<{ n: number | string }>("SELECT 1 AS n");
    expect(Number(row!.n)).toBe(1);
  });

  it("answer a statement that finishes before its deadline", async () => {
    const rows = await store.db.query<{ n: number | string }>("SELECT 2 AS n", [], {
      deadline: Date.now() + 60_000,
    });
    expect(rows.map((row) => Number(row.n))).toEqual([2]);
  });
});

describe("a question past the request's deadline", () => {
  it("is a 422 naming requestMs, and the service answers the next one", async () => {
    const store = await openStore({ embedded: "sqlite" });
    // The store's statements, with one question's slowed down to the slow statement.
    const db = store.db;
    let slowNext = true;
    const slowed: SqlExecutor = {
      ...db,
      engine: db.engine,
      query: (sql, params, hints) => db.query(sql, params, hints),
      prepared: (sql, params, hints) => {
        if (!slowNext || !/allowed/.test(sql)) return db.prepared(sql, params, hints);
        slowNext = false;
        return db.query(SLOW.sqlite!, [], hints);
      },
    };
    const service = serviceOver(storeThrough(store, slowed), {
      limits: { requestMs: 300 },
      pool: sharedWorkerPool(),
    });
    try {
      await service.postPolicy(
        { src: 'actor User {}\nallow(_: User, "read", _: User);\n', filename: "p.polar" },
        {},
      );
      const question = {
        actor_type: "User",
        actor_id: "a",
        action: "read",
        resource_type: "User",
        resource_id: "b",
      };
      await expect(service.authorize(question)).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining("--request-timeout-ms"),
      });
      expect((await service.authorize(question)).body).toEqual({ allowed: true });
    } finally {
      await service.close();
    }
  });
});
