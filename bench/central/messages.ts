/**
 * What one message per read costs PostgreSQL, against several reads per message
 * (src/store/postgres-batches.ts). `--callers` loops each ask a prepared walk up a folder tree
 * (the shape of a central authorize: a recursive CTE, then an `EXISTS` over roles) with new
 * values each time, through `recurringReads`:
 * - `alone`: as many sessions as callers, so no read ever waits and each goes in a message of
 *   its own;
 * - `batched`: 2 sessions, so reads wait and go out up to 8 to a message.
 * Prints reads/s and CPU per read of PostgreSQL's backends and of this process, modes
 * alternating (`--rounds`), with the machine's load.
 *
 *   npx tsx bench/central/messages.ts [postgres://…] [--reads=30000] [--callers=16] [--rounds=2]
 */
import { loadavg } from "node:os";
import pg from "pg";
import { type DeadlineGuard, recurringReads } from "../../src/store/postgres-batches.js";
import { cpuShares, cpuSnapshot } from "../scale-out/cpu.js";

const option = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const url =
  process.argv.slice(2).find((a) => !a.startsWith("--")) ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const reads = option("reads", 30_000);
const callers = option("callers", 16);
const rounds = option("rounds", 2);
const FOLDERS = 30_000;
const USERS = 10_000;
const schema = `bench_messages_${process.pid}`;

const WALK = `with recursive up(id) as (
    select cast($1 as text)
    union
    select f.parent from ${schema}.folders f join up on f.id = up.id where f.parent is not null)
  select exists (
    select 1 from up join ${schema}.roles r on r.folder = up.id and r.user_id = cast($2 as text)
  ) as allowed`;

/** Folders in trees at most 8 deep; each user holds a role on two folders. */
async function load(admin: pg.Client): Promise<void> {
  await admin.query(`create schema ${schema}`);
  await admin.query(`create table ${schema}.folders (id text primary key, parent text)`);
  await admin.query(
    `create table ${schema}.roles (user_id text, folder text, primary key (user_id, folder))`,
  );
  await admin.query(`insert into ${schema}.folders
    select g::text, case when g % 8 = 0 then null else (g - 1)::text end
    from generate_series(0, ${FOLDERS - 1}) g`);
  await admin.query(`insert into ${schema}.roles
    select (g % ${USERS})::text, ((g * 7919) % ${FOLDERS})::text
    from generate_series(0, ${2 * USERS - 1}) g on conflict do nothing`);
  await admin.query(`analyze ${schema}.folders, ${schema}.roles`);
}

/** No read here has a deadline: the guard only runs. */
const unbounded: DeadlineGuard = Object.assign(
  <T>(_client: pg.PoolClient, _deadline: number, run: () => Promise<T>) => run(),
  { cancelled: () => false },
);

async function backendPids(admin: pg.Client): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
  );
  return rows.map((row) => row.pid);
}

async function measure(admin: pg.Client, mode: "alone" | "batched") {
  const sessions = mode === "alone" ? callers : 2;
  const pool = new pg.Pool({ connectionString: url, max: sessions });
  const read = recurringReads(pool, sessions, unbounded);
  const ask = () =>
    read(
      WALK,
      [String(Math.floor(Math.random() * FOLDERS)), String(Math.floor(Math.random() * USERS))],
      undefined,
    );
  // Every session prepares the statement before the clock starts.
  await Promise.all(Array.from({ length: callers * 4 }, ask));
  const roles = {
    pids: async () =>
      new Map([
        ["bench", [process.pid]],
        ["postgres", await backendPids(admin)],
      ]),
  };
  const before = await cpuSnapshot(roles);
  let asked = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (asked < reads) {
        asked++;
        await ask();
      }
    }),
  );
  const after = await cpuSnapshot(roles);
  const seconds = (after.at - before.at) / 1000;
  const cores = cpuShares(before, after);
  await pool.end();
  const perRead = (role: string) => Math.round(((cores.get(role) ?? 0) * seconds * 1e6) / asked);
  return {
    mode,
    perSecond: Math.round(asked / seconds),
    postgres: perRead("postgres"),
    bench: perRead("bench"),
  };
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
try {
  await load(admin);
  console.log(
    `${reads} reads per run, ${callers} callers; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log("| mode | reads/s | PostgreSQL CPU µs per read | this process µs per read |");
  console.log("| --- | ---: | ---: | ---: |");
  for (let round = 0; round < rounds; round++) {
    for (const mode of ["alone", "batched"] as const) {
      const { perSecond, postgres, bench } = await measure(admin, mode);
      console.log(`| ${mode} | ${perSecond.toLocaleString("en")} | ${postgres} | ${bench} |`);
    }
  }
  console.log(
    `load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
