/**
 * Recursion over central facts (issue 20, item 2): a `managed_by` chain held by the service,
 * reports in the caller's database. At the data shape of Oso's sample application (10,000
 * users, 60,000 reports, 9,999 central `manages` facts: a tree where every manager has three
 * reports), prints per level of the tree the size of the `list_query` fragment, the time to
 * compile it, and the time PostgreSQL takes for `SELECT count(*) FROM reports WHERE <fragment>`
 * next to two hand-written queries given the same ids: the direct count
 * (`WHERE owner_id = any('{…}')`) and the same filter on the caller's column as `list_query`
 * has to write it (`WHERE r.id IN (SELECT id FROM reports WHERE owner_id = any('{…}'))`).
 *
 *   npx tsx bench/central-recursion/run.ts                  # 10,000 users, 60,000 reports
 *   npx tsx bench/central-recursion/run.ts --users=1000     # smoke
 *
 * The server is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), schema
 * `bench_recursion`, dropped and recreated by each run. Bindings are measured without
 * `sql_types` (as the sample application has them), with `User: integer`, and without
 * `sql_types` but with the reports' key declared and the caller's column naming the table
 * (`bench_recursion.reports.id` rather than `r.id`).
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { listQuery } from "../../src/api/local.js";
import { checkPolicy } from "../../src/check/check.js";
import type { GroundFact } from "../../src/core/value.js";
import { inMemoryCentralFacts } from "../../src/plan/resolve/central-facts.js";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    return [match[1]!, match[2]!] as const;
  }),
);
const USERS = Number(flags.get("users") ?? 10_000);
const REPORTS = Number(flags.get("reports") ?? USERS * 6);
const RUNS = Number(flags.get("runs") ?? 15);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const POLICY = `actor User {}
resource Report {
  permissions = ["read"];
  relations = { owner: User };
  "read" if "owner";
}
managed_by(e: User, m: User) if manages(m, e);
managed_by(e: User, m: User) if manages(x, e) and managed_by(x, m);
has_permission(user: User, "read", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user);`;

const BINDINGS = `facts:
  has_relation(Report:_, owner, User:_):
    query: SELECT id, owner_id FROM bench_recursion.reports
`;

const checked = checkPolicy([{ name: "policy.polar", text: POLICY }]);
if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
const program = checked.program;

/** User n manages 3n+1, 3n+2 and 3n+3. */
const manager = (e: number) => Math.floor((e - 1) / 3);
const user = (id: number) => ({ type: "User", id: String(id) });
const facts: GroundFact[] = [];
for (let e = 1; e < USERS; e++)
  facts.push({ predicate: "manages", args: [user(manager(e)), user(e)] });
const central = inMemoryCentralFacts(facts);

/** The manager and everyone below: the ids a hand-written query is given. */
function reach(top: number): number[] {
  const ids = [top];
  for (let i = 0; i < ids.length; i++) {
    for (let c = 3 * ids[i]! + 1; c <= 3 * ids[i]! + 3 && c < USERS; c++) ids.push(c);
  }
  return ids;
}

/** The first user of each level of the tree (its subtree is the fullest of the level). */
function levels(): number[] {
  const firsts: number[] = [];
  for (let first = 0; first < USERS; first = 3 * first + 1) firsts.push(first);
  return firsts;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(client: pg.Client, sql: string): Promise<{ ms: number; count: number }> {
  let count = 0;
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const start = performance.now();
    const result = await client.query<{ n: string }>(sql);
    const ms = performance.now() - start;
    count = Number(result.rows[0]!.n);
    if (i >= 2) times.push(ms); // two warm-up runs
  }
  return { ms: median(times), count };
}

function fragment(actor: number, bindings: string, column: string): { sql: string; ms: number } {
  const body = {
    query: { actor_type: "User", actor_id: String(actor), action: "read", resource_type: "Report" },
    column,
    data_bindings: bindings,
  };
  listQuery(program, body, { central }); // warm the plan cache
  const times: number[] = [];
  let sql = "";
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    sql = listQuery(program, body, { central }).sql;
    times.push(performance.now() - start);
  }
  return { sql, ms: median(times) };
}

const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

async function main(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const load = loadavg()[0]!.toFixed(1);
  await client.query(`DROP SCHEMA IF EXISTS bench_recursion CASCADE; CREATE SCHEMA bench_recursion;
    CREATE TABLE bench_recursion.reports (id integer PRIMARY KEY, owner_id integer NOT NULL);
    INSERT INTO bench_recursion.reports SELECT i, i % ${USERS} FROM generate_series(0, ${REPORTS - 1}) AS i;
    CREATE INDEX ON bench_recursion.reports (owner_id);
    ANALYZE bench_recursion.reports;`);
  console.log(
    `${USERS} users, ${REPORTS} reports, ${facts.length} central manages facts; ` +
      `${cpus().length} cores, load average ${load} at start; median of ${RUNS} runs after 2 warm-ups\n`,
  );
  // The caller's column: an alias, which `list_query` cannot tie to a table, or the table's own
  // name with its key declared, which lets the fragment filter the caller's rows directly
  // (src/lower/caller-rows.ts).
  const aliased = { column: "r.id", from: "bench_recursion.reports AS r" };
  const named = { column: "bench_recursion.reports.id", from: "bench_recursion.reports" };
  for (const [name, bindings, caller] of [
    ["no sql_types", BINDINGS, aliased],
    [
      "sql_types User: integer",
      `${BINDINGS}sql_types:\n  User: integer\n  Report: integer\n`,
      aliased,
    ],
    [
      "no sql_types, keys: {bench_recursion.reports: id}, column bench_recursion.reports.id",
      `${BINDINGS}keys:\n  bench_recursion.reports: id\n`,
      named,
    ],
  ] as const) {
    console.log(`### ${name}\n`);
    console.log(
      "| level | manager | users reached | reports | SQL | compile | query | hand-written count | ratio | hand-written filter | ratio |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|");
    for (const [level, top] of levels().entries()) {
      const ids = reach(top);
      const { sql, ms: compileMs } = fragment(top, bindings, caller.column);
      const ours = await timed(client, `SELECT count(*) AS n FROM ${caller.from} WHERE ${sql}`);
      const array = `'{${ids.join(",")}}'`;
      const hand = await timed(
        client,
        `SELECT count(*) AS n FROM bench_recursion.reports AS r WHERE r.owner_id = any(${array})`,
      );
      const handFilter = await timed(
        client,
        `SELECT count(*) AS n FROM bench_recursion.reports AS r WHERE r.id IN (SELECT id FROM bench_recursion.reports WHERE owner_id = any(${array}))`,
      );
      for (const other of [hand, handFilter]) {
        if (ours.count !== other.count) {
          throw new Error(`manager ${top}: ${ours.count} reports, hand-written ${other.count}`);
        }
      }
      console.log(
        `| ${level} | ${top} | ${ids.length} | ${ours.count} | ${kb(Buffer.byteLength(sql))} | ` +
          `${compileMs.toFixed(2)} ms | ${ours.ms.toFixed(2)} ms | ${hand.ms.toFixed(2)} ms | ` +
          `${(ours.ms / hand.ms).toFixed(2)} | ${handFilter.ms.toFixed(2)} ms | ` +
          `${(ours.ms / handFilter.ms).toFixed(2)} |`,
      );
    }
    console.log("");
  }
  console.log(`load average ${loadavg()[0]!.toFixed(1)} at end`);
  await client.end();
}

await main();
