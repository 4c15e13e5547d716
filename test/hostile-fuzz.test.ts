/**
 * Random well-formed hostile requests (issue 13) through the HTTP app over a real service:
 * ids with control characters, random sizes, random policy shapes. Never a 5xx, and the
 * service keeps answering afterwards.
 */
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { createService } from "../src/service/service.js";
import { propertyRuns } from "./support/runs.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const BASE = `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
`;

let service: PolarService | undefined;
afterAll(async () => {
  await service?.close();
});

/** Ids with NUL, control characters, quotes and unpaired surrogates; some empty. */
const id = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({
    unit: fc.constantFrom("\u0000", "\u0001", "\u001f", "\u007f", "'", '"', "\\", "\ud800", "a"),
    maxLength: 6,
  }),
);
const value = fc.record({ type: fc.constantFrom("User", "Doc", "String", "Integer"), id });
const ids = fc.array(id, { maxLength: 40 });

/** `(x or y) and …`, rule chains and many rules per head, with a hostile comment and name. */
const policy = fc
  .record({
    ors: fc.integer({ min: 0, max: 6 }),
    chain: fc.integer({ min: 0, max: 40 }),
    heads: fc.integer({ min: 0, max: 40 }),
    comment: id,
  })
  .map(({ ors, chain, heads, comment }) => {
    const lines = [`# ${comment.replace(/[\r\n]/g, " ")}`, BASE];
    if (ors > 0) {
      const body = Array.from(
        { length: ors },
        (_, i) => `(has_relation(d, "a${i}", u) or has_relation(d, "b${i}", u))`,
      );
      lines.push(`has_role(u: User, "viewer", d: Doc) if ${body.join(" and ")};`);
    }
    for (let i = 0; i < chain; i++) lines.push(`c${i}(d: Doc) if c${i + 1}(d);`);
    if (chain > 0) {
      lines.push(`c${chain}(d: Doc) if has_relation(d, "x", d);`);
      lines.push(`has_role(_: User, "viewer", d: Doc) if c0(d);`);
    }
    for (let i = 0; i < heads; i++) {
      lines.push(`has_role(u: User, "viewer", d: Doc) if has_relation(d, "r${i}", u);`);
    }
    return lines.join("\n");
  });

const request = fc.oneof(
  fc.record({ path: fc.constant("/api/policy"), body: fc.record({ src: policy, filename: id }) }),
  fc.record({
    path: fc.constant("/api/authorize"),
    body: fc.record({
      actor_type: fc.constant("User"),
      actor_id: id,
      action: id,
      resource_type: fc.constant("Doc"),
      resource_id: id,
    }),
  }),
  fc.record({
    path: fc.constant("/api/authorize_resources"),
    body: fc.record({
      actor_type: fc.constant("User"),
      actor_id: id,
      action: fc.constant("read"),
      resources: fc.array(value, { maxLength: 200 }),
    }),
  }),
  fc.record({
    path: fc.constant("/api/evaluate_query"),
    body: fc.record({
      predicate: fc.constant(["allow", ["a", "b", "c"]]),
      calls: fc.array(fc.constantFrom(["allow", ["a", "b", "c"]], ["has_role", ["a", "b", "c"]]), {
        maxLength: 30,
      }),
      constraints: fc.record({
        a: fc.record({ type: fc.constant("User"), ids }),
        b: fc.record({ type: fc.constant("String"), ids }),
        c: fc.record({ type: fc.constant("Doc"), ids: fc.option(ids, { nil: null }) }),
      }),
    }),
  }),
  fc.record({
    path: fc.constant("/api/batch"),
    body: fc.array(
      fc.oneof(
        fc.record({
          inserts: fc.array(
            fc.record({
              predicate: fc.constantFrom("has_role", "has_relation", "wide"),
              args: fc.array(value, { minLength: 1, maxLength: 10 }),
            }),
            { maxLength: 5 },
          ),
        }),
        fc.record({
          deletes: fc.array(
            fc.record({
              predicate: fc.constantFrom("has_role", "wide"),
              args: fc.array(value, { maxLength: 10 }),
            }),
            { maxLength: 5 },
          ),
        }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    path: fc.constant("/api/authorize_query"),
    body: fc.record({
      query: fc.record({
        actor_type: fc.constant("User"),
        actor_id: id,
        action: id,
        resource_type: fc.constant("Doc"),
        resource_id: id,
      }),
      data_bindings: fc.constant(
        `facts:\n  "has_role(User:_, String:_, Doc:_)":\n    query: SELECT u, r, d FROM roles\n`,
      ),
    }),
  }),
);

it("random hostile requests: never a 5xx, and the service answers afterwards", async () => {
  service = await createService({ limits: { requestMs: 60_000 }, pool: sharedWorkerPool() });
  await service.postPolicy({ src: BASE, filename: null }, {});
  const app = createApp({ service, apiKeys: ["k"], logger: { info() {}, error() {} } });
  const post = (path: string, body: unknown) =>
    app.request(path, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  await fc.assert(
    fc.asyncProperty(request, async ({ path, body }) => {
      const reply = await post(path, body);
      const text = await reply.text();
      expect(reply.status, `${path} ${text}`).toBeLessThan(500);
    }),
    { numRuns: propertyRuns(60, 400) },
  );
  const health = await post("/api/authorize", {
    actor_type: "User",
    actor_id: "a",
    action: "read",
    resource_type: "Doc",
    resource_id: "d",
  });
  expect(health.status).toBe(200);
}, 600_000);
