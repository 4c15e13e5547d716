/**
 * Hostile but well-formed requests (issue 13): each gets the right answer or a 4xx whose
 * message names the limit, its value and the setting that raises it. Sizes here are small
 * where the answer is the point; bench/hostile/run.ts measures the times at full size.
 */
import { afterAll, describe, expect, it } from "vitest";
import { bindingCalls, conjunctionOfOrs } from "../bench/hostile/policies.js";
import { ApiError, type PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { createService, type ServiceOptions } from "../src/service/service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const BASE = `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
`;

/**
 * One service per option set, shared by the tests that use it (a service starts a database and
 * a worker pool): each test posts its policy and clears the facts first.
 */
const services = new Map<string, Promise<PolarService>>();
afterAll(async () => {
  await Promise.all([...services.values()].map(async (service) => (await service).close()));
});

async function serviceWith(policy: string, options: ServiceOptions = {}): Promise<PolarService> {
  const key = JSON.stringify(options);
  let opening = services.get(key);
  if (!opening) {
    // Limits travel with each task: the services share the process's planning pool.
    opening = createService({ ...options, pool: sharedWorkerPool() });
    services.set(key, opening);
  }
  const service = await opening;
  await service.clearData();
  await service.postPolicy({ src: policy, filename: "hostile.polar" }, {});
  return service;
}

const doc = (id: string) => ({ type: "Doc", id });
const user = (id: string) => ({ type: "User", id });
const role = (u: string, d: string) => ({
  predicate: "has_role",
  args: [user(u), { type: "String", id: "viewer" }, doc(d)],
});

/** The refusal of `work`: its status and message (fails when it succeeds). */
async function refusal(work: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

const allowQuery = (calls: number, ids: readonly string[]) => ({
  predicate: ["allow", ["a", "b", "c"]],
  calls: Array.from({ length: calls }, () => ["allow", ["a", "b", "c"]]),
  constraints: {
    a: { type: "User", ids: ["ada"] },
    b: { type: "String", ids: ["read"] },
    c: { type: "Doc", ids },
  },
});

describe("linear costs", () => {
  it("evaluate_query: a call repeated 1,000 times answers as the call once", async () => {
    const service = await serviceWith(BASE);
    await service.batch([{ inserts: [role("ada", "d1")] }]);
    const once = await service.evaluateQuery(allowQuery(0, ["d1", "d2"]));
    const repeated = await service.evaluateQuery(allowQuery(999, ["d1", "d2"]));
    expect(once.body).toEqual({ results: [{ a: "ada", b: "read", c: "d1" }] });
    expect(repeated.body).toEqual(once.body);
  });

  it("authorize_resources: thousands of resources, the permitted ones in request order", async () => {
    const service = await serviceWith(BASE);
    const ids = Array.from({ length: 3000 }, (_, i) => `d${i}`);
    await service.batch([
      { inserts: ids.filter((_, i) => i % 3 === 0).map((d) => role("ada", d)) },
    ]);
    const reply = await service.authorizeResources({
      actor_type: "User",
      actor_id: "ada",
      action: "read",
      resources: [...ids.map(doc), doc("d0")],
    });
    const expected = [...ids.filter((_, i) => i % 3 === 0).map(doc), doc("d0")];
    expect(reply.body).toEqual({ results: expected });
  });

  it("more than 65,535 ids in one constraint: one array parameter, the right answer", async () => {
    const service = await serviceWith(BASE);
    await service.batch([{ inserts: [role("ada", "d69999")] }]);
    const ids = Array.from({ length: 70_000 }, (_, i) => `d${i}`);
    const reply = await service.evaluateQuery(allowQuery(0, ids));
    expect(reply.body).toEqual({ results: [{ a: "ada", b: "read", c: "d69999" }] });
  });

  it("a chain of 500 rules, each calling the next, plans and answers", async () => {
    const chain = Array.from({ length: 500 }, (_, i) => `step${i}(d: Doc) if step${i + 1}(d);`);
    const policy = `${BASE}${chain.join("\n")}
step500(d: Doc) if has_relation(d, "public", d);
has_role(_: User, "viewer", d: Doc) if step0(d);
`;
    // Planning 500 levels takes seconds on a loaded machine: no deadline in a test.
    const service = await serviceWith(policy, { limits: { requestMs: 600_000 } });
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_relation",
            args: [doc("p"), { type: "String", id: "public" }, doc("p")],
          },
        ],
      },
    ]);
    const ask = (id: string) =>
      service.authorize({
        actor_type: "User",
        actor_id: "bo",
        action: "read",
        resource_type: "Doc",
        resource_id: id,
      });
    expect((await ask("p")).body).toEqual({ allowed: true });
    expect((await ask("q")).body).toEqual({ allowed: false });
  });

  it("many rules with one head answer through each of them", async () => {
    const rules = Array.from(
      { length: 300 },
      (_, i) => `has_role(u: User, "viewer", d: Doc) if has_relation(d, "r${i}", u);`,
    );
    const service = await serviceWith(`${BASE}${rules.join("\n")}\n`);
    const relation = (name: string) => ({
      predicate: "has_relation",
      args: [doc("d"), { type: "String", id: name }, user("ada")],
    });
    await service.batch([{ inserts: [relation("r299")] }]);
    const ask = (actor: string) =>
      service.authorize({
        actor_type: "User",
        actor_id: actor,
        action: "read",
        resource_type: "Doc",
        resource_id: "d",
      });
    expect((await ask("ada")).body).toEqual({ allowed: true });
    expect((await ask("bo")).body).toEqual({ allowed: false });
  });
});

describe("budgets name the limit, its value and the setting", () => {
  const authorize = (service: PolarService) =>
    service.authorize({
      actor_type: "User",
      actor_id: "ada",
      action: "read",
      resource_type: "Doc",
      resource_id: "d",
    });

  it("14 conjuncts `(x or y)` over bound variables: planned whole, right answers under a small branches limit", async () => {
    const service = await serviceWith(conjunctionOfOrs(BASE, 14), { limits: { branches: 100 } });
    const facts = (skip: number) =>
      Array.from({ length: 14 }, (_, i) => i).flatMap((i) =>
        i === skip
          ? []
          : [
              {
                predicate: "has_relation",
                args: [doc("d"), { type: "String", id: `${i % 2 ? "a" : "b"}${i}` }, user("ada")],
              },
            ],
      );
    await service.batch([{ inserts: facts(5) }]);
    expect((await authorize(service)).body).toEqual({ allowed: false });
    await service.batch([{ inserts: facts(-1) }]);
    expect((await authorize(service)).body).toEqual({ allowed: true });
  });

  it("branches after expanding `or`: 422 over the limit; a small expansion answers", async () => {
    const refused = await serviceWith(bindingCalls(BASE, 14), { limits: { branches: 1000 } });
    const { status, message } = await refusal(authorize(refused));
    expect(status).toBe(422);
    expect(message).toContain("1000 branches");
    expect(message).toContain("`--max-branches`");
    expect(message).toContain("`limits.branches`");
    const small = await serviceWith(conjunctionOfOrs(BASE, 3));
    const facts = [0, 1, 2].map((i) => ({
      predicate: "has_relation",
      args: [doc("d"), { type: "String", id: i === 1 ? "b1" : `a${i}` }, user("ada")],
    }));
    await small.batch([{ inserts: facts }]);
    expect((await authorize(small)).body).toEqual({ allowed: true });
  });

  it("planner steps: 422 naming `--max-plan-steps`", async () => {
    const service = await serviceWith(bindingCalls(BASE, 6), { limits: { planSteps: 50 } });
    const { status, message } = await refusal(authorize(service));
    expect(status).toBe(422);
    expect(message).toMatch(/limit of 50 planner steps .*`--max-plan-steps`/);
  });

  it("the per-request deadline: 422 naming `--request-timeout-ms`, then the service answers again", async () => {
    // Planning this policy takes tens of seconds; the deadline leaves the two policy posts
    // (checked in a worker within it) room on a loaded machine.
    const service = await serviceWith(bindingCalls(BASE, 14), {
      limits: { requestMs: 1000, branches: 1_000_000, planSteps: 100_000_000 },
    });
    const { status, message } = await refusal(authorize(service));
    expect(status).toBe(422);
    expect(message).toMatch(/limit of 1000 milliseconds .*`--request-timeout-ms`/);
    await service.postPolicy({ src: BASE, filename: null }, {});
    expect((await authorize(service)).body).toEqual({ allowed: false });
  });

  it("rules per head, rule depth and policy size are checked when a policy is posted", async () => {
    const service = await serviceWith(BASE, {
      limits: { rulesPerHead: 20, ruleDepth: 30, policyBytes: 20_000 },
    });
    const heads = (n: number) =>
      Array.from({ length: n }, (_, i) => `f(d: Doc) if has_relation(d, "r${i}", d);`).join("\n");
    const chain = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `c${i}(d: Doc) if c${i + 1}(d);`).join("\n")}\nc${n}(d: Doc) if has_relation(d, "x", d);`;
    const post = (src: string) => service.postPolicy({ src: BASE + src, filename: null }, {});
    expect((await post(heads(20))).status ?? 200).toBe(200);
    const many = await refusal(post(heads(21)));
    expect(many).toMatchObject({ status: 422 });
    expect(many.message).toMatch(
      /21 rules for `f\/1`.*limit of 20 rules per head.*`--max-rules-per-head`/,
    );
    expect((await post(chain(25))).status ?? 200).toBe(200);
    const deep = await refusal(post(chain(40)));
    expect(deep.status).toBe(422);
    expect(deep.message).toMatch(/limit of 30 rule-graph depth.*`--max-rule-depth`/);
    const big = await refusal(post(`# ${"x".repeat(20_000)}\n`));
    expect(big.status).toBe(413);
    expect(big.message).toMatch(/limit of 20000 policy size in bytes.*`--max-policy-bytes`/);
  });

  it("evaluation steps of a policy's tests: 422 naming `--max-evaluation-steps`", async () => {
    const policy = `${BASE}test "viewers read" {
  setup { has_role(User{"ada"}, "viewer", Doc{"d"}); }
  assert allow(User{"ada"}, "read", Doc{"d"});
}
`;
    const limited = await serviceWith(BASE, { limits: { evaluationSteps: 1 } });
    const { status, message } = await refusal(
      limited.postPolicy({ src: policy, filename: null }, {}),
    );
    expect(status).toBe(422);
    expect(message).toMatch(/limit of 1 evaluation steps.*`--max-evaluation-steps`/);
    const service = await serviceWith(BASE);
    expect((await service.postPolicy({ src: policy, filename: null }, {})).status ?? 200).toBe(200);
  });

  it("calls per query and ids per request are refused before any work", async () => {
    const service = await serviceWith(BASE, { limits: { callsPerQuery: 5, idsPerRequest: 100 } });
    const calls = await refusal(
      service.evaluateQuery({
        ...allowQuery(0, ["d"]),
        calls: Array.from({ length: 5 }, (_, i) => ["allow", ["a", "b", `c${i}`]]),
        constraints: {
          ...allowQuery(0, ["d"]).constraints,
          ...Object.fromEntries(
            Array.from({ length: 5 }, (_, i) => [`c${i}`, { type: "Doc", ids: ["d"] }]),
          ),
        },
      }),
    );
    expect(calls.status).toBe(422);
    expect(calls.message).toMatch(
      /6 different calls: over the limit of 5 different calls per query.*`--max-calls`/,
    );
    const ids = await refusal(
      service.evaluateQuery(allowQuery(0, Array.from({ length: 200 }, String))),
    );
    expect(ids.status).toBe(422);
    expect(ids.message).toMatch(/limit of 100 ids per request.*`--max-ids`/);
    expect((await service.evaluateQuery(allowQuery(0, ["d"]))).body).toEqual({ results: [] });
  });

  it("body size over HTTP: 413 naming `--max-body-bytes`", async () => {
    const service = await serviceWith(BASE);
    const app = createApp({
      service,
      apiKeys: ["k"],
      logger: { info() {}, error() {} },
      maxBodyBytes: 1000,
    });
    const post = (body: string) =>
      app.request("/api/authorize", {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body,
      });
    const big = await post(JSON.stringify({ pad: "x".repeat(2000) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toMatch(
      /1000 bytes.*`--max-body-bytes`/,
    );
    const small = await post(
      JSON.stringify({
        actor_type: "User",
        actor_id: "a",
        action: "read",
        resource_type: "Doc",
        resource_id: "d",
      }),
    );
    expect(small.status).toBe(200);
  });
});

describe("bad input is a 4xx or stored exactly", () => {
  it("a policy's filename and comments keep NUL and control characters through GET /policy", async () => {
    const service = await serviceWith(BASE);
    const src = `# NUL \u0000, SOH \u0001, BEL \u0007 and \u001f\n${BASE}`;
    const filename = "odd\u0000\u0001name.polar";
    expect((await service.postPolicy({ src, filename }, {})).status ?? 200).toBe(200);
    expect((await service.getPolicy({})).body).toEqual({ policy: { filename, src } });
  });

  it("a fact with NUL is a 400 naming it; ids with NUL in questions answer negatively", async () => {
    const service = await serviceWith(BASE);
    const bad = await refusal(service.batch([{ inserts: [role("a\u0000", "d")] }]));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/NUL/);
    expect(bad.message).toContain("has_role");
    const asked = await service.authorize({
      actor_type: "User",
      actor_id: "a\u0000",
      action: "read",
      resource_type: "Doc",
      resource_id: "d\u0000",
    });
    expect(asked.body).toEqual({ allowed: false });
    const bindings = `facts:\n  "has_role(User:_, String:_, Doc:_)":\n    query: SELECT u, r, d FROM roles\n`;
    const local = await service.authorizeQuery({
      query: {
        actor_type: "User",
        actor_id: "u\u0000",
        action: "read",
        resource_type: "Doc",
        resource_id: "d",
      },
      data_bindings: bindings,
    });
    expect(local.body).toHaveProperty("sql");
  });

  it("a batch delete with 9 arguments deletes nothing; an insert with 9 is a 400 naming the limit", async () => {
    const service = await serviceWith(BASE);
    const args = Array.from({ length: 9 }, (_, i) => doc(`x${i}`));
    const deleted = await service.batch([{ deletes: [{ predicate: "wide", args }] }]);
    expect(deleted.body).toEqual({ message: "1 changeset applied" });
    const inserted = await refusal(service.batch([{ inserts: [{ predicate: "wide", args }] }]));
    expect(inserted.status).toBe(400);
    expect(inserted.message).toMatch(/more than 8 arguments/);
  });
});
