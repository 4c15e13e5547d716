/**
 * Read-your-writes across instances with every cache on: two services share one PostgreSQL
 * schema; writes go through `a`, questions through `b` over HTTP. `b` stands for an instance
 * that has not yet been notified of `a`'s writes: its store reports the data version it last
 * caught up to, and re-reads its policy hourly. With the `OsoOffset` that `a` answered (as
 * the official clients send it back), every answer of `b` reflects the write: the policy, the
 * central questions (whose fact shapes are kept per version) and the local endpoints (whose
 * stored-fact lookups are kept per version). Without it, `b` answers from its caches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { serviceOver } from "../src/service/service.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { serverSchema } from "./support/central-services.js";

const databaseUrl = process.env.DATABASE_URL;
const KEY = "ryw-key";

const POLICY = `actor User {}
resource Org { roles = ["member"]; }
resource Repo {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "member" on "org";
}`;
const POLICY_V2 = POLICY.replace(
  `permissions = ["read"];`,
  `permissions = ["read", "star"];
  "star" if "read";`,
);

const BINDINGS = `facts:
  has_relation(Repo:_, org, Org:_):
    query: SELECT id, org_id FROM repos
sql_types:
  Repo: integer
  Org: integer
`;

/** A store that has heard of no write since it last caught up (a notification not yet in). */
function lateStore(store: FactStore, start: number): FactStore {
  let known = start;
  async function catchUp(version: number): Promise<void> {
    if (version <= known) return;
    await store.catchUp(version);
    known = await store.dataVersion();
  }
  return {
    ...store,
    dataVersion: async () => known,
    async head(atLeast) {
      if (atLeast !== undefined) await catchUp(atLeast);
      return { program: await store.program(), dataVersion: known, db: store.db };
    },
    catchUp,
  };
}

describe.runIf(databaseUrl)("read-your-writes across two instances", () => {
  let a: PolarService;
  let b: PolarService;
  let ask: (path: string, body: unknown, offset?: number) => Promise<Record<string, unknown>>;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const schema = await serverSchema(databaseUrl!, "ryw");
    cleanups.push(() => schema.drop());
    a = serviceOver(await openStore({ databaseUrl: schema.url }), { workers: 0 });
    cleanups.push(() => a.close());
    await a.postPolicy({ filename: "policy.polar", src: POLICY }, {});
    const relation = {
      predicate: "has_relation",
      args: [
        { type: "Repo", id: "7" },
        { type: "String", id: "org" },
        { type: "Org", id: "1" },
      ],
    };
    await a.batch([{ inserts: [relation] }]);
    const raw = await openStore({
      databaseUrl: schema.url,
      follow: false,
      policyRefreshMs: 3_600_000,
    });
    b = serviceOver(lateStore(raw, await raw.dataVersion()), { workers: 0 });
    cleanups.push(() => b.close());
    const app = createApp({
      service: b,
      apiKeys: [KEY],
      logger: { info: () => {}, error: () => {} },
    });
    ask = async (path, body, offset) => {
      const res = await app.request(path, {
        method: "POST",
        body: JSON.stringify(body),
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${KEY}`,
          ...(offset !== undefined && { OsoOffset: String(offset) }),
        },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const question = { actor_type: "User", actor_id: "ada", resource_type: "Repo", resource_id: "7" };
  const authorize = (offset?: number) =>
    ask("/api/authorize", { ...question, action: "read", context_facts: [] }, offset);
  const local = (offset?: number) =>
    ask(
      "/api/authorize_query",
      { query: { ...question, action: "read", context_facts: [] }, data_bindings: BINDINGS },
      offset,
    );
  const actions = (offset?: number) =>
    ask("/api/actions", { ...question, context_facts: [] }, offset);

  it("sees a first role written elsewhere, in central and local answers, once given the offset", async () => {
    // b answers once before the write: its per-version caches hold "no roles".
    expect(await authorize()).toEqual({ allowed: false });
    expect((await local()).sql).toBe("select false as allowed");
    const role = {
      predicate: "has_role",
      args: [
        { type: "User", id: "ada" },
        { type: "String", id: "member" },
        { type: "Org", id: "1" },
      ],
    };
    const written = (await a.batch([{ inserts: [role] }])).dataVersion!;
    // Not yet heard of: the caches answer (what a client without the offset may see).
    expect(await authorize()).toEqual({ allowed: false });
    expect((await local()).sql).toBe("select false as allowed");
    // With the offset the write is seen, and stays seen.
    expect(await authorize(written)).toEqual({ allowed: true });
    expect((await local(written)).sql).toContain("f0.arg2 = 1");
    expect(await authorize()).toEqual({ allowed: true });
  });

  it("answers by a policy posted elsewhere once given the offset", async () => {
    expect(await actions()).toEqual({ results: ["read"] });
    const posted = (await a.postPolicy({ filename: "policy.polar", src: POLICY_V2 }, {}))
      .dataVersion!;
    expect(await actions()).toEqual({ results: ["read"] });
    expect(await actions(posted)).toEqual({ results: ["read", "star"] });
  });
});
