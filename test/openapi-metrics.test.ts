/**
 * `GET /api/openapi.json` (public; every served route documented, generated from the zod
 * schemas) and `GET /metrics` (behind the API key; Prometheus counters and histograms).
 * Real answers of a real service are held to the documented schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { PolarService } from "../src/api/service.js";
import { createApp, documentedRoutes } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { ROUTES } from "../src/http/routes.js";
import { createService } from "../src/service/service.js";
import { fakeService } from "./http-fake-service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "openapi-test-key";
const auth = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };

interface OpenApi {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        summary: string;
        security?: unknown[];
        requestBody?: { content: Record<string, { schema: unknown }> };
        responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
      }
    >
  >;
  components: { securitySchemes: Record<string, unknown> };
}

async function documentOf(app: ReturnType<typeof createApp>): Promise<OpenApi> {
  const res = await app.request("/api/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as OpenApi;
}

describe("GET /api/openapi.json", () => {
  const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });

  it("is served without a key, as OpenAPI 3.1 with bearer security", async () => {
    const doc = await documentOf(app);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
    expect(doc.paths["/api/authorize"]!.post!.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths["/health"]!.get!.security).toBeUndefined();
  });

  it("documents every route the app serves", async () => {
    const doc = await documentOf(app);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    // The `/api` table, and every route registered on the app itself (the catch-all aside).
    const served = [
      ...ROUTES.map((route) => `${route.method} /api${route.path}`),
      ...app.routes
        .filter((route) => route.method !== "ALL" && !route.path.includes("*"))
        .map((route) => `${route.method} ${route.path}`),
    ];
    expect(served.length).toBeGreaterThan(ROUTES.length);
    for (const route of served) expect(documented, `${route} is not documented`).toContain(route);
    expect(documented.size).toBe(new Set(served).size);
  });

  it("has request bodies, answers and errors from the zod schemas", async () => {
    const doc = await documentOf(app);
    const authorize = doc.paths["/api/authorize"]!.post!;
    expect(authorize.requestBody!.content["application/json"]!.schema).toMatchObject({
      type: "object",
      required: ["actor_type", "actor_id", "action", "resource_type", "resource_id"],
    });
    expect(authorize.responses["200"]!.content!["application/json"]!.schema).toMatchObject({
      properties: { allowed: { type: "boolean" } },
    });
    expect(Object.keys(authorize.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "413",
      "415",
      "500",
    ]);
    expect(authorize.responses["401"]!.content!["application/json"]!.schema).toMatchObject({
      properties: { message: { type: "string" } },
    });
    const policy = doc.paths["/api/policy"]!.post!;
    expect(Object.keys(policy.responses)).toContain("202");
    expect(policy.responses["400"]!.content!["application/json"]!.schema).toMatchObject({
      properties: { error_type: { enum: ["Validation", "TestsFailed"] } },
    });
    const metrics = doc.paths["/metrics"]!.get!;
    expect(Object.keys(metrics.responses["200"]!.content!)).toEqual(["text/plain"]);
    for (const route of ROUTES) {
      const entry = doc.paths[`/api${route.path}`]![route.method.toLowerCase()]!;
      expect(Boolean(entry.requestBody), route.path).toBe(route.body === "json");
    }
  });
});

describe("documented answers match real answers", () => {
  let service: PolarService;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    service = await createService({ pool: sharedWorkerPool() });
    app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
  });
  afterAll(async () => {
    await service?.close();
  });

  const policy = `actor User {}
resource Org { roles = ["member"]; permissions = ["read"]; "read" if "member"; }`;
  const role = {
    predicate: "has_role",
    args: [
      { type: "User", id: "bob" },
      { type: "String", id: "member" },
      { type: "Org", id: "acme" },
    ],
  };
  const carol = { ...role, args: [{ type: "User", id: "carol" }, ...role.args.slice(1)] };
  const question = { actor_type: "User", actor_id: "bob", action: "read", resource_type: "Org" };
  const bindings = "sql_types:\n  Org: text\n";
  const samples: [string, string, unknown?][] = [
    ["POST", "/policy", { src: policy, filename: "app.polar" }],
    ["GET", "/policy"],
    ["GET", "/policy_metadata"],
    ["POST", "/batch", [{ inserts: [role] }]],
    ["GET", "/facts?predicate=has_role&args.0.type=User"],
    ["GET", "/export_facts?page_size=1"],
    ["POST", "/authorize", { ...question, resource_id: "acme" }],
    ["POST", "/authorize_resources", { ...question, resources: [{ type: "Org", id: "acme" }] }],
    ["POST", "/list", { ...question, page_size: 10_000 }],
    ["POST", "/actions", { ...question, resource_id: "acme" }],
    [
      "POST",
      "/evaluate_query",
      {
        predicate: ["allow", ["u", "a", "r"]],
        constraints: {
          u: { type: "User", ids: ["bob"] },
          a: { type: "String", ids: null },
          r: { type: "Org", ids: null },
        },
      },
    ],
    [
      "POST",
      "/authorize_query",
      { query: { ...question, resource_id: "acme" }, data_bindings: bindings },
    ],
    [
      "POST",
      "/actions_query",
      { query: { ...question, resource_id: "acme" }, data_bindings: bindings },
    ],
    ["POST", "/list_query", { query: question, column: "orgs.id", data_bindings: bindings }],
    [
      "POST",
      "/evaluate_query_local",
      {
        query: {
          predicate: ["allow", ["u", "a", "r"]],
          constraints: {
            u: { type: "User", ids: ["bob"] },
            a: { type: "String", ids: ["read"] },
            r: { type: "Org", ids: null },
          },
        },
        data_bindings: bindings,
        mode: { mode: "filter", query_var: "r", output_column_name: "orgs.id" },
      },
    ],
    ["POST", "/explain", { ...question, resource_id: "acme" }],
    ["POST", "/policy/preview", { src: policy.replace('"read" if "member";', ""), page_size: 1 }],
    // The 1.x routes.
    ["POST", "/facts", carol],
    ["DELETE", "/facts", carol],
    ["POST", "/bulk_load", [carol]],
    ["POST", "/bulk_delete", [carol]],
    ["POST", "/bulk", { delete: [], tell: [carol] }],
    ["POST", "/bulk_actions", [{ ...question, resource_id: "acme" }]],
    [
      "POST",
      "/query",
      {
        fact: {
          predicate: "has_role",
          args: [{ type: "User" }, { type: "String", id: "member" }, { type: null, id: null }],
        },
      },
    ],
    ["GET", "/stats"],
    ["POST", "/expect", { request_id: "x", expected: true }],
    ["POST", "/clear_data"],
  ];

  it("for every route of the table", async () => {
    const schemas = new Map(documentedRoutes().map((r) => [`${r.method} ${r.path}`, r.doc.reply]));
    const asked = new Set<string>();
    for (const [method, target, body] of samples) {
      const path = `/api${target.split("?")[0]}`;
      const res = await app.request(`/api${target}`, {
        method,
        headers: auth,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const json = await res.json();
      expect([200, 202], `${method} ${target}: ${JSON.stringify(json)}`).toContain(res.status);
      const schema = schemas.get(`${method} ${path}`) as z.ZodType;
      expect(schema.safeParse(json).error, `${method} ${target}`).toBeUndefined();
      asked.add(`${method} ${path}`);
    }
    expect([...asked].sort()).toEqual(ROUTES.map((r) => `${r.method} /api${r.path}`).sort());
    const health = await app.request("/health");
    expect(schemas.get("GET /health")!.safeParse(await health.json()).success).toBe(true);
  });

  it("export_facts pages through every fact once and refuses bad paging", async () => {
    const inserts = Array.from({ length: 7 }, (_, i) => ({
      ...role,
      args: [{ type: "User", id: `u${i}` }, ...role.args.slice(1)],
    }));
    await service.batch([{ inserts }]);
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const query: string = token === null ? "" : `&page_token=${token}`;
      const res = await app.request(`/api/export_facts?page_size=3${query}`, { headers: auth });
      const page = (await res.json()) as { facts: unknown[]; next_page_token: string | null };
      expect(page.facts.length).toBeLessThanOrEqual(3);
      seen.push(...page.facts.map((f) => JSON.stringify(f)));
      token = page.next_page_token;
    } while (token !== null);
    expect(seen.sort()).toEqual(inserts.map((f) => JSON.stringify(f)).sort());
    for (const [query, message] of [
      ["page_size=0", "`page_size` must be a number from 1 to 10000"],
      ["page_size=10001", "`page_size` must be a number from 1 to 10000"],
      ["page_size=abc", "`page_size` must be a number from 1 to 10000"],
      ["page_token=x'%20OR%201=1", "`page_token` is not a valid page token"],
    ]) {
      const res = await app.request(`/api/export_facts?${query}`, { headers: auth });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message });
    }
  });
});

describe("GET /metrics", () => {
  const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });

  it("needs the API key", async () => {
    expect((await app.request("/metrics")).status).toBe(401);
    const wrong = await app.request("/metrics", { headers: { Authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: "invalid API key" });
  });

  it("counts requests by route, method and status, with latency histograms", async () => {
    for (let i = 0; i < 3; i++) {
      await app.request("/api/authorize", { method: "POST", headers: auth, body: "{}" });
    }
    await app.request("/api/authorize", { method: "POST", body: "{}" });
    await app.request("/api/no-such-route-4711", { headers: auth });
    const res = await app.request("/metrics", { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain(
      'polar_sql_http_requests_total{route="/api/authorize",method="POST",status="200"} 3',
    );
    expect(text).toContain(
      'polar_sql_http_requests_total{route="/api/authorize",method="POST",status="401"} 1',
    );
    expect(text).toContain(
      'polar_sql_http_requests_total{route="unmatched",method="GET",status="404"} 1',
    );
    // Raw paths never become labels.
    expect(text).not.toContain("no-such-route-4711");
    expect(text).toMatch(
      /polar_sql_http_request_duration_seconds_bucket\{le="0\.001",route="\/api\/authorize",method="POST"\} \d+/,
    );
    expect(text).toContain(
      'polar_sql_http_request_duration_seconds_count{route="/api/authorize",method="POST"} 4',
    );
  });
});

describe("GET /metrics, the store's reads in messages", () => {
  const scrape = async (service: PolarService) => {
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    return (await app.request("/metrics", { headers: auth })).text();
  };

  it("reports the counts the store gives at each scrape", async () => {
    let counts = { reads: 0, messages: 0 };
    const service = { ...fakeService(), readMessages: () => counts };
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    counts = { reads: 40, messages: 9 };
    let text = await (await app.request("/metrics", { headers: auth })).text();
    expect(text).toContain("polar_sql_store_recurring_reads_total 40");
    expect(text).toContain("polar_sql_store_read_messages_total 9");
    counts = { reads: 56, messages: 11 };
    text = await (await app.request("/metrics", { headers: auth })).text();
    expect(text).toContain("polar_sql_store_recurring_reads_total 56");
    expect(text).toContain("polar_sql_store_read_messages_total 11");
  });

  it("has no such series for a store whose reads go one by one", async () => {
    const text = await scrape({ ...fakeService(), readMessages: () => null });
    expect(text).toContain("polar_sql_http_requests_total");
    expect(text).not.toContain("polar_sql_store_");
    expect(await scrape(fakeService())).not.toContain("polar_sql_store_");
  });
});
