/**
 * Real PostgreSQL for tests: PGlite always, the PostgreSQL server when DATABASE_URL is set.
 * Each engine works in a schema of its own, dropped after the file: on the server so that
 * files running in parallel do not see each other's tables, in PGlite so that the files of one
 * test process can share one PGlite (a start costs about half a second of CPU).
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

/**
 * The test process's PGlite, shared by the `pglite` engines of every file: files run one after
 * another in a process (vitest.config.ts `isolate: false`), and tests within a file one after
 * another, so one session serves them all. Like the test process's worker pool, it is never
 * closed.
 */
let sharedPglite: Promise<PGlite> | undefined;
/** The schema the shared PGlite's search path names, once an engine has set it. */
let searchPath: string | null = null;

function pgliteEngine(): TestEngine {
  const schemaName = uniqueSchemaName();
  let opened: Promise<PGlite> | undefined;
  afterAll(async () => {
    if (!opened) return;
    const lite = await opened;
    // A transaction a failed test left open would keep the next file's statements in it.
    await lite.exec("ROLLBACK");
    await lite.exec(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
    // The session's settings, search path and temporary tables, as a new PGlite has them.
    await lite.exec("DISCARD ALL");
    searchPath = null;
  });
  /** The shared PGlite, its search path on this engine's schema (another engine's before). */
  async function lite(): Promise<PGlite> {
    opened ??= (async () => {
      sharedPglite ??= openTestPglite();
      const shared = await sharedPglite;
      await shared.exec(`CREATE SCHEMA ${schemaName}`);
      return shared;
    })();
    const shared = await opened;
    if (searchPath !== schemaName) {
      await shared.exec(`SET search_path TO ${schemaName}`);
      searchPath = schemaName;
    }
    return shared;
  }
  return {
    name: "pglite",
    async db() {
      await lite();
      return {
        async query<Row>(sql: string, parameters?: readonly unknown[]) {
          const rows = await (await lite()).query<Row>(
            sql,
            parameters ? [...parameters] : undefined,
          );
          return rows.rows;
        },
        async exec(sql: string) {
          await (await lite()).exec(sql);
        },
      };
    },
  };
}

/** A schema name unlikely to collide with another test process's on the server. */
function uniqueSchemaName(): string {
  return `t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
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
  const schemaName = uniqueSchemaName();
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
