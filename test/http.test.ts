import { describe, expect, it } from "vitest";
import { createApp, type HttpLogger } from "../src/http/app.js";
import { MAX_BODY_BYTES } from "../src/http/body.js";
import { ROUTES } from "../src/http/routes.js";
import { fakeService } from "./http-fake-service.js";

const KEY = "test-key-1";
const JSON_HEADERS = { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` };

function capturingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const logger: HttpLogger = {
    info: (fields, message) => lines.push({ level: "info", fields: { ...fields }, message }),
    error: (fields, message) => lines.push({ level: "error", fields: { ...fields }, message }),
  };
  return { logger, lines };
}

function setup() {
  const service = fakeService();
  const { logger, lines } = capturingLogger();
  const app = createApp({ service, apiKeys: [KEY, "second-key"], logger });
  const call = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { ...JSON_HEADERS, ...(init.headers ?? {}) } });
  return { service, app, lines, call };
}

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });

describe("routes", () => {
  const bodyRoutes: [string, string][] = [
    ["/api/authorize", "authorize"],
    ["/api/explain", "explain"],
    ["/api/authorize_resources", "authorizeResources"],
    ["/api/list", "list"],
    ["/api/actions", "actions"],
    ["/api/evaluate_query", "evaluateQuery"],
    ["/api/batch", "batch"],
    ["/api/authorize_query", "authorizeQuery"],
    ["/api/actions_query", "actionsQuery"],
    ["/api/list_query", "listQuery"],
    ["/api/evaluate_query_local", "evaluateQueryLocal"],
    ["/api/facts", "insertFact"],
    ["/api/bulk_load", "bulkLoad"],
    ["/api/bulk_delete", "bulkDelete"],
    ["/api/bulk", "bulk"],
    ["/api/bulk_actions", "bulkActions"],
    ["/api/query", "queryFacts"],
  ];

  it.each(bodyRoutes)("POST %s passes the decoded body to %s", async (path, method) => {
    const { call, service } = setup();
    const body = { actor_type: "User", actor_id: "ada", nested: [1, { x: null }] };
    const res = await call(path, post(body));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ method, body });
    expect(service.calls.map((c) => c.method)).toEqual([method]);
    expect(service.calls[0]!.args[0]).toEqual(body);
  });

  it.each(bodyRoutes)("POST %s without a body is a 400", async (path) => {
    const { call, service } = setup();
    const res = await call(path, { method: "POST" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "request body is empty; expected JSON" });
    expect(service.calls).toEqual([]);
  });

  it("GET /policy passes `id` only when given", async () => {
    const { call, service } = setup();
    expect(await (await call("/api/policy")).json()).toEqual({ method: "getPolicy", query: {} });
    expect(await (await call("/api/policy?id=3")).json()).toEqual({
      method: "getPolicy",
      query: { id: "3" },
    });
    expect(service.calls.map((c) => c.args)).toEqual([[{}], [{ id: "3" }]]);
  });

  it("POST /policy passes body and `fail_fast`, sends OsoOffset, and keeps status 202", async () => {
    const { call } = setup();
    const first = await call("/api/policy?fail_fast=true", post({ src: "actor User {}" }));
    expect(first.status).toBe(200);
    expect(first.headers.get("OsoOffset")).toBe("1");
    expect(await first.json()).toEqual({
      method: "postPolicy",
      body: { body: { src: "actor User {}" }, query: { fail_fast: "true" } },
    });
    const same = await call("/api/policy", post({ src: "unchanged" }));
    expect(same.status).toBe(202);
    expect(same.headers.get("OsoOffset")).toBe("2");
  });

  it("GET /policy_metadata accepts `version` and `id`", async () => {
    const { call } = setup();
    for (const q of ["", "?version=2", "?id=2"]) {
      const res = await call(`/api/policy_metadata${q}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ metadata: { resources: {} } });
    }
  });

  it("GET /facts passes the query-string pairs and returns a bare array", async () => {
    const { call } = setup();
    const res = await call("/api/facts?predicate=has_role&args.0.type=User&args.0.id=ada");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      ["predicate", "has_role"],
      ["args.0.type", "User"],
      ["args.0.id", "ada"],
    ]);
  });

  it("a question carries OsoOffset down as its reading; other routes catch the service up first; a malformed one is ignored", async () => {
    const { call, service } = setup();
    await call("/api/authorize", { ...post({}), headers: { OsoOffset: "42" } });
    expect(service.calls.map((c) => c.method)).toEqual(["authorize"]);
    expect(service.calls[0]!.args[1]).toEqual({ atLeast: 42 });
    await call("/api/facts?predicate=x", { headers: { OsoOffset: "43" } });
    expect(service.calls.slice(1).map((c) => [c.method, c.args[0]])).toEqual([
      ["catchUp", 43],
      ["getFacts", new Map([["predicate", "x"]])],
    ]);
    for (const offset of ["-1", "4.2", "x1", "9".repeat(16)]) {
      const before = service.calls.length;
      await call("/api/authorize", { ...post({}), headers: { OsoOffset: offset } });
      const calls = service.calls.slice(before);
      expect(
        calls.map((c) => c.method),
        offset,
      ).toEqual(["authorize"]);
      expect(calls[0]!.args[1], offset).toEqual({});
    }
  });

  it("POST /batch sends OsoOffset; reads do not", async () => {
    const { call } = setup();
    const batch = await call("/api/batch", post([{ inserts: [] }]));
    expect(batch.headers.get("OsoOffset")).toBe("1");
    const read = await call("/api/authorize", post({}));
    expect(read.headers.get("OsoOffset")).toBeNull();
  });

  it("DELETE /facts passes the decoded body and sends OsoOffset; without a body it is a 400", async () => {
    const { call, service } = setup();
    const body = { predicate: "has_role", args: [{ type: null, id: null }] };
    const res = await call("/api/facts", { method: "DELETE", body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: "deleteFact", body });
    expect(res.headers.get("OsoOffset")).toBe("1");
    const empty = await call("/api/facts", { method: "DELETE" });
    expect(empty.status).toBe(400);
    expect(service.calls).toEqual([{ method: "deleteFact", args: [body] }]);
  });

  it("the 1.x writes send OsoOffset; GET /stats answers counts", async () => {
    const { call } = setup();
    for (const path of ["/api/facts", "/api/bulk_load", "/api/bulk_delete", "/api/bulk"]) {
      const res = await call(path, post([]));
      expect(res.headers.get("OsoOffset"), path).toMatch(/^[0-9]+$/);
    }
    const stats = await call("/api/stats");
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual({ num_roles: 0, num_relations: 0, num_facts: 0 });
    expect((await call("/api/query", post({}))).headers.get("OsoOffset")).toBeNull();
  });

  it("POST /clear_data accepts an empty body with a JSON content type", async () => {
    const { call, service } = setup();
    const res = await call("/api/clear_data", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: "cleared" });
    expect(res.headers.get("OsoOffset")).toBe("1");
    expect(service.calls).toEqual([{ method: "clearData", args: [] }]);
  });

  it("GETs ignore an empty body with a JSON content type", async () => {
    const { call } = setup();
    const res = await call("/api/policy_metadata", { method: "GET" });
    expect(res.status).toBe(200);
  });

  it("POST /expect is a stub", async () => {
    const { call, service } = setup();
    const res = await call("/api/expect", post({ request_id: "r1", expected: true }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: "ok" });
    expect(service.calls).toEqual([]);
  });

  it("GET /health needs no key", async () => {
    const { app } = setup();
    const res = await app.request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});

