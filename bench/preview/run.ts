/**
 * Preview bench (issue 30): a store of 1M facts (users, organizations, repositories, roles on
 * both, public repositories), the quickstart policy, and a one-line change of it; times the
 * first page of `previewPolicyChange` (its reply carries the counts) and a later page.
 * Prints Markdown.
 *
 *   npx tsx bench/preview/run.ts                       # embedded SQLite in memory, 1M facts
 *   npx tsx bench/preview/run.ts --engine=pglite       # PGlite in memory
 *   npx tsx bench/preview/run.ts --engine=postgres     # DATABASE_URL, schema bench_preview
 *   npx tsx bench/preview/run.ts --facts=100000        # smoke
 *
 * Flags: --engine=sqlite|pglite|postgres --facts=1000000 --seed=42 --page-size=100 --runs=3
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import pg from "pg";
import { checkPolicy } from "../../src/check/check.js";
import type { Program } from "../../src/check/program.js";
import type { GroundFact } from "../../src/core/value.js";
import { previewPolicyChange } from "../../src/preview/preview.js";
import { previewStoreOf } from "../../src/preview/store-view.js";
import { type FactStore, openStore } from "../../src/store/store.js";
import { seededRandom } from "../central/data.js";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    return [match[1]!, match[2]!] as const;
  }),
);
const ENGINE = flags.get("engine") ?? "sqlite";
const FACTS = Number(flags.get("facts") ?? 1_000_000);
const SEED = Number(flags.get("seed") ?? 42);
const PAGE_SIZE = Number(flags.get("page-size") ?? 100);
const RUNS = Number(flags.get("runs") ?? 3);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = "bench_preview";

const POLICY = readFileSync(
  new URL("../../examples/quickstart/policy.polar", import.meta.url),
  "utf8",
);
/** The one-line change: `delete` needs an owner of the organization, not any maintainer. */
const CHANGED_LINE = ['"delete" if "maintainer";', '"delete" if "owner" on "organization";'];
const CANDIDATE = POLICY.replace(CHANGED_LINE[0]!, CHANGED_LINE[1]!);

/**
 * `total` facts: 10% repositories' organizations, 20% organization roles (10% owners), 5%
 * public repositories, the rest repository roles (a third maintainers). 10 repositories and
 * about 20 members per organization.
 */
function* factBatches(total: number, seed: number, size: number): Iterable<GroundFact[]> {
  const random = seededRandom(seed);
  const repos = Math.floor(total / 10);
  const orgs = Math.max(1, Math.floor(repos / 10));
  const users = Math.floor(total / 10);
  const pick = (n: number) => Math.floor(random() * n);
  const v = (type: string, id: string) => ({ type, id });
  const kinds: [number, (i: number) => GroundFact][] = [
    [
      repos,
      (i) =>
        fact(
          "has_relation",
          v("Repository", `r${i}`),
          v("String", "organization"),
          v("Organization", `o${i % orgs}`),
        ),
    ],
    [
      Math.floor(total / 5),
      () =>
        fact(
          "has_role",
          v("User", `u${pick(users)}`),
          v("String", random() < 0.1 ? "owner" : "member"),
          v("Organization", `o${pick(orgs)}`),
        ),
    ],
    [
      Math.floor(total / 20),
      (i) => fact("is_public", v("Repository", `r${i * 2}`), v("Boolean", "true")),
    ],
  ];
  const rest = total - kinds.reduce((sum, [count]) => sum + count, 0);
  kinds.push([
    rest,
    () =>
      fact(
        "has_role",
        v("User", `u${pick(users)}`),
        v("String", random() < 1 / 3 ? "maintainer" : "reader"),
        v("Repository", `r${pick(repos)}`),
      ),
  ]);
  let batch: GroundFact[] = [];
  for (const [count, make] of kinds) {
    for (let i = 0; i < count; i++) {
      batch.push(make(i));
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

function fact(predicate: string, ...args: { type: string; id: string }[]): GroundFact {
  return { predicate, args };
}

function program(text: string): Program {
  const checked = checkPolicy([{ name: "policy.polar", text }]);
  if (!checked.ok) throw new Error("the bench policy does not check");
  return checked.program;
}

async function openBenchStore(): Promise<FactStore> {
  if (ENGINE === "sqlite" || ENGINE === "pglite") return openStore({ embedded: ENGINE });
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  await client.end();
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${SCHEMA}`);
  return openStore({ databaseUrl: url.toString(), follow: false });
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

async function main(): Promise<void> {
  const store = await openBenchStore();
  const loading = performance.now();
  let stored = 0;
  for (const batch of factBatches(FACTS, SEED, 10_000)) {
    await store.applyBatch([{ inserts: batch }]);
    stored += batch.length;
  }
  const loadSeconds = (performance.now() - loading) / 1000;
  if (store.db.engine === "postgres" && ENGINE === "postgres") await store.db.query("ANALYZE");
  const view = await previewStoreOf(store);
  const request = {
    active: program(POLICY),
    candidate: program(CANDIDATE),
    pageSize: PAGE_SIZE,
    limits: { timeMs: 600_000, rows: 10_000_000 },
  };
  const first: number[] = [];
  const next: number[] = [];
  // This process's CPU time: SQLite and PGlite run in it, so it is what the request costs
  // without the other processes of a shared machine.
  const firstCpu: number[] = [];
  const nextCpu: number[] = [];
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let counts = {};
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const startedCpu = process.cpuUsage();
    const page = await previewPolicyChange(view, request);
    first.push(performance.now() - started);
    firstCpu.push(cpuMs(startedCpu));
    counts = page.counts;
    const again = performance.now();
    const againCpu = process.cpuUsage();
    await previewPolicyChange(view, { ...request, pageToken: page.next_page_token! });
    next.push(performance.now() - again);
    nextCpu.push(cpuMs(againCpu));
  }
  await store.close();
  const list = (values: number[]) => values.map((t) => t.toFixed(0)).join(", ");
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`## Preview of a one-line change (${ENGINE}, ${stored.toLocaleString("en")} facts)

change: \`${CHANGED_LINE[0]}\` → \`${CHANGED_LINE[1]}\`; load ${loadSeconds.toFixed(1)} s; page size ${PAGE_SIZE}; ${RUNS} runs; load average ${load()}

| | median wall | runs, wall (ms) | runs, this process's CPU (ms) |
|---|---:|---|---|
| first page, with the counts | ${median(first).toFixed(0)} ms | ${list(first)} | ${list(firstCpu)} |
| second page (token), with the counts | ${median(next).toFixed(0)} ms | ${list(next)} | ${list(nextCpu)} |

counts: \`${JSON.stringify(counts)}\`
`);
}

await main();
