/**
 * The embedded store's footprint (issue 14): resident memory at idle and the time to a first
 * answer, for PGlite with several options, and for `npm start` itself.
 *
 *   npm run build && npx tsx bench/footprint/run.ts [--serve-only]
 *
 * Each variant runs in a fresh process (node, not tsx); resident memory is VmRSS from
 * /proc after 3 s idle. Figures in bench/RESULTS.md.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

const here = new URL(".", import.meta.url).pathname;
const root = join(here, "..", "..");
const IDLE_MS = 3000;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
  return Math.round(kb / 1024);
}

interface Figures {
  readonly name: string;
  readonly firstMs: number;
  readonly rssMb: number;
}

function measureChild(
  name: string,
  args: string[],
  readyAt: (line: string) => boolean,
  ask?: (line: string) => Promise<void>,
): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, POLAR_SQL_API_KEYS: "bench-key" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let buffer = "";
    child.stdout.on("data", async (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        if (!readyAt(line)) continue;
        try {
          if (ask) await ask(line);
          const firstMs = Math.round(performance.now() - started);
          setTimeout(() => {
            const rss = rssMb(child.pid!);
            child.kill("SIGKILL");
            resolve({ name, firstMs, rssMb: rss });
          }, IDLE_MS);
        } catch (error) {
          child.kill("SIGKILL");
          reject(error);
        }
      }
    });
    child.on("error", reject);
  });
}

async function firstAnswer(url: string): Promise<void> {
  const body = {
    actor_type: "User",
    actor_id: "alice",
    action: "read",
    resource_type: "Organization",
    resource_id: "acme",
  };
  const reply = await fetch(`${url}/api/authorize`, {
    method: "POST",
    headers: { authorization: "Bearer bench-key", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await reply.json()) as { allowed?: boolean };
  if (json.allowed !== true) throw new Error(`unexpected answer ${JSON.stringify(json)}`);
}

async function serve(name: string, extra: string[] = []): Promise<Figures> {
  const args = [
    "bin/polar-sql.js",
    "serve",
    "--policy",
    "examples/quickstart/policy.polar",
    "--facts",
    "examples/quickstart/facts.json",
    "--port",
    "0",
    "--log-level",
    "silent",
    ...extra,
  ];
  return measureChild(
    name,
    args,
    (line) => line.includes("listening on"),
    (line) => firstAnswer(/http:\/\/\S+/.exec(line)![0]),
  );
}

function pglite(name: string, options: Record<string, unknown>, dump?: string): Promise<Figures> {
  return measureChild(
    name,
    [join(here, "pglite-child.mjs"), JSON.stringify({ options, dump })],
    (line) => line.startsWith("ready"),
  );
}

/** A data directory with the store's schema, dumped as a tarball. */
async function prebuiltDump(): Promise<string> {
  const db = await PGlite.create();
  const { migrate } = await import("../../dist/store/schema.js");
  await migrate({
    engine: "postgres",
    query: async (sql: string, params?: unknown[]) => (await db.query(sql, params)).rows,
    transaction: (work: (tx: unknown) => Promise<unknown>) =>
      db.transaction((tx) =>
        work({
          engine: "postgres",
          query: async (s: string, p?: unknown[]) => (await tx.query(s, p)).rows,
        }),
      ),
  } as never);
  const file = await db.dumpDataDir("none");
  await db.close();
  const path = join(await mkdtemp(join(tmpdir(), "polar-footprint-")), "schema.tar");
  await writeFile(path, Buffer.from(await file.arrayBuffer()));
  return path;
}

/** Appended to postgresql.conf (`startParams` would replace PGlite's own start parameters). */
const SMALL = [
  "shared_buffers = 8MB",
  "work_mem = 1MB",
  "wal_buffers = 256kB",
  "max_wal_size = 32MB",
  "min_wal_size = 32MB",
];

const TINY = [
  "shared_buffers = 1MB",
  "work_mem = 1MB",
  "temp_buffers = 1MB",
  "maintenance_work_mem = 1MB",
  "wal_buffers = 64kB",
  "max_wal_size = 32MB",
  "min_wal_size = 32MB",
];

async function freshDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "polar-footprint-")), "data");
}

const results: Figures[] = [];
const serveOnly = process.argv.includes("--serve-only");
if (!serveOnly) {
  const dump = await prebuiltDump();
  const variants: [string, Record<string, unknown>, string?][] = [
    ["pglite defaults", {}],
    // The build's memory starts at 2048 wasm pages (128 MB): less fails to instantiate.
    ["small buffers (postgresqlconf)", { postgresqlconf: SMALL }],
    ["prebuilt data dir (loadDataDir)", {}, dump],
    ["prebuilt data dir + small buffers", { postgresqlconf: SMALL }, dump],
    ["on disk (dataDir) + small buffers", { dataDir: await freshDir(), postgresqlconf: SMALL }],
    [
      "on disk from prebuilt + small buffers",
      { dataDir: await freshDir(), postgresqlconf: SMALL },
      dump,
    ],
    [
      "on disk from prebuilt + tiny buffers",
      { dataDir: await freshDir(), postgresqlconf: TINY },
      dump,
    ],
  ];
  for (const [name, options, dumped] of variants) {
    results.push(await pglite(name, options, dumped));
  }
}
results.push(await serve("npm start (serve, SQLite in memory)"));
results.push(await serve("serve --data <dir> (SQLite file)", ["--data", await freshDir()]));
results.push(await serve("serve --workers 0 (SQLite)", ["--workers", "0"]));
results.push(await serve("serve --store pglite (in memory)", ["--store", "pglite"]));
results.push(
  await serve("serve --store pglite --workers 0", ["--store", "pglite", "--workers", "0"]),
);
console.log("| variant | first answer (ms after spawn) | idle RSS (MB) |");
console.log("|---|---:|---:|");
for (const r of results) console.log(`| ${r.name} | ${r.firstMs} | ${r.rssMb} |`);
