import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createAnswerCache } from "../src/service/answer-cache.js";
import { serviceOver } from "../src/service/service.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { propertyRuns } from "./support/runs.js";

describe("answer cache (src/service/answer-cache.ts)", () => {
  it("answers a statement with the same values at the same version, nothing else", () => {
    const cache = createAnswerCache();
    const rows = [{ allowed: true }];
    expect(cache.put(3, "select $1", ["a"], rows)).toBe(rows);
    expect(cache.get(3, "select $1", ["a"])).toBe(rows);
    expect(cache.get(3, "select $1", ["b"])).toBeUndefined();
    expect(cache.get(3, "select $2", ["a"])).toBeUndefined();
    // Parameter lists are told apart exactly, whatever their values hold.
    cache.put(3, "q", ["a,b"], rows);
    expect(cache.get(3, "q", ["a", "b"])).toBeUndefined();
    // A newer version drops everything; an older one is neither answered nor kept.
    expect(cache.get(4, "select $1", ["a"])).toBeUndefined();
    cache.put(3, "select $1", ["a"], rows);
    expect(cache.get(4, "select $1", ["a"])).toBeUndefined();
    expect(cache.get(3, "select $1", ["a"])).toBeUndefined();
  });

  it("stays within its limits", () => {
    const cache = createAnswerCache({ entries: 2, rows: 3 });
    cache.get(1, "q", []);
    cache.put(1, "q", ["1"], [1]);
    cache.put(1, "q", ["2"], [2]);
    cache.put(1, "q", ["3"], [3]); // a third entry: the kept ones go
    expect(cache.get(1, "q", ["1"])).toBeUndefined();
    expect(cache.get(1, "q", ["3"])).toEqual([3]);
    cache.put(1, "q", ["big"], [1, 2, 3, 4]); // more rows than the cache holds
    expect(cache.get(1, "q", ["big"])).toBeUndefined();
  });
});

const POLICY = `actor User {}
resource Org { roles = ["member", "admin"]; permissions = ["read", "manage"];
  "member" if "admin"; "read" if "member"; "manage" if "admin"; }`;

const USERS = ["ada", "bo", "cy"];
const ORGS = ["1", "2"];
const ROLES = ["member", "admin"];
const role = (user: string, name: string, org: string) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user },
    { type: "String", id: name },
    { type: "Org", id: org },
  ],
});

describe("a service with the cache answers as one without it, writes or not", () => {
  let store: FactStore;
  let cached: PolarService;
  let uncached: PolarService;
  beforeAll(async () => {
    store = await openStore({});
    cached = serviceOver(store, { workers: 0 });
    uncached = serviceOver(store, { workers: 0, answerCache: false });
    await cached.postPolicy({ filename: "policy.polar", src: POLICY }, {});
  }, 60_000);
  afterAll(() => store.close());

  const user = fc.constantFrom(...USERS);
  const org = fc.constantFrom(...ORGS);
  const step = fc.oneof(
    fc.record({ kind: fc.constant("insert" as const), user, role: fc.constantFrom(...ROLES), org }),
    fc.record({ kind: fc.constant("delete" as const), user, org }),
    fc.record({ kind: fc.constant("ask" as const), user, org, list: fc.boolean() }),
  );

  it("over random writes and questions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        await cached.clearData();
        for (const s of steps) {
          if (s.kind === "insert") {
            await cached.batch([{ inserts: [role(s.user, s.role, s.org)] }]);
          } else if (s.kind === "delete") {
            await cached.batch([
              {
                deletes: [
                  {
                    predicate: "has_role",
                    args: [
                      { type: "User", id: s.user },
                      { type: null, id: null },
                      { type: "Org", id: s.org },
                    ],
                  },
                ],
              },
            ]);
          } else {
            const question = s.list
              ? (service: PolarService) =>
                  service.list({
                    actor_type: "User",
                    actor_id: s.user,
                    action: "read",
                    resource_type: "Org",
                    page_size: 10000,
                    context_facts: [],
                  })
              : (service: PolarService) =>
                  service.actions({
                    actor_type: "User",
                    actor_id: s.user,
                    resource_type: "Org",
                    resource_id: s.org,
                    context_facts: [],
                  });
            expect((await question(cached)).body).toEqual((await question(uncached)).body);
          }
        }
      }),
      { numRuns: propertyRuns(15, 150) },
    );
  });
});
