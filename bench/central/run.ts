/**
 * Central-engine bench (issue 5, "Speed"): loads generated facts through `applyBatch`, then
 * times authorize and a 10,000-id list through the service in-process, on embedded PGlite and
 * on the PostgreSQL server over loopback, with a breakdown of where each call's time goes
 * (store bookkeeping, planner compile, SQL execution) and the memory of the embedded store.
 * Prints Markdown.
 *
 *   npx tsx bench/central/run.ts                      # both engines, 1M facts
 *   npx tsx bench/central/run.ts --engine=pglite --facts=100000 --iterations=500   # smoke
 *
 * Flags: --engine=pglite|postgres|both --facts=1000000 --batch=10000 --seed=42
 *        --iterations=2000 --list-iterations=20 --analyze=no|yes|both (default both)
 *        --data-dir=/tmp/dir (PGlite in a data directory instead of in memory)
 * The server is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), schema
 * `bench_central`, dropped and recreated by each run.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import pg from "pg";
import {
  authorizeQuestion,
  type EvaluateQuery,
  evaluateQuestion,
  localStatement,
} from "../../src/api/questions.js";
import type { PolarService } from "../../src/api/service.js";
import { serviceOver } from "../../src/service/service.js";
import { storeBindings } from "../../src/store/bindings.js";
import { readShapes } from "../../src/store/facts.js";
import { type FactStore, openStore } from "../../src/store/store.js";
import { type AuthorizeQuestion, benchData, LIST_SIZE, LISTER } from "./data.js";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    return [match[1]!, match[2]!] as const;
  }),
);
const ENGINE = flags.get("engine") ?? "both";
const FACTS = Number(flags.get("facts") ?? 1_000_000);
const BATCH = Number(flags.get("batch") ?? 10_000);
const SEED = Number(flags.get("seed") ?? 42);
const ITERATIONS = Number(flags.get("iterations") ?? 2000);
const LIST_ITERATIONS = Number(flags.get("list-iterations") ?? 20);
const ANALYZE = flags.get("analyze") ?? "both";
/** PGlite on disk instead of in memory (the directory must not hold a store yet). */
const DATA_DIR = flags.get("data-dir");
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = "bench_central";
const POLICY = readFileSync(new URL("./policy.polar", import.meta.url), "utf8");

const micros = (start: bigint) => Number(process.hrtime.bigint() - start) / 1000;
function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
const ms = (us: number) => (us / 1000).toFixed(us < 10_000 ? 3 : 1);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

function memory(label: string): string {
  const m = process.memoryUsage();
  return `| ${label} | ${mb(m.rss)} | ${mb(m.heapUsed)} | ${mb(m.external)} | ${mb(m.arrayBuffers)} |`;
}