describe("authentication", () => {
  const cases = ROUTES.map((r) => [r.method, `/api${r.path}`] as const);

  it.each(cases)("%s %s refuses a missing, wrong or malformed key", async (method, path) => {
    const { app, service } = setup();
    const init = (authorization?: string) => ({
      method,
      headers: {
        "Content-Type": "application/json",
        ...(authorization !== undefined && { Authorization: authorization }),
      },
      ...(method === "POST" && { body: "{}" }),
    });
    const expected: [string | undefined, string][] = [
      [undefined, "missing `Authorization: Bearer <key>` header"],
      ["Bearer wrong-key", "invalid API key"],
      [`Bearer ${KEY}x`, "invalid API key"],
      [`Bearer ${KEY.slice(0, -1)}`, "invalid API key"],
      [KEY, "malformed `Authorization` header; expected `Bearer <key>`"],
      [`Basic ${KEY}`, "malformed `Authorization` header; expected `Bearer <key>`"],
      ["Bearer", "malformed `Authorization` header; expected `Bearer <key>`"],
      [`Bearer ${KEY} extra`, "malformed `Authorization` header; expected `Bearer <key>`"],
      ["", "missing `Authorization: Bearer <key>` header"],
    ];
    for (const [header, message] of expected) {
      const res = await app.request(path, init(header));
      expect(res.status, String(header)).toBe(401);
      expect(await res.json()).toEqual({ message });
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    }
    expect(service.calls).toEqual([]);
  });

  it("accepts every configured key, surrounding whitespace and a lowercase scheme", async () => {
    const { app } = setup();
    for (const header of [`Bearer ${KEY}`, "Bearer second-key", `  bearer   ${KEY}  `]) {
      const res = await app.request("/api/policy_metadata", { headers: { Authorization: header } });
      expect(res.status, header).toBe(200);
    }
  });

  it("unknown routes under /api also need a key", async () => {
    const { app } = setup();
    expect((await app.request("/api/nope")).status).toBe(401);
  });

  it("refuses to build an app without keys", () => {
    const { logger } = capturingLogger();
    expect(() => createApp({ service: fakeService(), apiKeys: [], logger })).toThrow(
      "at least one API key is required",
    );
  });
});

