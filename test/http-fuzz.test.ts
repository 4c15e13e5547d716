/**
 * Hostile bodies over a real socket: the adapter answers 4xx `{message}` (or 200 when the body
 * happens to be valid JSON), never a 500, never a crash, and keeps answering afterwards.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { MAX_JSON_DEPTH } from "../src/http/body.js";
import { silentLogger } from "../src/http/logger.js";
import { ROUTES } from "../src/http/routes.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { fakeService } from "./http-fake-service.js";
import { propertyRuns } from "./support/runs.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "fuzz-key";
const bodyPaths = ROUTES.filter((r) => r.body === "json").map((r) => `/api${r.path}`);
let server: ServerHandle;

beforeAll(async () => {
  const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });
  server = await startServer({ app, port: 0, host: "127.0.0.1" });
});
afterAll(() => server.close());

async function send(path: string, body: Uint8Array | string, target = server) {
  const res = await fetch(`${target.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` },
    body,
  });
  const text = await res.text();
  const json = JSON.parse(text) as unknown;
  if (res.status >= 300) {
    expect(json).toEqual({ message: expect.any(String) });
  }
  return { status: res.status, json };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return text.trim() !== "";
  } catch {
    return false;
  }
}

const path = fc.constantFrom(...bodyPaths);
const runs = { numRuns: propertyRuns(20, 60) };

describe("fuzzed bodies against the adapter", () => {
  it("arbitrary bytes: 200 exactly when they are JSON, else 400", async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.uint8Array({ maxLength: 300 }), async (p, bytes) => {
        const { status } = await send(p, bytes);
        let text: string | null;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          text = null;
        }
        expect(status).toBe(text !== null && isJson(text) ? 200 : 400);
      }),
      runs,
    );
  });

  it("truncated JSON is a 400 unless the prefix is itself JSON", async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.jsonValue(), fc.double({ min: 0, max: 1 }), async (p, v, cut) => {
        const text = JSON.stringify(v);
        const prefix = text.slice(0, Math.floor(text.length * cut));
        const { status } = await send(p, prefix);
        expect(status).toBe(isJson(prefix) ? 200 : 400);
      }),
      runs,
    );
  });

  it("invalid UTF-8 anywhere is a 400", async () => {
    const invalid = fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]);
    await fc.assert(
      fc.asyncProperty(path, fc.jsonValue(), invalid, fc.nat(), async (p, v, bad, at) => {
        const bytes = Buffer.from(JSON.stringify({ v }));
        const cut = 1 + (at % (bytes.length - 1));
        const body = Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]);
        const { status, json } = await send(p, body);
        expect(status).toBe(400);
        expect(json).toEqual({ message: "request body is not valid UTF-8" });
      }),
      runs,
    );
  });

  it("deep nesting up to 100k levels: 200 within the limit, 400 beyond", async () => {
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        async (p, depth, objects) => {
          const open = objects ? '{"a":' : "[";
          const close = objects ? "}" : "]";
          const body = open.repeat(depth - 1) + (objects ? "{}" : "[]") + close.repeat(depth - 1);
          const { status } = await send(p, body);
          expect(status).toBe(depth <= MAX_JSON_DEPTH ? 200 : 400);
        },
      ),
      { numRuns: propertyRuns(8, 20), examples: [[bodyPaths[0]!, 100_000, false]] },
    );
  });

  it("huge arrays are accepted below 10 MiB and refused at it", async () => {
    const big = JSON.stringify(Array.from({ length: 1_000_000 }, (_, i) => i % 10));
    expect((await send("/api/batch", big)).status).toBe(200);
    const tooBig = `[${"1,".repeat(5 * 1024 * 1024)}1]`;
    expect((await send("/api/batch", tooBig)).status).toBe(413);
  });

  it("the server still answers afterwards", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});

// The same kind of abuse against the real service: wrong types, missing fields, huge arrays and
// nesting inside fields reach the service's validation, which must answer 400, never 500.

const POLICY = readFileSync("examples/reference/12-2-nested-relations.polar", "utf8");
const BINDINGS = `facts:
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets
sql_types:
  Ticket: bigint
`;
const user = { type: "User", id: "ada" };
const fact = {
  predicate: "has_role",
  args: [user, { type: "String", id: "member" }, { type: "Workspace", id: "w" }],
};
const check = {
  actor_type: "User",
  actor_id: "ada",
  action: "view",
  resource_type: "Ticket",
  resource_id: "t1",
  context_facts: [fact],
};
const query = {
  predicate: ["allow", ["u", "a", "t"]],
  calls: [["has_role", ["u", "r", "w"]]],
  constraints: {
    u: { type: "User", ids: ["ada"] },
    a: { type: "String", ids: ["view"] },
    t: { type: "Ticket", ids: null },
    r: { type: "String", ids: null },
    w: { type: "Workspace", ids: null },
  },
  context_facts: [],
};
const { resource_id: _, ...listQuery } = check;
const { action: __, ...actionsQuery } = check;

/** A valid body for every route that takes one. */
const VALID: Readonly<Record<string, unknown>> = {
  "/api/policy": { src: POLICY, filename: "" },
  "/api/authorize": check,
  "/api/explain": check,
  "/api/authorize_resources": { ...listQuery, resources: [{ type: "Ticket", id: "t1" }] },
  "/api/list": { ...listQuery, page_size: 10000 },
  "/api/actions": actionsQuery,
  "/api/evaluate_query": query,
  "/api/batch": [
    { inserts: [fact] },
    {
      deletes: [
        { predicate: "has_role", args: [user, { type: null, id: null }, { type: null, id: null }] },
      ],
    },
  ],
  "/api/authorize_query": { query: check, data_bindings: BINDINGS },
  "/api/actions_query": { query: actionsQuery, data_bindings: BINDINGS },
  "/api/list_query": { query: listQuery, column: "tickets.id", data_bindings: BINDINGS },
  "/api/evaluate_query_local": {
    query,
    data_bindings: BINDINGS,
    mode: { mode: "select", query_vars_to_output_column_names: { t: "ticket" } },
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path into a JSON value (as key lists), the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...prefix, i])));
  if (value !== null && typeof value === "object") {
    return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...prefix, k])));
  }
  return here;
}

