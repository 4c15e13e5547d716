// One PGlite start with the options given as JSON in argv[2] (see run.ts): creates the
// database, runs the store's migrations and one query, prints the milliseconds since the
// process started, then idles so that the parent can read its resident memory.

import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { PGlite } from "@electric-sql/pglite";
import { migrate } from "../../dist/store/schema.js";

const { options, dump } = JSON.parse(process.argv[2] ?? "{}");
const created = { ...options };
if (dump) created.loadDataDir = new Blob([await readFile(dump)]);
const db = await PGlite.create(created);
const executor = {
  query: async (sql, params) => (await db.query(sql, params)).rows,
  transaction: (work) =>
    db.transaction((tx) => work({ query: async (s, p) => (await tx.query(s, p)).rows })),
};
await migrate(executor);
await db.query("SELECT count(*) FROM polar_fact");
process.stdout.write(`ready ${Math.round(performance.now())}\n`);
setTimeout(() => process.exit(0), 60_000);