async function openEngine(engine: string): Promise<FactStore> {
  if (engine === "pglite") return openStore(DATA_DIR ? { dataDir: DATA_DIR } : {});
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${SCHEMA}`);
  return openStore({ databaseUrl: url.toString() });
}

const authorizeBody = (q: AuthorizeQuestion) => ({
  actor_type: "User",
  actor_id: q.user,
  action: q.action,
  resource_type: q.resourceType,
  resource_id: q.resourceId,
});
const listBody = {
  actor_type: "User",
  actor_id: LISTER,
  action: "read",
  resource_type: "Document",
  page_size: LIST_SIZE,
};

async function bench(engine: string): Promise<void> {
  console.log(`\n## ${engine}${engine === "pglite" && DATA_DIR ? " (data directory)" : ""}\n`);
  const memoryRows = [memory("before open")];
  const store = await openEngine(engine);
  const service: PolarService = serviceOver(store, {});
  await service.postPolicy({ src: POLICY, filename: "bench.polar" }, {});
  memoryRows.push(memory("store open, policy set"));

  const data = benchData({ total: FACTS, seed: SEED });
  const loadStart = process.hrtime.bigint();
  let loaded = 0;
  for (const batch of data.batches(BATCH)) {
    await store.applyBatch([{ inserts: batch }]);
    loaded += batch.length;
  }
  const loadMs = micros(loadStart) / 1000;
  memoryRows.push(memory(`${loaded.toLocaleString("en")} facts loaded`));
  const [counted] = await store.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM polar_fact",
  );
  const n = counted!.n;
  console.log(
    `Load: ${loaded.toLocaleString("en")} facts (${n.toLocaleString("en")} rows) in ${(loadMs / 1000).toFixed(1)} s through applyBatch, batches of ${BATCH.toLocaleString("en")} (${Math.round(loaded / (loadMs / 1000)).toLocaleString("en")} facts/s); size ${JSON.stringify(data.size)}`,
  );
  const [{ size } = { size: "?" }] = await store.db.query<{ size: string }>(
    "SELECT pg_size_pretty(pg_total_relation_size('polar_fact')) AS size",
  );
  console.log(`polar_fact with indexes: ${size}`);

  const questions = data.questions(100);
  const phases =
    ANALYZE === "both"
      ? ["as loaded", "after ANALYZE"]
      : [ANALYZE === "yes" ? "after ANALYZE" : "as loaded"];
  for (const phase of phases) {
    if (phase === "after ANALYZE") await store.db.query("ANALYZE polar_fact");
    console.log(`\n### ${engine}, ${phase}\n`);
    await measureAuthorize(store, service, questions);
    await measureList(store, service);
  }
  memoryRows.push(memory("after the questions"));
  console.log("\n| memory (this process) | RSS | heap used | external | array buffers |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of memoryRows) console.log(row);
  await service.close();
}

async function measureAuthorize(
  store: FactStore,
  service: PolarService,
  questions: readonly AuthorizeQuestion[],
): Promise<void> {
  const first = process.hrtime.bigint();
  await service.authorize(authorizeBody(questions[0]!));
  const coldUs = micros(first);
  for (let i = 0; i < 200; i++)
    await service.authorize(authorizeBody(questions[i % questions.length]!));
  const totals: number[] = [];
  let allowed = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const q = questions[i % questions.length]!;
    const start = process.hrtime.bigint();
    const reply = await service.authorize(authorizeBody(q));
    totals.push(micros(start));
    if (i < questions.length && (reply.body as { allowed: boolean }).allowed) allowed++;
  }
  // The same calls taken apart: the service's bookkeeping, compile with the values as
  // parameters, the prepared statement (as the service runs it), and the statement as text.
  const program = (await store.program())!;
  const bindings = storeBindings(await readShapes(store.db));
  const bookkeeping: number[] = [];
  const compile: number[] = [];
  const prepared: number[] = [];
  const execute: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const q = questions[i % questions.length]!;
    let start = process.hrtime.bigint();
    await store.program();
    await store.dataVersion();
    bookkeeping.push(micros(start));
    start = process.hrtime.bigint();
    const question = authorizeQuestion(program, { ...authorizeBody(q), context_facts: [] });
    const { sql, parameters } = localStatement(program, bindings, question, {
      writing: "parameters",
    });
    compile.push(micros(start));
    start = process.hrtime.bigint();
    await store.db.prepared(sql, [...parameters]);
    prepared.push(micros(start));
    const literal = localStatement(program, bindings, question).sql;
    start = process.hrtime.bigint();
    await store.db.query(literal);
    execute.push(micros(start));
  }
  const firstSql = localStatement(
    program,
    bindings,
    authorizeQuestion(program, { ...authorizeBody(questions[0]!), context_facts: [] }),
  ).sql;
  console.log(
    `authorize: ${ITERATIONS} calls over ${questions.length} questions (${allowed} allowed), first call ${ms(coldUs)} ms`,
  );
  console.log("\n| authorize | p50 ms | p90 ms | p99 ms |");
  console.log("|---|---:|---:|---:|");
  for (const [label, values] of [
    ["service.authorize (total)", totals],
    ["  store bookkeeping (program + dataVersion)", bookkeeping],
    ["  planner compile (authorizeQuery, values as parameters)", compile],
    ["  prepared statement (EXECUTE, as the service runs it)", prepared],
    ["  for comparison: the statement with literals, as text", execute],
  ] as const) {
    console.log(
      `| ${label} | ${ms(percentile(values, 0.5))} | ${ms(percentile(values, 0.9))} | ${ms(percentile(values, 0.99))} |`,
    );
  }
  console.log(`\n${await explainSummary(store, firstSql)}`);
}

