/**
 * The policy endpoints: the active policy, its metadata, and a new policy, judged by the worker
 * pool (checked, its tests run) and made active once the question shapes in use are planned
 * for it (src/service/planning.ts `prepareFor`).
 */
import type { Limits } from "../api/limits.js";
import type { PolarService } from "../api/service.js";
import { parseBody, policyBodySchema } from "../api/wire.js";
import type { FactStore } from "../store/store.js";
import type { WorkerPool } from "../workers/pool.js";
import { type Outcome, performTask, type Task } from "../workers/work.js";
import type { Clock } from "./execute.js";
import { type Planning, refusalOf } from "./planning.js";
import { activeProgram } from "./snapshot.js";

type PolicyEndpoints = Pick<PolarService, "getPolicy" | "postPolicy" | "policyMetadata">;

export function policyEndpoints(
  store: FactStore,
  pool: WorkerPool | null,
  planning: Planning,
  limits: Limits,
  clock: Clock,
): PolicyEndpoints {
  /** A task in the pool within the request deadline, or in place without a pool. */
  const perform = (task: Task): Promise<Outcome> =>
    pool ? pool.run(task, limits.requestMs) : Promise.resolve(performTask(task));

  return {
    async getPolicy() {
      const policy = await store.policy();
      return { body: { policy: policy && { filename: policy.filename ?? "", src: policy.src } } };
    },

    async postPolicy(body, query) {
      const { src, filename } = parseBody(policyBodySchema, body);
      const current = await store.policy();
      if (current?.src === src) {
        return {
          status: 202,
          body: { message: "policy unchanged" },
          dataVersion: await store.dataVersion(),
        };
      }
      const verdict = await perform({
        kind: "policy",
        sources: [{ name: filename || "policy.polar", text: src }],
        limits,
        now: clock.now ? clock.now().toString() : null,
        failFast: query.fail_fast === "true",
      });
      if (verdict.kind !== "policy") throw refusalOf(verdict);
      const outcome = await store.setPolicy(src, filename, planning.prepareFor);
      return {
        status: outcome === "unchanged" ? 202 : 200,
        body: { message: `policy ${outcome}${verdict.warnings}` },
        dataVersion: await store.dataVersion(),
      };
    },

    async policyMetadata() {
      const program = await activeProgram(store);
      const resources: Record<string, unknown> = {};
      for (const [name, meta] of program.resources) {
        resources[name] = {
          roles: meta.roles,
          permissions: meta.permissions,
          relations: meta.relations,
        };
      }
      return { body: { metadata: { resources } } };
    },
  };
}
