/**
 * Scale-out bench (issue 15, item 3): 1 and then 2 `polar-sql serve` processes on one
 * PostgreSQL schema holding the recursive dataset (bench/http/recursive.ts, ~99k facts), load
 * from this process spread evenly over the instances (load-phases.ts), and read-your-writes
 * across instances (read-your-writes.ts). Prints Markdown; the cores each role used say where
 * the machine's time went.
 *
 *   npx tsx bench/scale-out/run.ts            # full run, ~2 min
 *   npx tsx bench/scale-out/run.ts --quick    # a few seconds per phase, 100 write→read pairs
 *   npx tsx bench/scale-out/run.ts --instances=2 --pairs=1000
 *   # instances read a hot standby (`.ci/replication up`), writes go to the primary:
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5440/test \
 *     npx tsx bench/scale-out/run.ts --standby=postgres://postgres@127.0.0.1:5441/test
 *
 * The store is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), schema
 * bench_scale_out, dropped and recreated, dropped again at the end. With `--standby`, the
 * standby's backends count as their own role, and its replay lag is sampled (replication-lag.ts).
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import type { BenchRequest } from "../http/fixture.js";
import {
  RECURSIVE_POLICY_FILE,
  RECURSIVE_SCALES,
  recursiveFacts,
  recursiveRequests,
} from "../http/recursive.js";
import {
  dropSchema,
  freshSchema,
  type Instance,
  loadStore,
  machineLine,
  rolesOf,
  startInstance,
  stopInstances,
} from "./instances.js";
import {
  coreCells,
  perRequestCells,
  type Spread,
  saturated,
  spreadCells,
  steady,
  warmUp,
} from "./load-phases.js";
import { type ReadYourWritesCounts, readYourWrites, type Target } from "./read-your-writes.js";
import { type LagSummary, sampleReplicationLag } from "./replication-lag.js";

const flag = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = process.argv.includes("--quick");
const COUNTS = (flag("instances") ?? "1,2").split(",").map(Number);
const PAIRS = Number(flag("pairs") ?? (quick ? 100 : 500));
const SECONDS = quick ? 3 : 10;
/** Discarded requests per instance before measuring (load-phases.ts, warmUp). */
const WARM_UP = quick ? 5000 : 15_000;
const CONNECTIONS = 50;
const RATE = 1000;
/** Distinct authorize bodies: more than any run sends, so no answer is asked twice. */
const BODIES = 100_000;
const SCHEMA = "bench_scale_out";
const STANDBY = flag("standby");
const PRIMARY = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

interface Row {
  readonly instances: number;
  readonly saturated: Spread;
  readonly steady: Spread;
  readonly writes: Spread;
  readonly withOffset: ReadYourWritesCounts;
  readonly withoutOffset: ReadYourWritesCounts;
  readonly load: string;
  readonly lag: LagSummary | null;
}

/** The standby's URL with the bench schema as its search path. */
function replicaArgs(): string[] {
  if (!STANDBY) return [];
  const url = new URL(STANDBY);
  url.searchParams.set("options", `-c search_path=${SCHEMA}`);
  return ["--replica-url", url.toString()];
}

async function measure(
  count: number,
  url: string,
  apiKey: string,
  targets: readonly Target[],
): Promise<Row> {
  const instances: Instance[] = [];
  const lag = STANDBY ? sampleReplicationLag(PRIMARY) : null;
  try {
    for (let k = 0; k < count; k++) {
      instances.push(await startInstance(apiKey, url, RECURSIVE_POLICY_FILE, replicaArgs()));
    }
    const urls = instances.map((i) => i.url);
    const roles = rolesOf(instances, STANDBY);
    const requests = recursiveRequests(RECURSIVE_SCALES.default, BODIES, 7 + count).authorize;
    const options = { urls, apiKey, roles };
    await warmUp(urls, apiKey, requests.slice(90_000), WARM_UP);
    const load = loadavg()[0]!.toFixed(1);
    const full = await saturated({
      ...options,
      requests: requests.slice(0, 60_000),
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    const even = await steady({
      ...options,
      requests: requests.slice(60_000, 90_000),
      seconds: SECONDS,
      rate: RATE,
    });
    // Across instances when there are two: write through the first, read from the last.
    const rw = (sendOffset: boolean) =>
      readYourWrites({
        writer: urls[0]!,
        reader: urls.at(-1)!,
        apiKey,
        targets,
        pairs: PAIRS,
        sendOffset,
        run: `rw${count}${sendOffset ? "o" : "n"}`,
      });
    const withoutOffset = await rw(false);
    const withOffset = await rw(true);
    const written = await saturated({
      ...options,
      requests: grants(`w${count}`, targets),
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    return {
      instances: count,
      saturated: full,
      steady: even,
      writes: written,
      withOffset,
      withoutOffset,
      load,
      lag: (await lag?.stop()) ?? null,
    };
  } catch (error) {
    await lag?.stop();
    throw error;
  } finally {
    await stopInstances(instances);
  }
}

/**
 * One `/api/batch` per grant of `viewer` on a folder to a fresh user (bench/http/drive.ts reads
 * only a request's path and body; the name is the bench's label).
 */
function grants(run: string, targets: readonly Target[]): BenchRequest[] {
  return Array.from({ length: 100_000 }, (_, i) => ({
    name: "authorize",
    path: "/api/batch",
    body: JSON.stringify([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: `${run}-${i}` },
              { type: "String", id: "viewer" },
              { type: "Folder", id: targets[i % targets.length]!.folder },
            ],
          },
        ],
      },
    ]),
  }));
}