/** Replaces (or, with `undefined`, removes) the value at `path`. */
function mutate(
  value: Json,
  path: (string | number)[],
  replacement: Json | undefined,
): Json | undefined {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy: Json = Array.isArray(value) ? [...value] : { ...(value as Record<string, Json>) };
  const child = (copy as Record<string | number, Json>)[head!]!;
  const next = mutate(child, rest, replacement);
  if (next === undefined) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete (copy as Record<string, Json>)[head as string];
  } else (copy as Record<string | number, Json>)[head!] = next;
  return copy;
}

describe("fuzzed bodies against the real service", () => {
  let real: PolarService;
  let realServer: ServerHandle;

  beforeAll(async () => {
    real = await createService({ pool: sharedWorkerPool() });
    await real.postPolicy({ src: POLICY, filename: "" }, {});
    const app = createApp({ service: real, apiKeys: [KEY], logger: silentLogger });
    realServer = await startServer({ app, port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await realServer?.close();
    await real?.close();
  });

  it("every valid body is accepted", async () => {
    for (const [path, body] of Object.entries(VALID)) {
      const { status } = await send(path, JSON.stringify(body), realServer);
      expect([200, 202], path).toContain(status);
    }
  });

  it("wrong types and missing fields anywhere are a 400 or an answer, never a 500", async () => {
    const entries = Object.entries(VALID).filter(([path]) => path !== "/api/policy");
    const mutation = fc
      .constantFrom(...entries)
      .chain(([path, body]) =>
        fc.tuple(
          fc.constant(path),
          fc.constant(body as Json),
          fc.constantFrom(...pathsOf(body as Json)),
          fc.option(fc.jsonValue() as fc.Arbitrary<Json>, { nil: undefined, freq: 3 }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(mutation, async ([path, body, at, replacement]) => {
        const changed = mutate(body, at, replacement);
        const { status } = await send(
          path,
          changed === undefined ? "null" : JSON.stringify(changed),
          realServer,
        );
        expect([200, 400], `${path} ${JSON.stringify(changed)?.slice(0, 500)}`).toContain(status);
      }),
      { numRuns: propertyRuns(40, 150) },
    );
  });

  it("random JSON bodies on every route are a 400 or an answer", async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.jsonValue(), async (p, body) => {
        const { status } = await send(p, JSON.stringify(body), realServer);
        expect([200, 202, 400], `${p} ${JSON.stringify(body).slice(0, 300)}`).toContain(status);
      }),
      { numRuns: propertyRuns(20, 60) },
    );
  });

  it("huge arrays and deep nesting inside fields are refused cleanly", async () => {
    const manyFacts = Array.from({ length: 50_000 }, (_, i) => ({
      predicate: "has_rol",
      args: [{ type: "User", id: String(i) }],
    }));
    const batch = await send("/api/batch", JSON.stringify([{ inserts: manyFacts }]), realServer);
    expect(batch.status).toBe(400);
    const nested = "[".repeat(500) + "]".repeat(500);
    const deep = await send(
      "/api/authorize",
      `{"actor_type":"User","actor_id":"a","action":"v","resource_type":"T","resource_id":"1","context_facts":${nested}}`,
      realServer,
    );
    expect(deep.status).toBe(400);
    const resources = Array.from({ length: 5_000 }, (_, i) => ({ type: "Ticket", id: `t${i}` }));
    const wide = await send(
      "/api/authorize_resources",
      JSON.stringify({ ...listQuery, resources }),
      realServer,
    );
    expect(wide.status).toBe(200);
  });

  it("the real server still answers afterwards", async () => {
    const { status, json } = await send("/api/authorize", JSON.stringify(check), realServer);
    expect(status).toBe(200);
    expect(json).toEqual({ allowed: expect.any(Boolean) });
  });
});
