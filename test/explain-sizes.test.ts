/**
 * Explain at any size (issue 27): on every store (SQLite, PGlite, and PostgreSQL when
 * DATABASE_URL is set), a document in 240 and 1,000 folders and at the bottom of 1,000- and
 * 3,000-deep folder chains (that one on SQLite and over HTTP, and on every store under
 * POLAR_SQL_LONG=1) is explained with authorize's verdict, its JSON text is the tree, and
 * the checker accepts it; an explanation over the size limits is refused with a 422 naming the
 * limit and its setting. Over HTTP the 3,000-deep proof is one JSON body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOLDER_POLICY, type FolderCase, folderCase } from "../bench/explain/folder-graphs.js";
import { explainStored } from "../src/api/explain.js";
import type { PolarService } from "../src/api/service.js";
import { ApiError } from "../src/api/service.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import { jsonTextOf } from "../src/evaluate/explain-json.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { serviceOver } from "../src/service/service.js";
import { openStore } from "../src/store/store.js";
import { describeServiceEngines, onEngineInTurn } from "./support/central-services.js";
import { type CheckedNode, check } from "./support/explain-checker.js";
import { LONG } from "./support/runs.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const program: Program = (() => {
  const checked = checkPolicy([{ name: "policy.polar", text: FOLDER_POLICY }]);
  if (!checked.ok) throw new Error("the Folder policy does not check");
  return checked.program;
})();

// The 3,000-deep chain on every store under POLAR_SQL_LONG=1 (test/support/runs.ts; CI sets
// it): it takes tens of seconds per store. The quick run explains it on SQLite and over HTTP
// (below) and the 1,000-deep chain on every store.
const CASES = [
  folderCase("wide", 240),
  folderCase("wide", 1000),
  folderCase("deep", 1000),
  ...(LONG ? [folderCase("deep", 3000)] : []),
];

/** Depth of a tree, without recursion. */
function depth(tree: CheckedNode): number {
  let deepest = 0;
  const stack = [{ node: tree, level: 1 }];
  while (stack.length > 0) {
    const { node, level } = stack.pop()!;
    deepest = Math.max(deepest, level);
    for (const child of node.children) stack.push({ node: child, level: level + 1 });
  }
  return deepest;
}

/** The case without alice's role: she may not read. */
const denied = (c: FolderCase): FolderCase => ({
  ...c,
  facts: c.facts.filter((fact) => fact.predicate !== "has_role"),
});

// Correctness, not speed, on a loaded machine: the request deadline is far (bench/hostile times it).
describeServiceEngines(
  { limits: { requestMs: 120_000 } },
  "explain at any size on $name",
  (engine) => {
    let service: PolarService;
    beforeAll(async () => {
      service = await engine.fresh();
      await service.postPolicy({ src: FOLDER_POLICY, filename: "policy.polar" }, {});
    });

    const explainCase = async (c: FolderCase) => {
      await service.clearData();
      await service.batch([{ inserts: c.facts }]);
      const authorized = (await service.authorize(c.question)).body as { allowed: boolean };
      const body = (await service.explain(c.question)).body as {
        allowed: boolean;
        explanation: CheckedNode;
      };
      // What HTTP sends: the tree, written without JSON.stringify.
      const sent = JSON.parse(jsonTextOf(body)!) as typeof body;
      return { authorized: authorized.allowed, sent };
    };

    // The quick run asks each case's allowed and denied forms on different engines, in turn
    // (test/support/central-services.ts); POLAR_SQL_LONG=1 asks both on every engine.
    for (const [index, c] of CASES.entries()) {
      it.skipIf(!onEngineInTurn(index, engine))(
        `${c.name}: allowed, as authorize says, and the proof checks`,
        async () => {
          const { authorized, sent } = await explainCase(c);
          expect(authorized).toBe(true);
          expect(sent.allowed).toBe(true);
          const facts = { stored: c.facts as never };
          expect(check({ program, facts, now: 0n }, sent.explanation)).toEqual([]);
          // A chain's proof climbs every folder: three levels to the first, one more per folder.
          const size = Number(c.name.split("-")[1]);
          expect(depth(sent.explanation)).toBe(c.name.startsWith("deep") ? size + 3 : 4);
        },
      );

      it.skipIf(!onEngineInTurn(index + 1, engine))(
        `${c.name} without the role: denied, as authorize says`,
        async () => {
          const without = denied(c);
          const { authorized, sent } = await explainCase(without);
          expect(authorized).toBe(false);
          expect(sent.allowed).toBe(false);
          expect(
            check(
              { program, facts: { stored: without.facts as never }, now: 0n },
              sent.explanation,
            ),
          ).toEqual([]);
        },
      );
    }
  },
);

describe("a 3,000-deep chain", () => {
  const chain = folderCase("deep", 3000);
  let store: Awaited<ReturnType<typeof openStore>>;
  let service: PolarService | undefined;
  beforeAll(async () => {
    store = await openStore({ embedded: "sqlite" });
    await store.setPolicy(FOLDER_POLICY, "policy.polar");
    await store.applyBatch([{ inserts: chain.facts as never }]);
  });
  afterAll(async () => {
    // The service closes its store.
    await (service ?? store)?.close();
  });

  const explainWith = (limits: { explainNodes: number; explainBytes: number }) =>
    explainStored(store.db, program, chain.question, [], { limits });

  it("lets a 3,000-deep chain through by default", async () => {
    const explained = await explainStored(store.db, program, chain.question, [], {});
    expect(explained.allowed).toBe(true);
    expect(jsonTextOf(explained)!.length).toBeGreaterThan(1_000_000);
  });

  it.each([
    [{ explainNodes: 9002, explainBytes: 2 ** 24 }, "`--max-explain-nodes`", "9002 nodes"],
    [{ explainNodes: 10_000, explainBytes: 500_000 }, "`--max-explain-bytes`", "500000 bytes"],
  ])("refuses with a 422 naming the limit: %j", async (limits, flag, value) => {
    const refusal = await explainWith(limits).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).message).toContain(flag);
    expect((refusal as ApiError).message).toContain(value);
  });

  it("answers at exactly the proof's size", async () => {
    const explained = await explainWith({ explainNodes: 9003, explainBytes: 2 ** 24 });
    expect(explained.allowed).toBe(true);
  });

  it("POST /api/explain answers 200 with the whole proof as JSON", async () => {
    service = serviceOver(store, { limits: { requestMs: 120_000 }, pool: sharedWorkerPool() });
    const app = createApp({ service, apiKeys: ["k"], logger: silentLogger });
    const res = await app.request("/api/explain", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body: JSON.stringify(chain.question),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const json = (await res.json()) as { allowed: boolean; explanation: CheckedNode };
    expect(json.allowed).toBe(true);
    expect(depth(json.explanation)).toBe(3003);
  });
});
