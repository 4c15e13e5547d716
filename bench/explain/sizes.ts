/**
 * Explain at any size (issue 27, item 3): docs/explain.md's Folder policy on one store, a
 * document in N folders (wide) or at the bottom of an N-deep folder chain (deep), alice a viewer
 * of the last folder; `/explain` through the service in-process. Prints, per case, the status,
 * the time, the proof's nodes, whether explain agrees with authorize, and the process's RSS
 * before and after. One store per process, so that RSS is this store's.
 *
 *   npx tsx bench/explain/sizes.ts --store=sqlite           # the default store
 *   npx tsx bench/explain/sizes.ts --store=pglite
 *   npx tsx bench/explain/sizes.ts --store=postgres         # DATABASE_URL, schema bench_sizes
 *   npx tsx bench/explain/sizes.ts --store=sqlite wide-240 deep-3000   # some cases
 */
import { loadavg } from "node:os";
import pg from "pg";
import type { PolarService } from "../../src/api/service.js";
import { createService } from "../../src/service/service.js";
import { FOLDER_POLICY, type FolderCase, folderCase } from "./folder-graphs.js";

const args = process.argv.slice(2);
const store = args.find((a) => a.startsWith("--store="))?.slice(8) ?? "sqlite";
const names = args.filter((a) => !a.startsWith("--"));
/** The case without alice's role: denied, after reading the whole graph. */
const denied = (c: FolderCase): FolderCase => ({
  ...c,
  name: `${c.name}-denied`,
  facts: c.facts.filter((fact) => fact.predicate !== "has_role"),
});
const allowed = [
  folderCase("wide", 240),
  folderCase("wide", 1000),
  folderCase("deep", 200),
  folderCase("deep", 1000),
  folderCase("deep", 3000),
];
const CASES: readonly FolderCase[] = [...allowed, ...allowed.map(denied)].filter(
  (c) => names.length === 0 || names.includes(c.name),
);
const SCHEMA = "bench_sizes";
const mb = () => Math.round(process.memoryUsage().rss / 2 ** 20);

async function open(): Promise<PolarService> {
  if (store === "sqlite" || store === "pglite") return createService({ embedded: store });
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.end();
  const scoped = new URL(url);
  scoped.searchParams.set("options", `-c search_path=${SCHEMA}`);
  return createService({ databaseUrl: scoped.toString() });
}

/** Nodes of a tree as JSON decodes it, without recursion. */
function nodes(tree: { children: unknown[] }): number {
  let count = 0;
  const stack = [tree];
  while (stack.length > 0) {
    count++;
    stack.push(...(stack.pop()!.children as { children: unknown[] }[]));
  }
  return count;
}

const service = await open();
await service.postPolicy({ src: FOLDER_POLICY, filename: "policy.polar" }, {});
console.log(
  `store ${store}; load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(", ")}`,
);
console.log("\n| store | case | status | ms | nodes | agrees | RSS before MB | RSS after MB |");
console.log("|---|---|---|---:|---:|---|---:|---:|");
for (const c of CASES) {
  await service.clearData();
  await service.batch([{ inserts: c.facts }]);
  const allowed = ((await service.authorize(c.question)).body as { allowed: boolean }).allowed;
  const before = mb();
  const started = performance.now();
  let status = 200;
  let detail = "";
  let agrees = "";
  try {
    const reply = (await service.explain(c.question)).body as {
      allowed: boolean;
      explanation: { children: unknown[] };
    };
    agrees = reply.allowed === allowed ? "yes" : "NO";
    detail = String(nodes(reply.explanation));
  } catch (error) {
    const failure = error as { status?: number; message: string };
    status = failure.status ?? 500;
    detail = failure.message.slice(0, 80).replaceAll("|", "\\|");
  }
  const ms = Math.round(performance.now() - started);
  console.log(
    `| ${store} | ${c.name} | ${status} | ${ms} | ${detail} | ${agrees} | ${before} | ${mb()} |`,
  );
}
await service.close();
