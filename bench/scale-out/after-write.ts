/**
 * What a write costs the questions after it (issue 15, item 3): in-process, on PostgreSQL, the
 * recursive dataset at its small scale; authorize one call at a time with no writes, then with
 * a one-fact write (a grant to a fresh user, through the same service) before every question.
 * The service keeps its fact shapes as data bindings per data version (src/service/service.ts), and
 * plans per (policy, bindings): a question after a write may plan again. Prints p50/p99 of the
 * question alone in both runs, and of the write.
 *
 *   npx tsx bench/scale-out/after-write.ts [calls]     # schema bench_after_write on DATABASE_URL
 */
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { serviceOver } from "../../src/service/service.js";
import { openStore } from "../../src/store/store.js";
import {
  RECURSIVE_POLICY_FILE,
  RECURSIVE_SCALES,
  recursiveFacts,
  recursiveRequests,
} from "../http/recursive.js";
import { serverStore } from "../http/server-process.js";
import { dropSchema } from "./instances.js";

const CALLS = Number(process.argv[2] ?? 300);
const SCHEMA = "bench_after_write";
const scale = RECURSIVE_SCALES.small;

const store = await openStore({ databaseUrl: await serverStore(SCHEMA) });
const service = serviceOver(store, {});
const src = await readFile(RECURSIVE_POLICY_FILE, "utf8");
await service.postPolicy({ src, filename: "policy.polar" }, {});
await store.applyBatch([{ inserts: recursiveFacts(scale) }]);
const bodies = recursiveRequests(scale, 3 * CALLS, 5).authorize.map((r) => JSON.parse(r.body));

const percentile = (times: number[], q: number) =>
  [...times].sort((a, b) => a - b)[Math.floor(q * (times.length - 1))]!.toFixed(2);
const timed = async (work: () => Promise<unknown>, into: number[]) => {
  const started = performance.now();
  await work();
  into.push(performance.now() - started);
};

for (const body of bodies.slice(0, CALLS)) await service.authorize(body);
const quiet: number[] = [];
for (const body of bodies.slice(CALLS, 2 * CALLS))
  await timed(() => service.authorize(body), quiet);
const afterWrite: number[] = [];
const writes: number[] = [];
for (const [i, body] of bodies.slice(2 * CALLS).entries()) {
  const grant = {
    predicate: "has_role",
    args: [
      { type: "User", id: `after-write-${i}` },
      { type: "String", id: "viewer" },
      { type: "Folder", id: String(i % scale.folders) },
    ],
  };
  await timed(() => service.batch([{ inserts: [grant] }]), writes);
  await timed(() => service.authorize(body), afterWrite);
}
await service.close();
await dropSchema(SCHEMA);
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; ${CALLS} calls each`,
);
console.log("| in-process, PostgreSQL | p50 ms | p99 ms |\n| --- | ---: | ---: |");
console.log(`| authorize, no writes | ${percentile(quiet, 0.5)} | ${percentile(quiet, 0.99)} |`);
console.log(
  `| authorize, each after a write | ${percentile(afterWrite, 0.5)} | ${percentile(afterWrite, 0.99)} |`,
);
console.log(
  `| the write (one fact, /batch) | ${percentile(writes, 0.5)} | ${percentile(writes, 0.99)} |`,
);
