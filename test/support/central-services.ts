/**
 * Central services for tests: one on embedded PGlite and one on embedded SQLite (both in
 * memory) always, one on the PostgreSQL server when DATABASE_URL is set. The store uses fixed
 * table names, so each server-backed service gets its own schema, selected through the
 * connection's `search_path`; files running in parallel never see each other's facts.
 *
 *   const engines = serviceEngines();
 *   describe.each(engines)("$name", (engine) => {
 *     it("answers", async () => { const service = await engine.service(); ... });
 *   });
 */
import pg from "pg";
import { afterAll, describe } from "vitest";
import type { PolarService } from "../../src/api/service.js";
import { createService, type ServiceOptions } from "../../src/service/service.js";
import { LONG } from "./runs.js";
import { sharedWorkerPool } from "./worker-pool.js";

export interface ServiceEngine {
  readonly name: "pglite" | "sqlite" | "postgres";
  /** The file's shared service on this engine (opened on first use). */
  service(): Promise<PolarService>;
  /** A new service with an empty store of its own; closed after the file. */
  fresh(): Promise<PolarService>;
}

const databaseUrl = process.env.DATABASE_URL;

/**
 * A connection URL whose sessions use `schema` as their search path.
 *
 * @example
 * withSearchPath("postgres://u@h/db", "s1"); // "postgres://u@h/db?options=-c+search_path%3Ds1"
 */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  return parsed.toString();
}

/** A schema name unlikely to collide with another test process. */
export function uniqueSchemaName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Creates a schema on the server and returns a URL that uses it; `drop` removes it. */
export async function serverSchema(
  url: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = uniqueSchemaName(prefix);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return {
    url: withSearchPath(url, schema),
    drop: () => dropSchema(url, schema),
  };
}

/** Drops `schema` and everything in it from the server at `url`, if it is there. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const cleaner = new pg.Client({ connectionString: url });
  await cleaner.connect();
  try {
    await cleaner.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await cleaner.end();
  }
}

/** The names of the engines this run can use, in the order `serviceEngines` lists them. */
const ENGINE_NAMES: readonly ServiceEngine["name"][] = [
  "pglite",
  "sqlite",
  ...(databaseUrl ? (["postgres"] as const) : []),
];

/**
 * The engines this run can use: the embedded stores (PGlite and SQLite) always, the server
 * when DATABASE_URL is set.
 */
export function serviceEngines(options: ServiceOptions = {}): ServiceEngine[] {
  return ENGINE_NAMES.map((name) => engine(name, options));
}

/**
 * Whether the quick run asks case number `index` of a suite on `engine`: each case on one of the
 * engines, in turn, so that every case runs once and every engine answers a share of them.
 * Under POLAR_SQL_LONG=1 (CI) every case runs on every engine.
 *
 * @example
 * it.skipIf(!onEngineInTurn(2, engine))("…", …); // the quick run asks it on PGlite only
 */
export function onEngineInTurn(index: number, engine: Pick<ServiceEngine, "name">): boolean {
  return LONG || index % ENGINE_NAMES.length === ENGINE_NAMES.indexOf(engine.name);
}

/**
 * The two ways family number `family` gives its facts, stored and sent as context, each with
 * whether the quick run asks it on `engine` (`onEngineInTurn`): each way on another engine, so
 * that every engine answers every family, one way or the other.
 */
export function factModesInTurn(
  family: number,
  engine: Pick<ServiceEngine, "name">,
): readonly { readonly mode: "stored" | "context"; readonly asked: boolean }[] {
  return (["stored", "context"] as const).map((mode, turn) => ({
    mode,
    asked: onEngineInTurn(family + turn, engine),
  }));
}

/**
 * `describe.each(serviceEngines(options))`, except that without DATABASE_URL the PostgreSQL
 * suite is still registered, as skipped: its tests are counted and listed.
 */
export function describeServiceEngines(
  options: ServiceOptions,
  title: string,
  body: (engine: ServiceEngine) => void,
): void {
  for (const found of serviceEngines(options)) {
    describe(title.replaceAll("$name", found.name), () => body(found));
  }
  if (!databaseUrl) {
    const refuse = () =>
      Promise.reject(new Error("DATABASE_URL is not set; this test should be skipped"));
    describe.skip(title.replaceAll("$name", "postgres"), () =>
      body({ name: "postgres", service: refuse, fresh: refuse }),
    );
  }
}

function engine(name: ServiceEngine["name"], given: ServiceOptions): ServiceEngine {
  // The process's pool unless the test chose how the service plans.
  const ownPlanning = given.pool !== undefined || given.workers !== undefined;
  const withPool = (): ServiceOptions =>
    ownPlanning ? given : { ...given, pool: sharedWorkerPool() };
  const cleanups: (() => Promise<void>)[] = [];
  let shared: Promise<PolarService> | undefined;
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  async function fresh(): Promise<PolarService> {
    const options = withPool();
    if (name !== "postgres") {
      const service = await createService({ ...options, embedded: name });
      cleanups.push(() => service.close());
      return service;
    }
    const schema = await serverSchema(databaseUrl!, "central");
    cleanups.push(() => schema.drop());
    const service = await createService({ ...options, databaseUrl: schema.url });
    cleanups.push(() => service.close());
    return service;
  }
  return {
    name,
    fresh,
    service() {
      shared ??= fresh();
      return shared;
    },
  };
}
