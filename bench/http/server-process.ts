/**
 * The HTTP benches' server: `polar-sql serve` (bench/http/serve.ts) in a child process, so that
 * the load generator never shares its event loop, on an in-memory embedded store (SQLite or
 * PGlite) or on a fresh schema of a PostgreSQL server.
 *
 *   const server = await startServer({ apiKey, data: "recursive", scale: "default", databaseUrl: null });
 *   ...; await server.stop();
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import pg from "pg";

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resident memory of the server process (MiB). */
  rssMiB(): Promise<number>;
  stop(): Promise<void>;
}

export interface ServerOptions {
  readonly apiKey: string;
  /** BENCH_DATA and BENCH_SCALE of fixture.ts. */
  readonly data: string;
  readonly scale: string;
  /** A PostgreSQL URL for the store (see `serverStore`); null for an in-memory embedded store. */
  readonly databaseUrl: string | null;
  /** `roles`: the service stores only the dataset's roles (BENCH_STORED of serve.ts). */
  readonly stored?: "all" | "roles";
  /** The embedded store when `databaseUrl` is null (BENCH_STORE of serve.ts); SQLite by default. */
  readonly embedded?: "sqlite" | "pglite";
  /** False starts the server with `--no-answer-cache` (BENCH_ANSWER_CACHE of serve.ts). */
  readonly answerCache?: boolean;
  /** Node options before the script, e.g. `["--cpu-prof", "--cpu-prof-dir=/tmp/prof"]`. */
  readonly nodeArgs?: readonly string[];
}

/**
 * A fresh schema on DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), dropped and
 * recreated, and a URL whose sessions use it.
 */
export async function serverStore(schema: string): Promise<string> {
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  return parsed.toString();
}

export function startServer(options: ServerOptions): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), "--import", "tsx", "bench/http/serve.ts"],
    {
      env: {
        ...process.env,
        POLAR_SQL_API_KEYS: options.apiKey,
        BENCH_SCALE: options.scale,
        BENCH_DATA: options.data,
        BENCH_STORED: options.stored ?? "all",
        BENCH_STORE: options.embedded ?? "sqlite",
        BENCH_ANSWER_CACHE: options.answerCache === false ? "off" : "on",
        ...(options.databaseUrl && { BENCH_DATABASE_URL: options.databaseUrl }),
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(output);
      if (match) resolve(serverProcess(child, match[1]!));
    });
    child.once("exit", (code) => reject(new Error(`server exited with code ${code}: ${output}`)));
  });
}

function serverProcess(child: ChildProcess, url: string): ServerProcess {
  return {
    child,
    url,
    async rssMiB() {
      const status = await readFile(`/proc/${child.pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      return Math.round((kb / 1024) * 10) / 10;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
