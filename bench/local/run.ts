/**
 * Local-check benchmark (issue 4, "Speed"): compile latency of the emitted SQL with a warm
 * policy, execution of the emitted authorize_query and list_query against hand-written optimal
 * queries for the same questions (interleaved, one run, as ratios), answer agreement, and
 * EXPLAIN (ANALYZE, BUFFERS) checks for sequential scans. Prints a Markdown summary.
 *
 *   npx tsx bench/local/generate.ts          # once; ~20 s, skipped when the data is there
 *   npx tsx bench/local/run.ts               # --repetitions=200 --iterations=20000 --seed=42
 *   npm run bench:local                      # both
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type pg from "pg";
import { parseDocument, Scalar, type YAMLMap } from "yaml";
import { type LocalCompiler, loadCompiler } from "./compiler.js";
import { connect, readConfig, seededRandom } from "./config.js";
import { explain, largeTables, type PlanSummary } from "./explain.js";
import { describeCounts, ensureBenchData } from "./generate.js";
import {
  type AuthorizeQuestion,
  handAuthorizeSql,
  handListSql,
  type ListQuestion,
  wrapListFragment,
} from "./handwritten.js";
import { interleave, microsSince, repetitionsWithin, timeQuery } from "./measure.js";
import { probeShape, shapeOf } from "./probe-shape.js";
import { drawQuestions } from "./questions.js";
import { formatMicros, type QuestionResult, ratioLine, summarize, summaryTable } from "./report.js";

const AUTHORIZE_TARGET = 1.5;
const LIST_TARGET = 2;
/** Time allowed per question for its repetitions (both statements). */
const QUESTION_BUDGET_MS = 20_000;

const config = readConfig(process.argv.slice(2));

/**
 * The bench's bindings: without their `keys` section (every binding scanned on its own) for
 * `--keys=no`; with every table named in the bench schema unless `--qualified=no`, so that
 * list rules can be written on the caller's rows (docs/local-authorization.md, "keys").
 */
function benchBindings(text: string): string {
  const document = parseDocument(text);
  if (!config.keys) document.delete("keys");
  if (!config.qualified) return document.toString();
  const qualify = (query: string) => query.replace(/\bFROM (\w+)/g, `FROM ${config.schema}.$1`);
  const facts = document.get("facts") as YAMLMap<Scalar, YAMLMap>;
  for (const entry of facts.items)
    entry.value?.set("query", qualify(String(entry.value.get("query"))));
  const keys = document.get("keys") as YAMLMap<Scalar, unknown> | undefined;
  for (const entry of keys?.items ?? [])
    entry.key = new Scalar(`${config.schema}.${entry.key.value}`);
  return document.toString();
}
/** The caller's table and column of the list questions. */
const LIST_TABLE = config.qualified ? `${config.schema}.documents` : "documents";
const LIST_COLUMN = `${LIST_TABLE}.id`;
const counts = await ensureBenchData(config);
const policy = readFileSync(new URL("./policy.polar", import.meta.url), "utf8");
const bindingsFile = readFileSync(new URL("./bindings.yaml", import.meta.url), "utf8");
const bindings = benchBindings(bindingsFile);
const compiler = await loadCompiler(policy, bindings);
const client = await connect(config);
await client.query("SET statement_timeout = '300s'");
if (config.jit === "off") await client.query("SET jit = off");
const jit = (await client.query("SHOW jit")).rows[0].jit;

console.log(`\n# Local check bench — ${new Date().toISOString()}`);
console.log(`node ${process.version}; ${(await client.query("SELECT version()")).rows[0].version}`);
console.log(
  `${cpus().length} cores, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")} at start`,
);
console.log(
  `schema \`${config.schema}\`, seed ${config.seed}, scale ${config.scale}, jit ${jit}, ${config.repetitions} repetitions`,
);
console.log(describeCounts(counts));
if (!compiler) console.log("\nsrc/api/local.ts not found: hand-written baselines only");

const { authorize, list } = await drawQuestions(client, seededRandom(config.seed + 1), 3);
console.log(`\n${authorize.length} authorize questions, ${list.length} list questions`);

// Shapes the planner cannot compile (error, endless loop, memory) are reported and skipped.
const failedShapes = new Map<string, string>();
if (compiler) {
  const shapes = new Set([...authorize, ...list].map((sample) => shapeOf(sample.question)));
  for (const shape of shapes) {
    const failure = probeShape(shape, 45_000);
    if (failure) failedShapes.set(shape, failure);
  }
  for (const [shape, failure] of failedShapes) console.log(`COMPILE FAILED ${shape}: ${failure}`);
}
const compiles = (question: AuthorizeQuestion | ListQuestion) =>
  compiler !== undefined && !failedShapes.has(shapeOf(question));