async function main(): Promise<void> {
  console.log(`# Scale-out bench\n\n${machineLine()}\n`);
  const url = await freshSchema(SCHEMA);
  const facts = recursiveFacts(RECURSIVE_SCALES.default);
  const loaded = await loadStore(url, RECURSIVE_POLICY_FILE, facts);
  console.log(
    `Store: ${loaded.facts.toLocaleString("en")} facts (recursive, scale default) loaded in ${loaded.seconds.toFixed(1)} s; polar_fact with indexes ${loaded.tableSize}\n`,
  );
  const targets: Target[] = facts
    .filter(
      (f) =>
        f.predicate === "has_relation" &&
        f.args[0]!.type === "Document" &&
        f.args[1]!.id === "folder",
    )
    .slice(0, 2000)
    .map((f) => ({ document: f.args[0]!.id, folder: f.args[2]!.id }));
  const apiKey = randomBytes(16).toString("hex");
  const rows: Row[] = [];
  for (const count of COUNTS) rows.push(await measure(count, url, apiKey, targets));
  await dropSchema(SCHEMA);

  console.log(
    `authorize over HTTP, ${CONNECTIONS} connections in all (saturated) or ${RATE} requests/s open loop, split evenly; p50 and p99 ms per instance\n`,
  );
  console.log(
    "| instances | run | requests/s | p50 ms | p99 ms | errors | cores used | CPU per request | load avg |",
  );
  console.log("| ---: | --- | ---: | ---: | ---: | ---: | --- | --- | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.instances} | saturated | ${spreadCells(r.saturated)} | ${coreCells(r.saturated.cores)} | ${perRequestCells(r.saturated)} | ${r.load} |`,
    );
    console.log(
      `| ${r.instances} | writes (/api/batch, one fact), saturated | ${spreadCells(r.writes)} | ${coreCells(r.writes.cores)} | ${perRequestCells(r.writes)} | |`,
    );
    console.log(
      `| ${r.instances} | ${RATE}/s open loop | ${spreadCells(r.steady)} | ${coreCells(r.steady.cores)} | ${perRequestCells(r.steady)} | |`,
    );
  }
  console.log(
    `\nread-your-writes: ${PAIRS} pairs, each a grant then a revoke through /api/batch on the first instance, then /api/authorize on the last at once\n`,
  );
  console.log("| instances | OsoOffset sent | reads | stale | write→answer p50 ms | max ms |");
  console.log("| ---: | --- | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    for (const [sent, c] of [
      ["no", r.withoutOffset],
      ["yes", r.withOffset],
    ] as const) {
      console.log(
        `| ${r.instances} | ${sent} | ${c.reads} | ${c.stale} | ${c.p50Ms} | ${c.maxMs} |`,
      );
      if (c.firstStale) console.log(`first stale answer: ${c.firstStale}`);
    }
  }
  if (STANDBY) {
    console.log("\nreplication lag (`replay_lag` on the primary, every 100 ms, whole run)\n");
    console.log("| instances | samples | p50 ms | max ms |\n| ---: | ---: | ---: | ---: |");
    for (const r of rows)
      console.log(`| ${r.instances} | ${r.lag?.samples} | ${r.lag?.p50Ms} | ${r.lag?.maxMs} |`);
  }
  const stale = rows.some((r) => r.withOffset.stale > 0);
  const failed = rows.some((r) =>
    [r.saturated, r.steady, r.writes].some((s) =>
      s.perInstance.some((p) => p.errors + p.non2xx > 0),
    ),
  );
  for (const r of rows)
    for (const s of [r.saturated, r.steady, r.writes])
      for (const p of s.perInstance)
        if (p.firstFailure) console.log(`first failure: ${p.firstFailure}`);
  if (stale || failed) process.exitCode = 1;
}

await main();
