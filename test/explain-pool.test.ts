/**
 * Explain on the service runs its evaluator in the worker pool (issue 27): each run is a pool
 * task, and its answer, allowed or denied, is the one made in place (`workers: 0`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { FOLDER_POLICY, folderCase } from "../bench/explain/folder-graphs.js";
import type { PolarService } from "../src/api/service.js";
import { serviceOver } from "../src/service/service.js";
import { openStore } from "../src/store/store.js";
import { createWorkerPool, type WorkerPool } from "../src/workers/pool.js";
import type { Task } from "../src/workers/work.js";

/** A pool that notes the kind of every task it is given. */
function notingPool(kinds: Task["kind"][]): WorkerPool {
  const pool = createWorkerPool({ size: 2 });
  return {
    run: (task, ms, background) => {
      kinds.push(task.kind);
      return pool.run(task, ms, background);
    },
    warm: (sources) => pool.warm(sources),
    close: () => pool.close(),
  };
}

const services: { service: PolarService; pool?: WorkerPool }[] = [];
afterAll(async () => {
  for (const { service, pool } of services) {
    await service.close();
    await pool?.close();
  }
});

async function serviceWith(pool: WorkerPool | null): Promise<PolarService> {
  const store = await openStore();
  const service = serviceOver(store, pool ? { pool } : { workers: 0 });
  services.push({ service, ...(pool && { pool }) });
  await service.postPolicy({ src: FOLDER_POLICY, filename: "policy.polar" }, {});
  return service;
}

describe("explain on the service", () => {
  const graph = folderCase("deep", 200);

  it("runs each evaluation in the pool and answers as in place", async () => {
    const kinds: Task["kind"][] = [];
    const pooled = await serviceWith(notingPool(kinds));
    const inPlace = await serviceWith(null);
    for (const service of [pooled, inPlace]) await service.batch([{ inserts: graph.facts }]);
    kinds.length = 0;
    const fromPool = await pooled.explain(graph.question);
    expect(kinds.filter((kind) => kind === "explain-run").length).toBeGreaterThanOrEqual(2);
    const fromPlace = await inPlace.explain(graph.question);
    expect(fromPool.body).toEqual(fromPlace.body);
    expect((fromPool.body as { allowed: boolean }).allowed).toBe(
      ((await pooled.authorize(graph.question)).body as { allowed: boolean }).allowed,
    );
  });

  it("explains a denial from the pool as in place", async () => {
    const pooled = await serviceWith(notingPool([]));
    const inPlace = await serviceWith(null);
    const denied = graph.facts.filter((fact) => fact.predicate !== "has_role");
    for (const service of [pooled, inPlace]) await service.batch([{ inserts: denied }]);
    const fromPool = await pooled.explain(graph.question);
    expect((fromPool.body as { allowed: boolean }).allowed).toBe(false);
    expect(fromPool.body).toEqual((await inPlace.explain(graph.question)).body);
  });
});
