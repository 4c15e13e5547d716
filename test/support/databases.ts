/**
 * Real PostgreSQL for tests: PGlite always, the PostgreSQL server when DATABASE_URL is set.
 * Each test file shares one instance per engine (PGlite takes seconds to start).
 *
 *   describeEngines("$name", (engine) => { it(..., async () => { await engine.db().query(...) }) });
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe } from "vitest";
import { openTestPglite } from "./pglite.js";

export interface TestDatabase {
  /**
   * Rows of the last statement; `sql` may hold several statements when it returns nothing and
   * takes no parameters.
   */
  query<Row = Record<string, unknown>>(
    sql: string,
    parameters?: readonly unknown[],
  ): Promise<Row[]>;
  /** Runs several statements (DDL, inserts). */
  exec(sql: string): Promise<void>;
}

export interface TestEngine {
  readonly name: "pglite" | "postgres";
  /** Opens lazily; call inside tests or hooks. */
  db(): Promise<TestDatabase>;
}

const databaseUrl = process.env.DATABASE_URL;

/**
 * The engines this run can use. Without DATABASE_URL the PostgreSQL server is skipped, with one
 * notice for the run (test/support/global-setup.ts); CI sets it.
 */
export function testEngines(): TestEngine[] {
  const engines: TestEngine[] = [pgliteEngine()];
  if (databaseUrl) engines.push(postgresEngine(databaseUrl));
  return engines;
}

/**
 * `describe.each(testEngines())`, except that without DATABASE_URL the PostgreSQL suite is
 * still registered, as skipped: its tests are counted and listed, not silently absent.
 * `$name` in the title is the engine's name.
 */
export function describeEngines(title: string, body: (engine: TestEngine) => void): void {
  for (const engine of testEngines())
    describe(title.replaceAll("$name", engine.name), () => body(engine));
  if (!databaseUrl) {
    describe.skip(title.replaceAll("$name", "postgres"), () => body(unavailable("postgres")));
  }
}

/**
 * `describe.each(items)` where the suites of the items `skipped` picks are registered as
 * skipped. `$name` in the title is the item's name.
 */
export function describeEach<T extends { readonly name: string }>(
  items: readonly T[],
  skipped: (item: T) => boolean,
): (title: string, body: (item: T) => void) => void {
  return (title, body) => {
    for (const item of items) {
      const suite = skipped(item) ? describe.skip : describe;
      suite(title.replaceAll("$name", item.name), () => body(item));
    }
  };
}

/** An engine whose tests are skipped; opening it is a bug. */
function unavailable(name: TestEngine["name"]): TestEngine {
  return {
    name,
    db: () => Promise.reject(new Error("DATABASE_URL is not set; this test should be skipped")),
  };
}

function pgliteEngine(): TestEngine {
  let opened: Promise<PGlite> | undefined;
  afterAll(async () => {
    if (opened) await (await opened).close();
  });
  return {
    name: "pglite",
    async db() {
      opened ??= openTestPglite();
      const lite = await opened;
      return {
        async query<Row>(sql: string, parameters?: readonly unknown[]) {
          return (await lite.query<Row>(sql, parameters ? [...parameters] : undefined)).rows;
        },
        async exec(sql: string) {
          await lite.exec(sql);
        },
      };
    },
  };
}

/**
 * Each test file gets its own schema on the server so that files running in parallel do not
 * see each other's tables.
 */
function postgresEngine(url: string): TestEngine {
  let opened: Promise<pg.Client> | undefined;
  afterAll(async () => {
    if (opened) {
      const client = await opened;
      await client.query(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
      await client.end();
    }
  });
  const schemaName = `t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  return {
    name: "postgres",
    async db() {
      opened ??= (async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`CREATE SCHEMA ${schemaName}`);
        await client.query(`SET search_path TO ${schemaName}`);
        return client;
      })();
      const client = await opened;
      return {
        async query<Row>(sql: string, parameters?: readonly unknown[]) {
          const result = parameters
            ? await client.query(sql, [...parameters])
            : await client.query(sql);
          const last = Array.isArray(result) ? result[result.length - 1] : result;
          return (last?.rows ?? []) as Row[];
        },
        async exec(sql: string) {
          await client.query(sql);
        },
      };
    },
  };
}
