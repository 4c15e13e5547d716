/**
 * Read-your-writes across instances for the first fact of a new shape (issue 15, item 3): two
 * stores on one schema (instances A and B in one process). B answers a question, so that it
 * holds the fact shapes of the current data version; then A stores the first `has_role` on a
 * `Team` (a (predicate, types) shape no fact had) and B is asked at once whether the role holds.
 * B builds its statements from the shapes it read at the last data version it heard of
 * (src/service/service.ts), so the answer depends on whether A's NOTIFY has reached B, unless the
 * question carries the write's offset: `catchUp(offset)` is what the HTTP layer runs for an
 * `OsoOffset` request header (src/http/app.ts). Prints how often B denied, with and without the
 * offset; exits 1 when B denied with it.
 *
 *   npx tsx bench/scale-out/new-shape.ts    # schema bench_new_shape on DATABASE_URL
 */

import type { PolarService } from "../../src/api/service.js";
import { serviceOver } from "../../src/service/service.js";
import { openStore } from "../../src/store/store.js";
import { dropSchema, freshSchema } from "./instances.js";

const POLICY = `actor User {}
resource Folder { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
resource Team { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }`;
const ROUNDS = 10;
const SCHEMA = "bench_new_shape";

const role = (type: string) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: "u" },
    { type: "String", id: "viewer" },
    { type, id: "x" },
  ],
});

async function allowed(service: PolarService, type: string): Promise<boolean> {
  const question = { actor_type: "User", actor_id: "u", action: "read", resource_type: type };
  const reply = await service.authorize({ ...question, resource_id: "x", context_facts: [] });
  return (reply.body as { allowed: boolean }).allowed;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One round on a fresh schema: whether B denied the new fact at once. */
async function round(sendOffset: boolean): Promise<boolean> {
  const url = await freshSchema(SCHEMA);
  const a = serviceOver(await openStore({ databaseUrl: url }), {});
  const b = serviceOver(await openStore({ databaseUrl: url }), {});
  try {
    await a.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
    await a.batch([{ inserts: [role("Folder")] }]);
    await pause(100);
    await allowed(b, "Folder");
    const { dataVersion } = await a.batch([{ inserts: [role("Team")] }]);
    if (sendOffset && dataVersion !== undefined) await b.catchUp?.(dataVersion);
    return !(await allowed(b, "Team"));
  } finally {
    await a.close();
    await b.close();
  }
}

const denied = { without: 0, with: 0 };
for (let i = 0; i < ROUNDS; i++) {
  if (await round(false)) denied.without++;
  if (await round(true)) denied.with++;
}
await dropSchema(SCHEMA);
console.log(
  `of ${ROUNDS} first Team roles written through A, B denied at once: ${denied.without} without the offset, ${denied.with} with it`,
);
if (denied.with > 0) process.exitCode = 1;