/** Planning and execution time of one statement, and which indexes its plan uses. */
async function explainSummary(store: FactStore, sql: string): Promise<string> {
  const rows = await store.db.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`);
  const lines = rows.map((row) => Object.values(row)[0]!);
  const times = lines
    .filter((line) => /^(Planning|Execution) Time|^\s*Timing: .*Total/.test(line))
    .map((line) => line.trim().replace(/^Timing:/, "JIT"))
    .join("; ");
  const scans = new Map<string, number>();
  for (const line of lines) {
    const match =
      /(Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan)(?: using (\S+))? on/.exec(line);
    if (match) {
      const key = `${match[1]}${match[2] ? ` ${match[2]}` : ""}`;
      scans.set(key, (scans.get(key) ?? 0) + 1);
    }
  }
  const used = [...scans].map(([scan, count]) => `${scan} ×${count}`).join(", ");
  return `EXPLAIN ANALYZE of the first question: ${times}; ${lines.length} plan lines; ${used}`;
}

async function measureList(store: FactStore, service: PolarService): Promise<void> {
  const totals: number[] = [];
  let count = 0;
  for (let i = 0; i < LIST_ITERATIONS + 2; i++) {
    const start = process.hrtime.bigint();
    const reply = (await service.list(listBody)).body as {
      results: string[];
      next_page_token: unknown;
    };
    if (i >= 2) totals.push(micros(start));
    count = reply.results.length;
    if (reply.next_page_token !== undefined)
      throw new Error("the list fixture needs more than one page");
  }
  const program = (await store.program())!;
  const bindings = storeBindings(await readShapes(store.db));
  const compile: number[] = [];
  const execute: number[] = [];
  let sql = "";
  for (let i = 0; i < LIST_ITERATIONS; i++) {
    let start = process.hrtime.bigint();
    const query: EvaluateQuery = {
      predicate: ["allow", ["actor", "action", "resource"]],
      calls: [],
      constraints: {
        actor: { type: "User", ids: [LISTER] },
        action: { type: "String", ids: ["read"] },
        resource: { type: "Document", ids: null },
      },
      context_facts: [],
    };
    const mode = { mode: "select", query_vars_to_output_column_names: { resource: "c0" } } as const;
    sql = localStatement(program, bindings, evaluateQuestion(program, bindings, query, mode)).sql;
    compile.push(micros(start));
    start = process.hrtime.bigint();
    await store.db.query(
      `SELECT id FROM (SELECT DISTINCT COALESCE(CAST(x.c0 AS text), '*') AS id FROM (${sql}) AS x) AS p ORDER BY id COLLATE "C" LIMIT ${LIST_SIZE + 1}`,
    );
    execute.push(micros(start));
  }
  const page = `SELECT id FROM (SELECT DISTINCT COALESCE(CAST(x.c0 AS text), '*') AS id FROM (${sql}) AS x) AS p ORDER BY id COLLATE "C" LIMIT ${LIST_SIZE + 1}`;
  console.log(`\nlist ${await explainSummary(store, page)}`);
  console.log(
    `\nlist read Document for \`${LISTER}\`: ${count.toLocaleString("en")} ids, ${LIST_ITERATIONS} calls`,
  );
  console.log("\n| list | p50 ms | p90 ms | max ms |");
  console.log("|---|---:|---:|---:|");
  for (const [label, values] of [
    ["service.list (total)", totals],
    ["  planner compile (select mode)", compile],
    ["  SQL execution (page query)", execute],
  ] as const) {
    console.log(
      `| ${label} | ${ms(percentile(values, 0.5))} | ${ms(percentile(values, 0.9))} | ${ms(percentile(values, 1))} |`,
    );
  }
}

console.log(`# Central engine bench — ${new Date().toISOString()}`);
console.log(
  `node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}; ${FACTS.toLocaleString("en")} facts, seed ${SEED}`,
);
for (const engine of ENGINE === "both" ? ["pglite", "postgres"] : [ENGINE]) await bench(engine);