if (compiler) {
  console.log("\n## Compile latency (in-process, warm policy)\n");
  printCompileLatency(compiler);
}

console.log("\n## Execution: authorize (round trip, simple protocol, interleaved)\n");
const authorizeResults: QuestionResult[] = [];
for (const sample of authorize) {
  const hand = handAuthorizeSql(sample.question);
  const emitted = compiles(sample.question) ? compiler?.authorize(sample.question) : undefined;
  authorizeResults.push(
    await compare(client, sample.category, hand, emitted, config.repetitions, async (sql) => {
      const { rows } = await client.query(sql);
      if (rows.length !== 1) throw new Error(`authorize returned ${rows.length} rows`);
      return String(rows[0].allowed);
    }),
  );
}
console.log(summaryTable(authorizeResults, compiler !== undefined));

console.log("\n## Execution: list Document (rows as the caller uses them)\n");
const listResults: QuestionResult[] = [];
const listRepetitions = Math.max(20, Math.round(config.repetitions / 4));
for (const sample of list) {
  const hand = handListSql(sample.question);
  const fragment = compiles(sample.question)
    ? compiler?.list(sample.question, LIST_COLUMN)
    : undefined;
  const emitted = fragment === undefined ? undefined : wrapListFragment(fragment, LIST_TABLE);
  listResults.push(
    await compare(client, sample.category, hand, emitted, listRepetitions, async (sql) => {
      const { rows } = await client.query(sql);
      const ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
      return `${ids.length} rows:${ids.join(",")}`;
    }),
  );
}
console.log(summaryTable(listResults, compiler !== undefined));

if (compiler) {
  console.log("");
  console.log(
    ratioLine("authorize", summarize(authorizeResults, AUTHORIZE_TARGET), AUTHORIZE_TARGET),
  );
  console.log(ratioLine("list", summarize(listResults, LIST_TARGET), LIST_TARGET));
  const disagreements = [...authorizeResults, ...listResults].filter((r) => !r.agree).length;
  console.log(
    `${disagreements === 0 ? "PASS" : "FAIL"} answers agree: ${disagreements} disagreements`,
  );
}

await printExplain(client, compiler);
await client.end();

/**
 * Times `hand` (and `emitted` interleaved with it) and checks that both give the same answer;
 * `answer` renders a statement's result for comparison.
 */
async function compare(
  db: pg.Client,
  category: string,
  hand: string,
  emitted: string | undefined,
  repetitions: number,
  answer: (sql: string) => Promise<string>,
): Promise<QuestionResult> {
  const handAnswer = await answer(hand);
  const shown = handAnswer.replace(/:.*$/, "");
  if (emitted === undefined) {
    await answer(hand);
    const timings: number[] = [];
    for (let i = 0; i < repetitions; i++) timings.push(await timeQuery(db, hand));
    return { category, hand: timings, answer: shown };
  }
  let emittedAnswer: string;
  try {
    emittedAnswer = await answer(emitted);
  } catch (error) {
    console.log(
      `emitted SQL failed for \`${category}\`: ${(error as Error).message}\n${emitted}\n`,
    );
    throw error;
  }
  const agree = emittedAnswer === handAnswer;
  if (!agree)
    console.log(
      `DISAGREE \`${category}\`: hand ${shown}, emitted ${emittedAnswer.replace(/:.*$/, "")}`,
    );
  // a slow emitted statement gets fewer repetitions so that the run stays within minutes
  const oneRun = (await timeQuery(db, hand)) + (await timeQuery(db, emitted));
  const fitting = repetitionsWithin(repetitions, oneRun, QUESTION_BUDGET_MS);
  if (fitting < repetitions) console.log(`\`${category}\`: ${fitting} repetitions (slow)`);
  const warmUp = fitting < repetitions ? 1 : 5;
  const [handTimes, emittedTimes] = await interleave(db, hand, emitted, fitting, warmUp);
  return { category, hand: handTimes, emitted: emittedTimes, agree, answer: shown };
}

