/**
 * One PostgreSQL as the fact table grows (issue 15, item 3): the recursive dataset
 * (bench/http/recursive.ts) at multiples of its default scale (×1 ≈ 99k facts: 10,000 users,
 * 20 organizations, 3,000 folders, 30,000 documents; every count is multiplied), each loaded
 * into a fresh schema and served by one `polar-sql serve` process. Per size: load time, table
 * size, authorize latency one request at a time, saturated authorize throughput (50
 * connections) with the cores each role used, and list latency one request at a time.
 *
 *   npx tsx bench/scale-out/curve.ts                      # ×0.1, ×1, ×10 (~10k, 99k, 990k facts)
 *   npx tsx bench/scale-out/curve.ts --sizes=0.1,1 --quick
 *   npx tsx bench/scale-out/curve.ts --sizes=30            # ~3M facts
 *
 * The store is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), schema
 * bench_scale_curve, dropped and recreated per size and dropped at the end.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import {
  RECURSIVE_POLICY_FILE,
  RECURSIVE_SCALES,
  type RecursiveScale,
  recursiveFacts,
  recursiveRequests,
} from "../http/recursive.js";
import {
  dropSchema,
  freshSchema,
  type Loaded,
  loadStore,
  machineLine,
  rolesOf,
  startInstance,
  stopInstances,
} from "./instances.js";
import {
  coreCells,
  oneAtATime,
  perRequestCells,
  type Sequential,
  type Spread,
  saturated,
  warmUp,
} from "./load-phases.js";

const flag = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = process.argv.includes("--quick");
const SIZES = (flag("sizes") ?? "0.1,1,10").split(",").map(Number);
const SECONDS = quick ? 3 : 8;
const SCHEMA = "bench_scale_curve";

function scaled(m: number): RecursiveScale {
  const d = RECURSIVE_SCALES.default;
  return {
    users: Math.round(d.users * m),
    organizations: Math.max(1, Math.round(d.organizations * m)),
    folders: Math.round(d.folders * m),
    documents: Math.round(d.documents * m),
  };
}

interface Point {
  readonly size: number;
  readonly loaded: Loaded;
  readonly one: Sequential;
  readonly full: Spread;
  readonly list: Sequential;
  readonly listIds: number;
  readonly load: string;
}

async function listSize(url: string, apiKey: string, body: string): Promise<number> {
  const answer = await fetch(`${url}/api/list`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body,
  });
  return ((await answer.json()) as { results: unknown[] }).results.length;
}

async function point(size: number, apiKey: string): Promise<Point> {
  const scale = scaled(size);
  const url = await freshSchema(SCHEMA);
  const loaded = await loadStore(url, RECURSIVE_POLICY_FILE, recursiveFacts(scale));
  const instance = await startInstance(apiKey, url, RECURSIVE_POLICY_FILE);
  try {
    const mix = recursiveRequests(scale, 100_000, 3);
    await warmUp([instance.url], apiKey, mix.authorize.slice(90_000), quick ? 5000 : 15_000);
    const load = loadavg()[0]!.toFixed(1);
    const one = await oneAtATime(instance.url, apiKey, mix.authorize.slice(0, quick ? 1000 : 3000));
    const full = await saturated({
      urls: [instance.url],
      apiKey,
      requests: mix.authorize.slice(10_000, 90_000),
      seconds: SECONDS,
      connections: 50,
      roles: rolesOf([instance]),
    });
    const lists = mix.list.slice(0, quick ? 60 : 220);
    await oneAtATime(instance.url, apiKey, lists.slice(0, 20));
    const list = await oneAtATime(instance.url, apiKey, lists.slice(20));
    let ids = 0;
    for (const r of lists.slice(0, 10)) ids += await listSize(instance.url, apiKey, r.body);
    return {
      size,
      loaded,
      one,
      full,
      list,
      listIds: Math.round(ids / 10),
      load,
    };
  } finally {
    await stopInstances([instance]);
  }
}

async function main(): Promise<void> {
  console.log(`# One PostgreSQL as facts grow\n\n${machineLine()}\n`);
  const apiKey = randomBytes(16).toString("hex");
  const points: Point[] = [];
  for (const size of SIZES) points.push(await point(size, apiKey));
  await dropSchema(SCHEMA);
  console.log(
    "| scale | facts | load s (facts/s) | polar_fact + indexes | authorize 1 conn p50 / p99 ms | authorize saturated req/s (p50 / p99 ms) | cores used, saturated | CPU per request | list p50 / p99 ms (ids) | load avg |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |");
  for (const p of points) {
    const [s] = p.full.perInstance;
    const rate = Math.round(p.loaded.facts / p.loaded.seconds).toLocaleString("en");
    console.log(
      `| ×${p.size} | ${p.loaded.facts.toLocaleString("en")} | ${p.loaded.seconds.toFixed(1)} (${rate}) | ${p.loaded.tableSize} | ${p.one.p50Ms} / ${p.one.p99Ms} | ${p.full.requestsPerSecond.toLocaleString("en")} (${s!.p50Ms} / ${s!.p99Ms}) | ${coreCells(p.full.cores)} | ${perRequestCells(p.full)} | ${p.list.p50Ms} / ${p.list.p99Ms} (${p.listIds}) | ${p.load} |`,
    );
  }
  const failures = points.flatMap((p) => p.full.perInstance.filter((s) => s.errors + s.non2xx > 0));
  for (const s of failures) console.log(`failure: ${s.firstFailure ?? `${s.errors} errors`}`);
  if (failures.length > 0) process.exitCode = 1;
}

await main();
