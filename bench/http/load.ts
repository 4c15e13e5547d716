/**
 * HTTP load benchmark: starts `polar-sql serve` (in-memory SQLite; `--pglite` for PGlite) in a
 * child process and
 * drives it over loopback with autocannon at concurrency 50: authorize alone (as fast as it
 * answers; then at 2,000 requests/s evenly spaced, open loop, see open-loop.ts),
 * authorize_query alone, then a mix of authorize, list, actions and authorize_query. About
 * 36 s in all.
 * Reports requests/s, p99 latency, errors, and the server's RSS at start and end. The max of a
 * saturated run includes autocannon opening its 50 connections, which a busy server accepts one
 * per turn of its event loop (docs/operations.md, "Keep connections open").
 *
 *   npx tsx bench/http/load.ts                 # full run (~30 s of load), ~12.6k facts
 *   npx tsx bench/http/load.ts --small         # ~1k facts
 *   npx tsx bench/http/load.ts --quick         # a few seconds of load, for a smoke check
 *   npx tsx bench/http/load.ts --recursive     # folder trees (bench/http/recursive.ts), ~80k facts
 *   npx tsx bench/http/load.ts --bodies=20000  # distinct bodies per endpoint (default 500)
 *   npx tsx bench/http/load.ts --no-answer-cache  # every request runs its statement
 *   npx tsx bench/http/load.ts --pglite        # the embedded PGlite store instead of SQLite
 *   npx tsx bench/http/load.ts --trace=20      # the 20 slowest open-loop requests, split
 *   npx tsx bench/http/load.ts --gc-pauses=20  # the server prints each GC pause of 20 ms or more
 *   npx tsx bench/http/load.ts --cpu-prof=/tmp/p  # the server's CPU profile, in that directory
 *   npx tsx bench/http/load.ts --postgres      # the store on DATABASE_URL (default
 *                                              # postgres://postgres@127.0.0.1:5432/test),
 *                                              # schema bench_http, dropped and recreated
 */
import { randomBytes } from "node:crypto";
import { type DriveSummary, drive } from "./drive.js";
import { type BenchRequest, datasetFromEnv } from "./fixture.js";
import { type ApartSummary, openLoopApart } from "./open-loop-apart.js";
import { serverStore, startServer } from "./server-process.js";

const quick = process.argv.includes("--quick");
const scaleName = process.argv.includes("--small") ? "small" : "default";
const dataName = process.argv.includes("--recursive") ? "recursive" : "nested";
process.env.BENCH_SCALE = scaleName;
process.env.BENCH_DATA = dataName;
const dataset = datasetFromEnv();
/** Distinct bodies per endpoint; requests cycle over them. */
const BODIES = Number(
  /^--bodies=(\d+)$/.exec(process.argv.find((a) => a.startsWith("--bodies=")) ?? "")?.[1] ?? 500,
);
const connections = 50;
const onPostgres = process.argv.includes("--postgres");
// The server process reads it (serve.ts): its GC pauses of at least this many ms, on stderr.
const gcPauses = process.argv.find((a) => a.startsWith("--gc-pauses="));
if (gcPauses) process.env.BENCH_GC_PAUSES = gcPauses.slice("--gc-pauses=".length);
/** A directory for the server's CPU profile, written when it exits (`--cpu-prof=<dir>`). */
const cpuProf = process.argv.find((a) => a.startsWith("--cpu-prof="))?.slice("--cpu-prof=".length);
/** Slowest open-loop requests to print, each split (open-loop.ts); 0 prints none. */
const TRACE = Number(
  process.argv.find((a) => a.startsWith("--trace="))?.slice("--trace=".length) ?? 0,
);
/** Open-loop authorize rates (issue 6: 2,000/s with p99 ≤ 25 ms; issue 15: 1,000/s, p99 ≤ 10 ms). */
const AUTHORIZE_RATES = [1000, 2000];

const phases = quick
  ? { warmup: 1, authorize: 2, authorizeQuery: 2, mixed: 3 }
  : { warmup: 8, authorize: 6, authorizeQuery: 6, mixed: 14 };

function row(name: string, s: DriveSummary): string {
  return `| ${name} | ${s.requestsPerSecond} | ${s.p50Ms} | ${s.p99Ms} | ${s.maxMs} | ${s.errors} | ${s.non2xx} |`;
}

/** Runs `work` for each item, one after another. */
async function sequence<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