describe("errors", () => {
  it("404 for unknown routes, inside and outside /api", async () => {
    const { call } = setup();
    for (const path of ["/api/nope", "/api/authorize/", "/nope", "/"]) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { message: string }).message).toMatch(/^no route `GET /);
    }
  });

  it("405 with Allow for a wrong method on a known route", async () => {
    const { call, service } = setup();
    const cases: [string, string, string][] = [
      ["GET", "/api/authorize", "POST"],
      ["DELETE", "/api/policy", "GET, POST"],
      ["PUT", "/api/facts", "GET, POST, DELETE"],
      ["POST", "/api/stats", "GET"],
      ["PUT", "/api/batch", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("Allow")).toBe(allow);
      expect(await res.json()).toEqual({
        message: `method ${method} is not allowed on \`${path}\``,
      });
    }
    expect(service.calls).toEqual([]);
  });

  it("413 for a body of 10 MiB, but a body just below passes", async () => {
    const { call, service } = setup();
    const padding = (bytes: number) => JSON.stringify({ pad: "x".repeat(bytes - 10) });
    const below = padding(MAX_BODY_BYTES - 1);
    expect(Buffer.byteLength(below)).toBe(MAX_BODY_BYTES - 1);
    const ok = await call("/api/authorize", { method: "POST", body: below });
    expect(ok.status).toBe(200);
    const at = padding(MAX_BODY_BYTES);
    const res = await call("/api/authorize", { method: "POST", body: at });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /^request body must be smaller than 10485760 bytes/,
    );
    expect(service.calls).toHaveLength(1);
  });

  it("413 from Content-Length alone", async () => {
    const { call } = setup();
    const res = await call("/api/authorize", {
      method: "POST",
      body: "{}",
      headers: { "Content-Length": String(MAX_BODY_BYTES) },
    });
    expect(res.status).toBe(413);
  });

  it("415 for a body that is not JSON; JSON types with parameters and +json pass", async () => {
    const { call } = setup();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await call("/api/authorize", {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": type },
      });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({
        message: `unsupported content type \`${type}\`; send \`application/json\``,
      });
    }
    for (const type of [
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/vnd.api+json",
    ]) {
      const res = await call("/api/authorize", {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": type },
      });
      expect(res.status, type).toBe(200);
    }
  });

  it("400 for malformed JSON, invalid UTF-8 and deep nesting", async () => {
    const { call, service } = setup();
    const truncated = await call("/api/authorize", { method: "POST", body: '{"actor_type": "Us' });
    expect(truncated.status).toBe(400);
    expect(((await truncated.json()) as { message: string }).message).toMatch(
      /^request body is not valid JSON: /,
    );
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const invalid = await call("/api/authorize", { method: "POST", body: bytes });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ message: "request body is not valid UTF-8" });
    const deep = await call("/api/authorize", {
      method: "POST",
      body: "[".repeat(100_000) + "]".repeat(100_000),
    });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual({ message: "request body is nested deeper than 512 levels" });
    const ok = await call("/api/authorize", {
      method: "POST",
      body: "[".repeat(512) + "]".repeat(512),
    });
    expect(ok.status).toBe(200);
    // Wide, not deep: more brackets than the limit, two levels.
    const wide = await call("/api/authorize", {
      method: "POST",
      body: `[${"[],".repeat(1000)}[]]`,
    });
    expect(wide.status).toBe(200);
    expect(service.calls).toHaveLength(2);
  });

  it("brackets inside strings do not count as nesting", async () => {
    const { call } = setup();
    const res = await call("/api/authorize", post({ s: "[".repeat(2000), t: '\\"[[' }));
    expect(res.status).toBe(200);
  });

  it("maps ApiError to its status and body", async () => {
    const { call } = setup();
    const res = await call("/api/authorize", post({ fail: "api" }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: "`actor_id` must not be empty",
      error_type: "Generic",
    });
  });

  it("maps any other throw to 500 without internals, and logs it with the request id", async () => {
    const { call, lines } = setup();
    const res = await call("/api/list", {
      ...post({ fail: "crash" }),
      headers: { "X-Request-ID": "req-77" },
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ message: "internal error (request id req-77)" });
    expect(text).not.toMatch(/secret|stack|Error/);
    const logged = lines.find((l) => l.level === "error");
    expect(logged?.fields.reqId).toBe("req-77");
    expect(String((logged?.fields.err as Error | undefined)?.message)).toMatch(/secret/);
  });
});

