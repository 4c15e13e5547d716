/**
 * Write rate with one and with two environments on one PostgreSQL server (issue 29, item 2):
 * every write bumps its environment's data version row (src/store/store.ts), so writes of one
 * environment take turns on that row, and writes of two environments do not. Concurrent
 * writers each insert one fact a transaction through the service, for a few seconds per
 * case. Prints Markdown.
 *
 *   npx tsx bench/environments/writes.ts              # 5 s per case
 *   npx tsx bench/environments/writes.ts --seconds=2
 *
 * The store is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test): the schema
 * bench_envs for `default` and polar_env_bench_two for the second, both dropped at the end.
 */
import { loadavg } from "node:os";
import pg from "pg";
import type { PolarService } from "../../src/api/service.js";
import { openEnvironments } from "../../src/service/environments.js";

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const seconds = Number(/--seconds=(\d+)/.exec(process.argv.join(" "))?.[1] ?? 5);
const SCHEMAS = ["bench_envs", "polar_env_bench_two"];
const POLICY = `actor User {}
resource Doc { roles = ["reader"]; permissions = ["read"]; "read" if "reader"; }`;

async function admin(statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Writes per second of `writers` concurrent writers in each of `names`. */
async function writeRate(names: string[], writers: number): Promise<number> {
  await admin(SCHEMAS.map((schema) => `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  await admin(["CREATE SCHEMA bench_envs"]);
  const base = new URL(url);
  base.searchParams.set("options", "-c search_path=bench_envs");
  const environments = await openEnvironments(names, {
    databaseUrl: base.toString(),
    answerCache: false,
  });
  try {
    for (const service of environments.services.values())
      await service.postPolicy({ src: POLICY, filename: null }, {});
    let writes = 0;
    const until = Date.now() + seconds * 1000;
    const writer = async (service: PolarService, id: string) => {
      for (let i = 0; Date.now() < until; i++) {
        const fact = {
          predicate: "has_role",
          args: [
            { type: "User", id: `${id}_${i}` },
            { type: "String", id: "reader" },
            { type: "Doc", id: "d" },
          ],
        };
        await service.batch([{ inserts: [fact] }]);
        writes++;
      }
    };
    const runs = [...environments.services.entries()].flatMap(([name, service]) =>
      Array.from({ length: writers }, (_, w) => writer(service, `${name}_${w}`)),
    );
    await Promise.all(runs);
    return writes / seconds;
  } finally {
    await environments.close();
    await admin(SCHEMAS.map((schema) => `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  }
}

const cases: [string[], number][] = [
  [["default"], 8],
  [["default", "bench_two"], 4],
  [["default"], 16],
  [["default", "bench_two"], 8],
];
const load = loadavg().map((l) => l.toFixed(1));
console.log(`load average before: ${load.join(" ")}\n`);
console.log("| environments | writers each | writers in all | writes/s |");
console.log("| --- | --- | --- | --- |");
for (const [names, writers] of cases) {
  const rate = await writeRate(names, writers);
  console.log(`| ${names.length} | ${writers} | ${names.length * writers} | ${Math.round(rate)} |`);
}
