// Loads N facts into an in-memory service (dist build) and reports load time, resident memory
// and authorize/list latency as one JSON line.
// argv[2]: {"facts": N, "store": "sqlite" | "pglite", "settings": [...] | null,
//           "dataDir": "<dir>" | null}; settings are PGlite's.

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createService } from "../../dist/service/service.js";

const { facts: total, store = "sqlite", settings, dataDir } = JSON.parse(process.argv[2]);
const mb = () => Math.round(process.memoryUsage().rss / 1048576);
const service = await createService({
  embedded: store,
  ...(settings && { pgliteSettings: settings }),
  ...(dataDir && { dataDir }),
});
const policy = readFileSync(
  new URL("../../examples/quickstart/policy.polar", import.meta.url),
  "utf8",
);
await service.postPolicy({ src: policy, filename: "policy.polar" }, {});
const started = performance.now();
let peak = mb();
const BATCH = 20_000;
for (let start = 0; start < total; start += BATCH) {
  const inserts = [];
  for (let i = start; i < Math.min(total, start + BATCH); i++) {
    inserts.push({
      predicate: "has_role",
      args: [
        { type: "User", id: `u${i % 50_000}` },
        { type: "String", id: i % 7 === 0 ? "owner" : "member" },
        { type: "Organization", id: `o${Math.floor(i / 50_000)}_${i % 997}` },
      ],
    });
  }
  await service.batch([{ inserts }]);
  peak = Math.max(peak, mb());
}
const loadMs = Math.round(performance.now() - started);
const ask = { actor_type: "User", actor_id: "u42", action: "read", resource_type: "Organization" };
const timed = async (work, n = 20) => {
  await work();
  const t = performance.now();
  for (let i = 0; i < n; i++) await work();
  return +((performance.now() - t) / n).toFixed(2);
};
const authorizeMs = await timed(() => service.authorize({ ...ask, resource_id: "o0_42" }));
const listMs = await timed(() => service.list({ ...ask, page_size: 10_000 }), 5);
await new Promise((resolve) => setTimeout(resolve, 3000));
console.log(
  JSON.stringify({
    store,
    facts: total,
    loadMs,
    peakRssMb: peak,
    idleRssMb: mb(),
    authorizeMs,
    listMs,
  }),
);
process.exit(0);