describe("request ids and logs", () => {
  it("echoes X-Request-ID on success and on every kind of error", async () => {
    const { app } = setup();
    const requests: [string, RequestInit][] = [
      ["/api/authorize", { method: "POST", body: "{}", headers: JSON_HEADERS }],
      ["/api/authorize", { method: "POST", body: "{}" }],
      ["/api/nope", { headers: JSON_HEADERS }],
      ["/api/authorize", { method: "GET", headers: JSON_HEADERS }],
      ["/api/authorize", { method: "POST", body: "{", headers: JSON_HEADERS }],
      ["/health", {}],
      ["/api/policy", { headers: JSON_HEADERS }],
    ];
    for (const [path, init] of requests) {
      const res = await app.request(path, {
        ...init,
        headers: { ...(init.headers as object), "X-Request-ID": "abc-123" },
      });
      expect(res.headers.get("X-Request-ID"), path).toBe("abc-123");
      expect(res.headers.get("Server-Timing"), path).toMatch(/^oso;dur=\d+(\.\d+)?$/);
    }
  });

  it("generates a UUID when the request has none or an unusable one", async () => {
    const { call } = setup();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const a = (await call("/api/policy")).headers.get("X-Request-ID");
    const b = (
      await call("/api/policy", { headers: { "X-Request-ID": "x".repeat(201) } })
    ).headers.get("X-Request-ID");
    expect(a).toMatch(uuid);
    expect(b).toMatch(uuid);
    expect(a).not.toBe(b);
  });

  it("logs one line per request with id, environment, method, route, status and latency", async () => {
    const { call, lines } = setup();
    await call("/api/authorize", { ...post({}), headers: { "X-Request-ID": "r-1" } });
    await call("/api/authorize", { method: "GET", headers: { "X-Request-ID": "r-2" } });
    await call("/api/zzz", { headers: { "X-Request-ID": "r-3" } });
    expect(lines.map((l) => ({ ...l.fields, ms: typeof l.fields.ms }))).toEqual([
      {
        reqId: "r-1",
        environment: "default",
        method: "POST",
        route: "POST /api/authorize",
        status: 200,
        ms: "number",
      },
      {
        reqId: "r-2",
        environment: "default",
        method: "GET",
        route: "/api/authorize",
        status: 405,
        ms: "number",
      },
      {
        reqId: "r-3",
        environment: "default",
        method: "GET",
        route: "unmatched",
        status: 404,
        ms: "number",
      },
    ]);
  });

  it("adds a Server-Timing entry", async () => {
    const { call } = setup();
    const res = await call("/api/policy");
    expect(res.headers.get("Server-Timing")).toMatch(/^oso;dur=[0-9.]+$/);
  });
});
