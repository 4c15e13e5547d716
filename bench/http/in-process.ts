/**
 * In-process latency of the service functions (no HTTP): the dataset of the HTTP bench
 * (fixture.ts, BENCH_DATA / BENCH_SCALE) in the default store (in-memory SQLite; --store=pglite), or on
 * DATABASE_URL with `--postgres` (schema bench_inproc), one call at a time with bodies that vary.
 * Prints p50/p99/mean per endpoint. Issue 15's target: authorize p50 ≤ 100 µs on the default store.
 *
 *   BENCH_DATA=recursive npx tsx bench/http/in-process.ts                 # every endpoint
 *   BENCH_DATA=recursive npx tsx bench/http/in-process.ts authorize 20000 # one, N calls
 *   node --cpu-prof --import tsx bench/http/in-process.ts authorize_query # profile
 *   BENCH_DATA=recursive npx tsx bench/http/in-process.ts --shared-buffers=64MB  # PGlite setting
 *   BENCH_DATA=recursive npx tsx bench/http/in-process.ts authorize --repeat=500  # 500 bodies cycled
 *   ... --no-answer-cache                                   # the service keeps no answers
 *   ... --store=pglite                                      # PGlite instead of SQLite
 *   ... --reopen        # SQLite in a data directory, closed after loading and opened again, so
 *                       # that every connection reads the statistics the load left in the file
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { PolarService } from "../../src/api/service.js";
import { serviceOver } from "../../src/service/service.js";
import { EMBEDDED_SETTINGS } from "../../src/store/pglite-setup.js";
import { type EmbeddedStore, openStore } from "../../src/store/store.js";
import { type BenchRequest, datasetFromEnv } from "./fixture.js";

const onPostgres = process.argv.includes("--postgres");
/** `--shared-buffers=64MB`: PGlite's shared buffers instead of the embedded default. */
const sharedBuffers = process.argv
  .find((a) => a.startsWith("--shared-buffers="))
  ?.slice("--shared-buffers=".length);
const [kindArgument, countArgument] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const kinds: BenchRequest["name"][] = kindArgument
  ? [kindArgument as BenchRequest["name"]]
  : ["authorize", "actions", "authorize_query", "list"];
const calls = Number(countArgument ?? 5000);
/** `--repeat=500`: cycle over this many distinct bodies (the answer cache's case). */
const repeat = Number(
  process.argv.find((a) => a.startsWith("--repeat="))?.slice("--repeat=".length) ?? 0,
);
const noAnswerCache = process.argv.includes("--no-answer-cache");
/** `--store=pglite`: the embedded store (SQLite by default). */
const embedded = (process.argv.find((a) => a.startsWith("--store="))?.slice("--store=".length) ??
  "sqlite") as EmbeddedStore;

async function storeUrl(): Promise<string> {
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query("DROP SCHEMA IF EXISTS bench_inproc CASCADE");
  await admin.query("CREATE SCHEMA bench_inproc");
  await admin.end();
  const parsed = new URL(url);
  parsed.searchParams.set("options", "-c search_path=bench_inproc");
  return parsed.toString();
}

function call(service: PolarService, kind: BenchRequest["name"], body: unknown) {
  switch (kind) {
    case "authorize":
      return service.authorize(body);
    case "actions":
      return service.actions(body);
    case "list":
      return service.list(body);
    case "authorize_query":
      return service.authorizeQuery(body);
    default: {
      const _never: never = kind;
      throw new Error(`unknown endpoint ${String(_never)}`);
    }
  }
}

const dataset = datasetFromEnv();
const pgliteSettings = sharedBuffers
  ? EMBEDDED_SETTINGS.map((line) =>
      line.startsWith("shared_buffers") ? `shared_buffers = ${sharedBuffers}` : line,
    )
  : EMBEDDED_SETTINGS;
const reopen = process.argv.includes("--reopen");
const dataDir = reopen ? mkdtempSync(join(tmpdir(), "polar-bench-reopen-")) : undefined;
const storeOptions = onPostgres
  ? { databaseUrl: await storeUrl() }
  : { embedded, pgliteSettings, ...(dataDir && { dataDir }) };
let store = await openStore(storeOptions);
let service = serviceOver(store, noAnswerCache ? { answerCache: false } : {});
await service.postPolicy(
  { filename: "policy.polar", src: readFileSync(dataset.policyFile, "utf8") },
  {},
);
const facts = dataset.facts();
await store.applyBatch([{ inserts: facts as never }]);
if (reopen) {
  await service.close();
  store = await openStore(storeOptions);
  service = serviceOver(store, noAnswerCache ? { answerCache: false } : {});
}
console.log(
  `${facts.length} facts (${dataset.description}), ${onPostgres ? "PostgreSQL server" : `in-memory ${embedded}`}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(
      " ",
    )}${reopen ? ", reopened from its data directory" : ""}${sharedBuffers ? `, shared_buffers ${sharedBuffers}` : ""}${repeat ? `, ${repeat} distinct bodies cycled` : ""}${noAnswerCache ? ", no answer cache" : ""}`,
);
// Wall times suffer from other processes on a busy machine; the process's CPU time per call
// (user + system, all threads: PGlite runs in this one) much less so.
console.log("| endpoint | calls | p50 µs | p99 µs | mean µs | CPU µs per call |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const kind of kinds) {
  const count = kind === "list" ? Math.min(calls, 500) : calls;
  // Distinct bodies, a first pass to warm plans and caches, then the timed pass.
  const distinct = dataset.requests(repeat > 0 ? repeat : count)[kind];
  const bodies = Array.from(
    { length: count },
    (_, i) => JSON.parse(distinct[i % distinct.length]!.body) as unknown,
  );
  for (const body of bodies.slice(0, 200)) await call(service, kind, body);
  const times: number[] = [];
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  for (const body of bodies) {
    const t0 = performance.now();
    await call(service, kind, body);
    times.push((performance.now() - t0) * 1000);
  }
  const mean = ((performance.now() - started) * 1000) / bodies.length;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuPerCall = (cpu.user + cpu.system) / bodies.length;
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]!);
  console.log(
    `| ${kind} | ${times.length} | ${at(0.5)} | ${at(0.99)} | ${Math.round(mean)} | ${Math.round(cpuPerCall)} |`,
  );
}
await service.close();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
