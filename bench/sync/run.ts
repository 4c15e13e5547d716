/**
 * Fact sync bench (issue 20): an application table of N users on the PostgreSQL server, a
 * store in another schema, and `polar-sql facts sync` run three times per target: the first
 * run inserts N facts, the second finds nothing to do, the third after 10% of the rows changed
 * (inserts and deletes 10% each). Targets: the store database directly (--database-url) and a
 * server on the in-memory default store over loopback (--url). Prints Markdown with the machine load.
 *
 *   npx tsx bench/sync/run.ts                 # 60,000 rows
 *   npx tsx bench/sync/run.ts --rows=10000    # smoke
 *
 * The server is DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), schemas
 * `bench_sync_app` and `bench_sync_store`, dropped and recreated by each run.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { runFactsSync } from "../../src/cli/facts-sync-command.js";
import type { CliIo } from "../../src/cli/io.js";
import { createApp } from "../../src/http/app.js";
import { silentLogger } from "../../src/http/logger.js";
import { startServer } from "../../src/http/server.js";
import { createService } from "../../src/service/service.js";

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    return [match[1]!, match[2]!] as const;
  }),
);
const ROWS = Number(flags.get("rows") ?? 60_000);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const POLICY = `actor User {}
resource Company { roles = ["admin", "member"]; permissions = ["manage"]; "manage" if "admin"; "member" if "admin"; }
`;
const SYNC = `facts:
  has_role(User:_, admin, Company:_):
    db: app
    query: SELECT user_id, company_id FROM users WHERE is_admin
dbs:
  app:
    connection_string: $BENCH_SOURCE_URL
`;

function withSchema(schema: string): string {
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

async function resetSchema(client: pg.Client, schema: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
}

async function timedSync(args: string[], config: string, env: Record<string, string>) {
  let out = "";
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (out += t), isTTY: false };
  const start = performance.now();
  const code = await runFactsSync(["--config", config, ...args], io, { env });
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(out);
  return { ms, summary: out.trim().split("\n").at(-1)! };
}

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const dir = await mkdtemp(join(tmpdir(), "polar-sql-bench-sync-"));
  const config = join(dir, "sync.yaml");
  await writeFile(config, SYNC);
  const env = { BENCH_SOURCE_URL: withSchema("bench_sync_app") };
  console.log(`## Fact sync (issue 20)\n`);
  console.log(
    `${ROWS} source rows; ${cpus().length} cores; load average at start ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} (shared machine)\n`,
  );
  console.log("| target | run | time | result |\n| --- | --- | --- | --- |");
  for (const target of ["database-url", "url"] as const) {
    await resetSchema(admin, "bench_sync_app");
    await resetSchema(admin, "bench_sync_store");
    const source = new pg.Client({ connectionString: env.BENCH_SOURCE_URL });
    await source.connect();
    await source.query(
      "CREATE TABLE users (user_id integer, company_id integer, is_admin boolean)",
    );
    await source.query(
      `INSERT INTO users SELECT n, n % 1000, true FROM generate_series(1, ${ROWS}) AS n`,
    );
    const storeUrl = withSchema("bench_sync_store");
    const service = await createService(target === "url" ? {} : { databaseUrl: storeUrl });
    await service.postPolicy({ src: POLICY, filename: "bench.polar" }, {});
    const server =
      target === "url"
        ? await startServer({
            app: createApp({ service, apiKeys: ["bench"], logger: silentLogger }),
            port: 0,
            host: "127.0.0.1",
          })
        : null;
    const args = server
      ? ["--url", server.url, "--api-key", "bench"]
      : ["--database-url", storeUrl];
    const label = server ? "server (--url, PGlite store)" : "store database (--database-url)";
    const runs: [string, () => Promise<void>][] = [
      ["first (all inserts)", async () => {}],
      ["second (nothing to do)", async () => {}],
      [
        "after 10% changed",
        async () => {
          await source.query(`UPDATE users SET is_admin = false WHERE user_id % 10 = 0`);
          await source.query(
            `INSERT INTO users SELECT n, n % 1000, true FROM generate_series(${ROWS + 1}, ${ROWS + ROWS / 10}) AS n`,
          );
        },
      ],
    ];
    for (const [name, before] of runs) {
      await before();
      const { ms, summary } = await timedSync(args, config, env);
      console.log(`| ${label} | ${name} | ${(ms / 1000).toFixed(2)} s | ${summary} |`);
    }
    await server?.close();
    await service.close();
    await source.end();
  }
  console.log(
    `\nload average at end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  await admin.query("DROP SCHEMA IF EXISTS bench_sync_app CASCADE");
  await admin.query("DROP SCHEMA IF EXISTS bench_sync_store CASCADE");
  await admin.end();
  await rm(dir, { recursive: true, force: true });
}

await main();
