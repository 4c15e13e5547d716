/**
 * `authorize_query` without HTTP (issue 32, item 2), on the data of local-round-trip.ts: the
 * recursive dataset's roles stored, folders and documents bound, a user that has not asked
 * before each call, so each statement inlines that user's stored roles.
 *
 * - library: `authorizeQuery` of src/api/local.ts with the roles as central facts, each lookup
 *   answered from memory (no store): parsing the body, the plan cache, printing;
 * - service: `service.authorizeQuery` over the in-memory SQLite store (the question's head and
 *   the user's roles are read in a store thread), with the process's CPU per call (all threads);
 * - new texts: then 300 calls each with a bindings text the service has not seen (a comment
 *   apart), 1 ms apart so that idle threads sleep between them as they do between requests:
 *   parsing and checking the bindings, planning, the first print.
 *
 *   npx tsx bench/http/local-in-process.ts            # 10,000 users, 8,000 timed calls each
 *   npx tsx bench/http/local-in-process.ts --calls=2000
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { authorizeQuery } from "../../src/api/local.js";
import { checkPolicyOrThrow } from "../../src/check/check.js";
import type { CentralFacts } from "../../src/core/central-facts.js";
import type { GroundFact } from "../../src/core/value.js";
import { serviceOver } from "../../src/service/service.js";
import { openStore } from "../../src/store/store.js";
import {
  RECURSIVE_BINDINGS,
  RECURSIVE_POLICY_FILE,
  RECURSIVE_SCALES,
  recursiveFacts,
} from "./recursive.js";

const scale = RECURSIVE_SCALES.default;
const CALLS = Number(
  process.argv.find((a) => a.startsWith("--calls="))?.slice("--calls=".length) ?? 8000,
);
/** Users asked before the timed calls (plans, templates, JIT), never timed. */
const WARM_UP = 1000;

/** Calls with a new bindings text, after the timed calls. */
const NEW_TEXTS = 300;

const body = (user: number, document: number, bindings = RECURSIVE_BINDINGS) => ({
  query: {
    actor_type: "User",
    actor_id: String(user),
    action: "read",
    resource_type: "Document",
    resource_id: String(document),
    context_facts: [],
  },
  data_bindings: bindings,
});

function quantiles(micros: number[]): string {
  micros.sort((a, b) => a - b);
  const at = (q: number) => Math.round(micros[Math.floor(q * (micros.length - 1))]!);
  return `p50 ${at(0.5)} µs, p90 ${at(0.9)} µs, p99 ${at(0.99)} µs`;
}

async function timed(call: (user: number, document: number) => unknown): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i++) await call(scale.users - 1 - i, (i * 7919) % scale.documents);
  const micros: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i % (scale.users - WARM_UP), (i * 104729) % scale.documents);
    micros.push((performance.now() - started) * 1000);
  }
  return micros;
}

const policy = readFileSync(RECURSIVE_POLICY_FILE, "utf8");
const roles = recursiveFacts(scale).filter((fact) => fact.predicate === "has_role");

// Library: each user's roles by lookup, as the service keeps the lookups it loaded.
const byUser = new Map<string, GroundFact[]>();
for (const fact of roles) {
  const user = fact.args[0]!.id;
  byUser.set(user, [...(byUser.get(user) ?? []), fact]);
}
const central: CentralFacts = {
  facts: (predicate, _arity, pattern = []) =>
    predicate === "has_role" && pattern[0] ? (byUser.get(pattern[0].id) ?? []) : [],
};
const program = checkPolicyOrThrow([{ name: "policy.polar", text: policy }]);
const library = await timed((user, document) =>
  authorizeQuery(program, body(user, document), { central }),
);

// Service: the same questions over the store.
const store = await openStore({ embedded: "sqlite" });
const service = serviceOver(store, {});
await service.postPolicy({ filename: "policy.polar", src: policy }, {});
await store.applyBatch([{ inserts: roles }]);
const cpu = process.cpuUsage();
const served = await timed((user, document) => service.authorizeQuery(body(user, document)));
const used = process.cpuUsage(cpu);
const newTexts: number[] = [];
for (let i = 0; i < NEW_TEXTS; i++) {
  const text = `# bindings text ${i}\n${RECURSIVE_BINDINGS}`;
  const started = performance.now();
  await service.authorizeQuery(body(i, (i * 7919) % scale.documents, text));
  newTexts.push((performance.now() - started) * 1000);
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await service.close();

const calls = CALLS + WARM_UP;
console.log(
  `authorize_query in process, ${CALLS} calls after ${WARM_UP}, a new user each, ` +
    `${roles.length} stored roles; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
);
console.log(`library (roles from memory): ${quantiles(library)}`);
console.log(
  `service (SQLite store): ${quantiles(served)}; ` +
    `CPU ${Math.round((used.user + used.system) / calls)} µs per call`,
);
console.log(
  `service, a new bindings text each call (${NEW_TEXTS}): all ${quantiles([...newTexts])}; ` +
    `after the first 100 ${quantiles(newTexts.slice(100))}`,
);
