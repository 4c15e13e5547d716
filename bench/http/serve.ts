/**
 * The server process of the HTTP load benchmark: `polar-sql serve` on an in-memory embedded
 * store (BENCH_STORE: sqlite, the default, or pglite) with the fixture policy and facts. The API key comes from POLAR_SQL_API_KEYS, the dataset from
 * BENCH_DATA and BENCH_SCALE (fixture.ts), and BENCH_DATABASE_URL (when set) puts the store on a PostgreSQL server
 * (all set by load.ts).
 *
 * BENCH_GC_PAUSES=<ms> prints to stderr every garbage collection that held the process at
 * least that long (load.ts `--gc-pauses=<ms>`), to tell a collector pause from other stalls.
 *
 *   POLAR_SQL_API_KEYS=k BENCH_SCALE=small npx tsx bench/http/serve.ts
 */
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { processIo } from "../../src/cli/io.js";
import { runServeCommand } from "../../src/cli/serve-command.js";
import { datasetFromEnv } from "./fixture.js";

const gcPauseMs = Number(process.env.BENCH_GC_PAUSES ?? 0);
/** `detail.kind` of a gc entry (perf_hooks constants NODE_PERFORMANCE_GC_*). */
const GC_KINDS: Record<number, string> = { 1: "minor", 4: "major", 8: "incremental", 16: "weak" };
if (gcPauseMs > 0) {
  const started = performance.now();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < gcPauseMs) continue;
      const at = ((entry.startTime - started) / 1000).toFixed(2);
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? "gc";
      process.stderr.write(`gc pause ${entry.duration.toFixed(1)} ms at ${at} s (${kind})\n`);
    }
  }).observe({ entryTypes: ["gc"] });
}

const factsFile = join(tmpdir(), `polar-sql-bench-facts-${process.pid}.json`);
const dataset = datasetFromEnv();
// BENCH_STORED=roles: the service stores only the roles (the usual split for local
// authorization: relations live in the application's tables, roles in the service).
const stored =
  process.env.BENCH_STORED === "roles"
    ? dataset.facts().filter((fact) => fact.predicate === "has_role")
    : dataset.facts();
await writeFile(factsFile, JSON.stringify(stored));
try {
  const storage = process.env.BENCH_DATABASE_URL
    ? ["--database-url", process.env.BENCH_DATABASE_URL]
    : ["--store", process.env.BENCH_STORE ?? "sqlite"];
  // BENCH_ANSWER_CACHE=off: every question runs its statement (no answer is reused).
  if (process.env.BENCH_ANSWER_CACHE === "off") storage.push("--no-answer-cache");
  process.exitCode = await runServeCommand(
    [
      ...[
        "--policy",
        dataset.policyFile,
        "--port",
        "0",
        "--facts",
        factsFile,
        "--log-level",
        "silent",
      ],
      ...storage,
    ],
    processIo,
  );
} finally {
  await rm(factsFile, { force: true });
}