function printCompileLatency(local: LocalCompiler): void {
  const authorizeOk = authorize.filter((sample) => compiles(sample.question));
  const listOk = list.filter((sample) => compiles(sample.question));
  if (authorizeOk.length === 0 || listOk.length === 0) {
    console.log("skipped: the planner compiles no authorize or no list question");
    return;
  }
  const compileOnce = (i: number) => {
    if (i % 4 === 3) local.list(listOk[i % listOk.length]!.question, LIST_COLUMN);
    else local.authorize(authorizeOk[i % authorizeOk.length]!.question);
  };
  console.log(
    `${authorizeOk.length}/${authorize.length} authorize and ${listOk.length}/${list.length} list questions compile`,
  );
  const coldStart = process.hrtime.bigint();
  local.authorize(authorizeOk[0]!.question);
  const cold = microsSince(coldStart);
  for (let i = 0; i < 1000; i++) compileOnce(i);
  const authorizeTimes: number[] = [];
  const listTimes: number[] = [];
  for (let i = 0; i < config.compileIterations; i++) {
    const start = process.hrtime.bigint();
    compileOnce(i);
    (i % 4 === 3 ? listTimes : authorizeTimes).push(microsSince(start));
  }
  const verdict = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]! <= 100 ? "PASS" : "FAIL";
  };
  console.log(
    `first call (policy and bindings cold): ${Math.round(cold).toLocaleString("en-US")} µs`,
  );
  console.log(
    `${verdict(authorizeTimes)} authorize_query, ${authorizeTimes.length} calls: ${formatMicros(authorizeTimes)} (target p50 ≤ 100 µs)`,
  );
  console.log(
    `${verdict(listTimes)} list_query, ${listTimes.length} calls: ${formatMicros(listTimes)} (target p50 ≤ 100 µs)`,
  );
}

/** Plans of every authorize question (emitted, or hand-written without a compiler). */
async function printExplain(db: pg.Client, local: LocalCompiler | undefined): Promise<void> {
  console.log("\n## EXPLAIN (ANALYZE, BUFFERS)\n");
  const large = await largeTables(db);
  const label = local ? "emitted" : "hand-written";
  const plans: { category: string; plan: PlanSummary; hand: PlanSummary }[] = [];
  for (const sample of authorize) {
    if (local && !compiles(sample.question)) continue;
    const handSql = handAuthorizeSql(sample.question);
    const sql = local ? local.authorize(sample.question) : handSql;
    plans.push({
      category: sample.category,
      plan: await explain(db, sql, large),
      hand: await explain(db, handSql, large),
    });
  }
  if (plans.length === 0) console.log("no emitted authorize plan to check");
  else printAuthorizePlans(label, plans, large);
  for (const sample of list) {
    if (local && !compiles(sample.question)) continue;
    const handSql = handListSql(sample.question);
    const sql = local
      ? wrapListFragment(local.list(sample.question, LIST_COLUMN), LIST_TABLE)
      : handSql;
    const plan = await explain(db, sql, large);
    const seq = plan.seqScans.length ? `seq scans: ${plan.seqScans.join(", ")}` : "no seq scan";
    console.log(`${label} list, \`${sample.category}\`: ${planRow(plan)}, ${seq}`);
    if (local) console.log(`  hand-written: ${planRow(await explain(db, handSql, large))}`);
  }
}

function planRow(p: PlanSummary): string {
  const jitText = p.jitMs > 0 ? ` (JIT ${p.jitMs.toFixed(1)} ms)` : "";
  return (
    `cost ${Math.round(p.cost).toLocaleString("en-US")}, ${p.sharedBuffers} buffers, ` +
    `${p.rowsScanned} rows scanned, planning ${p.planningMs.toFixed(3)} ms, ` +
    `execution ${p.executionMs.toFixed(3)} ms${jitText}`
  );
}

function printAuthorizePlans(
  label: string,
  plans: readonly { category: string; plan: PlanSummary; hand: PlanSummary }[],
  large: ReadonlySet<string>,
): void {
  const shown =
    plans.find((p) => p.category.startsWith("Document depth 8, read: denied")) ?? plans[0]!;
  console.log(`${label} authorize_query, \`${shown.category}\`:\n`);
  console.log("```");
  console.log(excerpt(shown.plan.text, 60));
  console.log("```");
  console.log(`${label}: ${planRow(shown.plan)}; hand-written: ${planRow(shown.hand)}`);
  const buffers = plans.map((p) => p.plan.sharedBuffers);
  const handBuffers = plans.map((p) => p.hand.sharedBuffers);
  console.log(
    `buffers over all ${plans.length} authorize questions: ${label} max ${Math.max(...buffers)}, hand-written max ${Math.max(...handBuffers)}`,
  );
  const jitted = plans.filter((p) => p.plan.jitMs > 0).length;
  console.log(`JIT compiled ${jitted} of ${plans.length} ${label} authorize plans`);
  const offenders = plans.filter((p) => p.plan.seqScans.length > 0);
  for (const p of offenders)
    console.log(`  seq scan in \`${p.category}\`: ${p.plan.seqScans.join(", ")}`);
  console.log(
    `${offenders.length === 0 ? "PASS" : "FAIL"} no sequential scan of a large table (${[...large].join(", ")}) in ${plans.length} ${label} authorize plans`,
  );
}

function excerpt(text: string, lines: number): string {
  const all = text.split("\n");
  return all.length <= lines
    ? text
    : [...all.slice(0, lines), `… (${all.length - lines} more lines)`].join("\n");
}
