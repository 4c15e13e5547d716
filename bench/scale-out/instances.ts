/**
 * The store and the service processes of the scale-out bench: a fresh PostgreSQL schema, its
 * policy and facts loaded once from this process, then N `polar-sql serve` processes on that
 * schema (bench/scale-out/instance.ts), each with its own connection pool, worker threads and
 * caches, exactly as N deployed instances behind a load balancer would run. Unlike the HTTP
 * bench's server (bench/http/server-process.ts, which has bench/http/serve.ts insert the
 * dataset at start), the instances start on a store already loaded, at any scale.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import pg from "pg";
import type { GroundFact } from "../../src/core/value.js";
import { serviceOver } from "../../src/service/service.js";
import { openStore } from "../../src/store/store.js";
import { serverStore } from "../http/server-process.js";
import type { CpuRoles } from "./cpu.js";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function dropSchema(schema: string): Promise<unknown> {
  return admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

/** Drops and recreates `schema`; returns a URL whose sessions use it (`search_path`). */
export const freshSchema = serverStore;

export interface Loaded {
  readonly facts: number;
  readonly seconds: number;
  /** `pg_total_relation_size` of the fact table with its indexes. */
  readonly tableSize: string;
}

/** Sets the policy and inserts the facts in batches of 10,000, then runs ANALYZE. */
export async function loadStore(
  url: string,
  policyFile: string,
  facts: readonly GroundFact[],
): Promise<Loaded> {
  const store = await openStore({ databaseUrl: url });
  const service = serviceOver(store, {});
  try {
    await service.postPolicy({ src: await readFile(policyFile, "utf8"), filename: policyFile }, {});
    const started = performance.now();
    for (let i = 0; i < facts.length; i += 10_000) {
      await store.applyBatch([{ inserts: facts.slice(i, i + 10_000) }]);
    }
    await store.db.query("ANALYZE polar_fact");
    const seconds = (performance.now() - started) / 1000;
    const [row] = await store.db.query<{ size: string }>(
      "SELECT pg_size_pretty(pg_total_relation_size('polar_fact')) AS size",
    );
    return { facts: facts.length, seconds, tableSize: row?.size ?? "?" };
  } finally {
    await service.close();
  }
}

export interface Instance {
  readonly child: ChildProcess;
  readonly url: string;
}

/**
 * One `polar-sql serve` on the store at `url` (and more `serve` options, `--replica-url …`);
 * resolves once it listens.
 */
export function startInstance(
  apiKey: string,
  url: string,
  policyFile: string,
  more: readonly string[] = [],
): Promise<Instance> {
  const args = ["serve", "--policy", policyFile, "--database-url", url, "--port", "0", ...more];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "bench/scale-out/instance.ts", ...args, "--log-level", "silent"],
    { env: { ...process.env, POLAR_SQL_API_KEYS: apiKey }, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once("exit", (code) => reject(new Error(`instance exited with code ${code}: ${output}`)));
  });
}

export async function stopInstances(instances: readonly Instance[]): Promise<void> {
  await Promise.all(
    instances.map(async ({ child }) => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }),
  );
}

/**
 * The PostgreSQL backends connected to the bench's database (on the server at `url`, the
 * primary by default), but for the asking session.
 */
async function backendPids(url = DATABASE_URL): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Whose CPU time counts for what: this process, the instances, their PostgreSQL backends on
 * the primary (`postgres`) and, with a standby, on it (`standby`).
 */
export function rolesOf(instances: readonly Instance[], standbyUrl?: string): CpuRoles {
  return {
    pids: async () =>
      new Map([
        ["generator", [process.pid]],
        ["instances", instances.map((i) => i.child.pid!)],
        ["postgres", await backendPids()],
        ...(standbyUrl ? [["standby", await backendPids(standbyUrl)] as [string, number[]]] : []),
      ]),
  };
}

/** When, on what, under which load and at which commit a figure was taken. */
export function machineLine(): string {
  const commit = execFileSync("git", ["log", "-1", "--format=%h %s"]).toString().trim();
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  return `${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}; node ${process.version}; load average ${load}; commit ${commit.slice(0, 80)}`;
}
