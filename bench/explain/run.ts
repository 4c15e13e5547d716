/**
 * Explain bench (issue 16, "Speed"): the central bench's 1M facts (bench/central/data.ts:
 * folder trees up to 8 deep, roles inherited down them) in a fact store, then `/explain`
 * through the service in-process, open loop: calls are scheduled at a fixed interval and each
 * latency runs from its scheduled time, for allowed and for denied questions apart. Prints
 * Markdown.
 *
 *   npx tsx bench/explain/run.ts                      # PGlite in memory, 1M facts
 *   npx tsx bench/explain/run.ts --engine=postgres    # DATABASE_URL, schema bench_explain
 *   npx tsx bench/explain/run.ts --facts=100000 --calls=100   # smoke
 *
 * Flags: --engine=pglite|postgres --facts=1000000 --batch=10000 --seed=42 --questions=300
 *        --calls=300 (per answer) --interval-allowed=50 --interval-denied=200 (ms)
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import pg from "pg";
import type { PolarService } from "../../src/api/service.js";
import { serviceOver } from "../../src/service/service.js";
import type { SqlExecutor } from "../../src/store/executor.js";
import { type FactStore, openStore } from "../../src/store/store.js";
import { type AuthorizeQuestion, benchData } from "../central/data.js";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    return [match[1]!, match[2]!] as const;
  }),
);
const ENGINE = flags.get("engine") ?? "pglite";
const FACTS = Number(flags.get("facts") ?? 1_000_000);
const BATCH = Number(flags.get("batch") ?? 10_000);
const SEED = Number(flags.get("seed") ?? 42);
const QUESTIONS = Number(flags.get("questions") ?? 300);
const CALLS = Number(flags.get("calls") ?? 300);
const INTERVAL = {
  allowed: Number(flags.get("interval-allowed") ?? 50),
  denied: Number(flags.get("interval-denied") ?? 200),
};
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = "bench_explain";
const POLICY = readFileSync(new URL("../central/policy.polar", import.meta.url), "utf8");

const now = () => performance.now();
function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function openEngine(): Promise<FactStore> {
  if (ENGINE === "pglite") return openStore({});
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.end();
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${SCHEMA}`);
  return openStore({ databaseUrl: url.toString() });
}

const body = (q: AuthorizeQuestion) => ({
  actor_type: "User",
  actor_id: q.user,
  action: q.action,
  resource_type: q.resourceType,
  resource_id: q.resourceId,
});

interface Tree {
  readonly children: readonly Tree[];
}
const size = (tree: Tree): number => 1 + tree.children.reduce((n, c) => n + size(c), 0);

async function main(): Promise<void> {
  console.log(`# Explain bench: ${ENGINE}, ${FACTS.toLocaleString("en")} facts`);
  console.log(`\nload average at start: ${load()}`);
  const store = await openEngine();
  // Counts the statements each explain sends to the fact table.
  let statements = 0;
  let statementMs = 0;
  const timed = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    if (!/\bpolar_fact\b/.test(sql)) return run();
    statements++;
    const start = now();
    try {
      return await run();
    } finally {
      statementMs += now() - start;
    }
  };
  const db: SqlExecutor = {
    ...store.db,
    query: (sql, params) => timed(sql, () => store.db.query(sql, params)),
    prepared: (sql, params) => timed(sql, () => store.db.prepared(sql, params)),
  };
  const service: PolarService = serviceOver({ ...store, db }, {});
  await service.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
  const data = benchData({ total: FACTS, seed: SEED });
  const loadStart = now();
  for (const batch of data.batches(BATCH)) await store.applyBatch([{ inserts: batch }]);
  await store.db.query("ANALYZE polar_fact");
  console.log(`loaded in ${((now() - loadStart) / 1000).toFixed(1)} s; load average ${load()}`);

  const questions = data.questions(QUESTIONS);
  const byAnswer: Record<"allowed" | "denied", AuthorizeQuestion[]> = { allowed: [], denied: [] };
  const authorizeMs: number[] = [];
  for (const q of questions) {
    const start = now();
    const reply = await service.authorize(body(q));
    authorizeMs.push(now() - start);
    byAnswer[(reply.body as { allowed: boolean }).allowed ? "allowed" : "denied"].push(q);
  }
  console.log(
    `questions: ${questions.length} (seed ${SEED + 1}): ${byAnswer.allowed.length} allowed, ${byAnswer.denied.length} denied; authorize p50 ${percentile(authorizeMs, 0.5).toFixed(2)} ms`,
  );
  // Warm-up: every question once (plans, JIT).
  for (const q of questions) await service.explain(body(q));

  console.log(
    "\n| explain | calls | interval | p50 ms | p90 ms | p99 ms | max ms | service p50 ms | statements/call (ms) | nodes p50 (max) | load average |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const answer of ["allowed", "denied"] as const) {
    const pool = byAnswer[answer];
    if (pool.length === 0) continue;
    const latencies: number[] = [];
    const serviceMs: number[] = [];
    const nodes: number[] = [];
    const before = statements;
    const beforeMs = statementMs;
    const started = now();
    for (let i = 0; i < CALLS; i++) {
      const scheduled = started + i * INTERVAL[answer];
      await sleep(scheduled - now());
      const begun = now();
      const reply = (await service.explain(body(pool[i % pool.length]!))).body as {
        allowed: boolean;
        explanation: Tree;
      };
      latencies.push(now() - scheduled);
      serviceMs.push(now() - begun);
      if (reply.allowed !== (answer === "allowed")) throw new Error("explain disagrees");
      nodes.push(size(reply.explanation));
    }
    const perCall = `${((statements - before) / CALLS).toFixed(1)} (${((statementMs - beforeMs) / CALLS).toFixed(1)})`;
    const cells = [0.5, 0.9, 0.99, 1].map((q) => percentile(latencies, q).toFixed(1));
    console.log(
      `| ${answer} | ${CALLS} | ${INTERVAL[answer]} ms | ${cells.join(" | ")} | ${percentile(serviceMs, 0.5).toFixed(1)} | ${perCall} | ${percentile(nodes, 0.5)} (${Math.max(...nodes)}) | ${load()} |`,
    );
  }
  await service.close();
}

await main();