async function main(): Promise<void> {
  const apiKey = randomBytes(16).toString("hex");
  const started = Date.now();
  const server = await startServer({
    apiKey,
    data: dataName,
    scale: scaleName,
    databaseUrl: onPostgres ? await serverStore("bench_http") : null,
    embedded: process.argv.includes("--pglite") ? "pglite" : "sqlite",
    answerCache: !process.argv.includes("--no-answer-cache"),
    ...(cpuProf && { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] }),
  });
  console.log(`server ready in ${Math.round((Date.now() - started) / 1000)} s at ${server.url}`);
  const mix = dataset.requests(BODIES);
  const mixed: BenchRequest[] = mix.authorize.flatMap((r, i) => [
    r,
    mix.list[i]!,
    mix.actions[i]!,
    mix.authorize_query[i]!,
  ]);
  const run = (requests: readonly BenchRequest[], seconds: number) =>
    drive({ url: server.url, apiKey, requests, connections, seconds });
  try {
    const rssLoaded = await server.rssMiB();
    await run(mixed, phases.warmup);
    const rssWarm = await server.rssMiB();
    const traces: [string, ApartSummary][] = [];
    const results: [string, DriveSummary][] = [
      ["authorize", await run(mix.authorize, phases.authorize)],
      // Latency at the target rate, open loop: the saturating run above measures queueing as
      // much as service (50 connections at N requests/s wait 50/N s on average, Little's law).
      ...(await sequence(AUTHORIZE_RATES, async (rate): Promise<[string, DriveSummary]> => {
        const name = `authorize at ${rate} requests/s, open loop`;
        // In a process of its own: this one's collections would be counted as the server's.
        const summary = await openLoopApart({
          url: server.url,
          apiKey,
          requests: mix.authorize,
          rate,
          seconds: phases.authorize,
          connections,
          trace: TRACE,
        });
        traces.push([name, summary]);
        return [name, summary];
      })),
      ["authorize_query", await run(mix.authorize_query, phases.authorizeQuery)],
      ["mixed (authorize, list, actions, authorize_query)", await run(mixed, phases.mixed)],
    ];
    const rssEnd = await server.rssMiB();
    const batching = onPostgres ? await readsPerMessage(server.url, apiKey) : null;
    const facts = `${dataset.facts().length} facts (${dataset.description}); ${BODIES} bodies per endpoint`;
    const store = onPostgres
      ? "PostgreSQL server"
      : `in-memory ${process.argv.includes("--pglite") ? "PGlite" : "SQLite"}`;
    console.log(`\nHTTP load, ${connections} connections, loopback, ${store}; ${facts}`);
    console.log("| run | requests/s | p50 ms | p99 ms | max ms | errors | non-2xx |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const [name, summary] of results) console.log(row(name, summary));
    console.log(
      `\nserver RSS: ${rssLoaded} MiB after loading, ${rssWarm} MiB after warm-up, ${rssEnd} MiB at the end`,
    );
    if (batching) console.log(batching);
    for (const [name, { generatorPauses: p }] of traces) {
      console.log(
        `${name}: the generator's GC pauses of 2 ms or more: ${p.count}, longest ${p.maxMs} ms`,
      );
    }
    for (const [name, summary] of traces) printSlowest(name, summary);
    console.log(`total time ${Math.round((Date.now() - started) / 1000)} s`);
    const failed = results.filter(([, s]) => s.errors > 0 || s.non2xx > 0);
    for (const [name, s] of failed) console.log(`${name}: first failure ${s.firstFailure}`);
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

/** The store's reads and the messages they went in, from the server's `/metrics`. */
async function readsPerMessage(url: string, apiKey: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } });
  const text = await res.text();
  const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  const reads = counter("polar_sql_store_recurring_reads_total");
  const messages = counter("polar_sql_store_read_messages_total");
  const mean = (reads / messages).toFixed(2);
  return `store reads in the whole run: ${reads} in ${messages} messages, ${mean} a message`;
}

/** The slowest requests of an open-loop run, each split into where its time went. */
function printSlowest(name: string, summary: ApartSummary): void {
  if (summary.slowest.length === 0) return;
  const ms = (n: number | null) => (n === null ? "–" : n.toFixed(1));
  console.log(`\nslowest of ${name}:`);
  console.log("| at s | latency ms | waiting to be sent | in the server | the rest |");
  console.log("| ---: | ---: | ---: | ---: | ---: |");
  for (const r of summary.slowest) {
    const rest = r.latencyMs - r.sendWaitMs - (r.serverMs ?? 0);
    const cells = [
      (r.atMs / 1000).toFixed(2),
      ms(r.latencyMs),
      ms(r.sendWaitMs),
      ms(r.serverMs),
      ms(rest),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
}

await main();
