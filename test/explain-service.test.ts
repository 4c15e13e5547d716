/**
 * Explain in the central service and over HTTP: on SQLite, PGlite (and PostgreSQL when
 * DATABASE_URL is set), for random stored or context facts of every central family, `/explain`'s `allowed`
 * equals `/authorize`'s and the independent checker accepts every tree; `/api/explain` is
 * behind the API key and refuses a bad body exactly as `/api/authorize` does; and facts are read
 * from the store by pattern, never all at once.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { explainResponseSchema } from "../src/api/wire.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { createService, serviceOver } from "../src/service/service.js";
import { openStore } from "../src/store/store.js";
import { CENTRAL_FAMILIES, type CentralFamily, NOW } from "./support/central-families.js";
import { factModesInTurn, serviceEngines } from "./support/central-services.js";
import { type CheckedNode, check } from "./support/explain-checker.js";
import { storeThrough } from "./support/watched-store.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const RUNS = Number(process.env.CENTRAL_RUNS ?? (process.env.POLAR_SQL_LONG === "1" ? 6 : 2));

interface Explained {
  readonly allowed: boolean;
  readonly explanation: CheckedNode;
}

function programOf(family: CentralFamily): Program {
  const checked = checkPolicy([{ name: family.file, text: family.src }]);
  if (!checked.ok) throw new Error(`${family.file} does not check`);
  return checked.program;
}

describe.each(serviceEngines({ now: () => NOW }))("explain on $name", (engine) => {
  describe.each(CENTRAL_FAMILIES.map((family, index) => ({ ...family, index })))(
    "$name",
    (family) => {
      const program = programOf(family);
      const facts = fc.subarray([...family.space], {
        maxLength: Math.min(18, family.space.length),
      });

      for (const { mode, asked } of factModesInTurn(family.index, engine)) {
        it.skipIf(!asked)(
          `facts ${mode}: explain agrees with authorize and every tree checks`,
          async () => {
            const service = await engine.service();
            await service.postPolicy({ src: family.src, filename: family.file }, {});
            let allowed = 0;
            await fc.assert(
              fc.asyncProperty(facts, async (chosen) => {
                await service.clearData();
                if (mode === "stored") await service.batch([{ inserts: chosen }]);
                const context_facts = mode === "context" ? chosen : [];
                const bySource = { stored: [] as GroundFact[], context: [] as GroundFact[] };
                bySource[mode] = chosen;
                for (const actor of family.actors) {
                  for (const resource of family.resources) {
                    for (const action of family.actions[resource.type] ?? []) {
                      const body = {
                        actor_type: actor.type,
                        actor_id: actor.id,
                        action,
                        resource_type: resource.type,
                        resource_id: resource.id,
                        context_facts,
                      };
                      const question = `${actor.id} ${action} ${resource.type}:${resource.id}`;
                      const expected = (
                        (await service.authorize(body)).body as { allowed: boolean }
                      ).allowed;
                      const explained = explainResponseSchema.parse(
                        (await service.explain(body)).body,
                      );
                      expect(explained.allowed, question).toBe(expected);
                      const problems = check(
                        { program, facts: bySource, now: NOW },
                        explained.explanation,
                      );
                      expect(problems, question).toEqual([]);
                      if (expected) allowed++;
                    }
                  }
                }
              }),
              { numRuns: RUNS, examples: [[[...family.space]]] },
            );
            expect(allowed).toBeGreaterThan(0);
          },
        );
      }
    },
  );
});

describe("POST /api/explain", () => {
  const KEY = "explain-key";
  const POLICY = readFileSync("examples/reference/12-2-nested-relations.polar", "utf8");
  let service: PolarService;
  let call: (path: string, body: unknown, key?: string) => Promise<Response>;
  const body = {
    actor_type: "User",
    actor_id: "ada",
    action: "view",
    resource_type: "Ticket",
    resource_id: "t1",
    context_facts: [
      {
        predicate: "has_relation",
        args: [
          { type: "Ticket", id: "t1" },
          { type: "String", id: "project" },
          { type: "Project", id: "p1" },
        ],
      },
    ],
  };

  beforeAll(async () => {
    service = await createService({ pool: sharedWorkerPool() });
    await service.postPolicy({ src: POLICY, filename: "nested.polar" }, {});
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: "ada" },
              { type: "String", id: "contributor" },
              { type: "Project", id: "p1" },
            ],
          },
        ],
      },
    ]);
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    call = async (path, payload, key = KEY) =>
      app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
        body: typeof payload === "string" ? payload : JSON.stringify(payload),
      });
  });
  afterAll(() => service?.close());

  it("answers with the proof, using stored and context facts", async () => {
    const res = await call("/api/explain", body);
    expect(res.status).toBe(200);
    const json = (await res.json()) as Explained;
    expect(json.allowed).toBe(true);
    expect(json.explanation.goal).toBe('allow(User{"ada"}, "view", Ticket{"t1"})');
    const sources = new Set<string>();
    const walk = (node: CheckedNode) => {
      if (node.fact) sources.add(node.fact.source);
      node.children.forEach(walk);
    };
    walk(json.explanation);
    expect([...sources].sort()).toEqual(["context", "stored"]);
  });

  it("answers a denial with a note for an undeclared action", async () => {
    const res = await call("/api/explain", { ...body, action: "fly" });
    const json = (await res.json()) as Explained;
    expect(json.allowed).toBe(false);
    expect(json.explanation.note).toContain("`Ticket` does not declare the permission `fly`");
  });

  it("needs the API key", async () => {
    const res = await call("/api/explain", body, "wrong");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: expect.any(String) });
  });

  it("refuses a bad body exactly as /api/authorize does", async () => {
    const valid = body as unknown as fc.JsonValue;
    const mutated = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(...Object.keys(body)).chain((key) =>
        fc
          .tuple(fc.constant(key), fc.option(fc.jsonValue(), { nil: undefined }))
          .map(([field, value]) => {
            const copy: Record<string, unknown> = { ...(valid as Record<string, unknown>) };
            if (value === undefined) delete copy[field];
            else copy[field] = value;
            return copy;
          }),
      ),
      fc.constantFrom(
        { ...body, context_facts: [{ predicate: "has_role", args: [] }] },
        { ...body, context_facts: [{ predicate: "nope", args: [{ type: "User", id: "x" }] }] },
        { ...body, actor_id: "" },
        { ...body, actor_type: "Actor" },
        { ...body, resource_type: "Integer", resource_id: "x" },
        { ...body, actor_type: "" },
      ),
    );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(mutated, async (payload) => {
        const authorized = await call("/api/authorize", payload);
        const explained = await call("/api/explain", payload);
        const label = JSON.stringify(payload).slice(0, 300);
        expect(explained.status, label).toBe(authorized.status);
        const a = (await authorized.json()) as { message?: string; allowed?: boolean };
        const e = (await explained.json()) as { message?: string; allowed?: boolean };
        if (authorized.status === 200) expect(e.allowed, label).toBe(a.allowed);
        else {
          refused++;
          expect(e, label).toEqual(a);
        }
      }),
      { numRuns: 120 },
    );
    expect(refused).toBeGreaterThan(0);
  });
});

describe("explain reads the store by pattern", () => {
  it("every read of the fact table binds a value, and reads a few rows of thousands", async () => {
    const store = await openStore({});
    const policy = readFileSync("examples/reference/12-3-recursive-folders.polar", "utf8");
    await store.setPolicy(policy, "folders.polar");
    const s = (id: string) => ({ type: "String", id });
    const facts: GroundFact[] = [];
    for (let i = 1; i < 2000; i++) {
      const parent = { type: "Folder", id: `f${Math.floor((i - 1) / 3)}` };
      facts.push({
        predicate: "has_relation",
        args: [{ type: "Folder", id: `f${i}` }, s("parent"), parent],
      });
      facts.push({
        predicate: "has_role",
        args: [{ type: "User", id: `u${i}` }, s("reader"), { type: "Folder", id: `f${i}` }],
      });
    }
    facts.push({
      predicate: "has_relation",
      args: [{ type: "Document", id: "d" }, s("folder"), { type: "Folder", id: "f1500" }],
    });
    await store.applyBatch([{ inserts: facts }]);
    const reads: { sql: string; params: readonly unknown[] }[] = [];
    let rows = 0;
    const db = store.db;
    const watch = async <Row>(sql: string, params: readonly unknown[], result: Promise<Row[]>) => {
      const found = await result;
      if (/\bpolar_fact\b/.test(sql)) {
        reads.push({ sql, params });
        rows += found.length;
      }
      return found;
    };
    const watched = {
      ...db,
      query: <Row>(sql: string, params: readonly unknown[] = []) =>
        watch(sql, params, db.query<Row>(sql, params)),
      prepared: <Row>(sql: string, params: readonly string[]) =>
        watch(sql, params, db.prepared<Row>(sql, params)),
    };
    const service = serviceOver(storeThrough(store, watched), {
      now: () => NOW,
      pool: sharedWorkerPool(),
    });
    const ask = async (user: string) =>
      (
        await service.explain({
          actor_type: "User",
          actor_id: user,
          action: "open",
          resource_type: "Document",
          resource_id: "d",
        })
      ).body as Explained;
    // f1500's ancestors: f499, f166, f55, f18, f5, f1, f0; u5 reads f5.
    expect((await ask("u5")).allowed).toBe(true);
    expect((await ask("u7")).allowed).toBe(false);
    expect(reads.length).toBeGreaterThan(0);
    // Each read binds values: lookups by `f.i<n> = k.c<m>` (an array of the lookups' values;
    // SQLite: `k.value ->> <m>` of a JSON array), relation chains from the question's values.
    for (const read of reads) {
      expect(read.sql).toMatch(/\bf\.i\d = (k\.c\d+|k\.value ->> \d+|r\.i)/);
    }
    expect(rows).toBeLessThan(100);
    await store.close();
  });
});
