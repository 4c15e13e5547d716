/**
 * The central service: every endpoint of the HTTP API as a plain function over the fact store.
 * Each endpoint is a short pipeline of steps with data flowing one way (docs/architecture.md,
 * "A request, hop by hop"); this module only builds the steps and hands them to the endpoints.
 */

import { checkContextFacts } from "../api/context-facts.js";
import { explainStored } from "../api/explain.js";
import type { ExplainEvaluator } from "../api/explain-run.js";
import type { Limits } from "../api/limits.js";
import { resolveLimits } from "../api/limits.js";
import type { LocalOptions } from "../api/local.js";
import { previewReply } from "../api/preview.js";
import type { PolarService } from "../api/service.js";
import { authorizeBodySchema, parseBody } from "../api/wire.js";
import type { FixpointBudget } from "../fixpoint/iterate.js";
import { countFacts, readShapes } from "../store/facts.js";
import { type FactStore, openStore, type StoreOptions } from "../store/store.js";
import { createWorkerPool, type WorkerPool } from "../workers/pool.js";
import { type AnswerCacheLimits, createAnswerCache } from "./answer-cache.js";
import type { CentralSteps } from "./central.js";
import { compatEndpoints } from "./compat.js";
import { factEndpoints } from "./facts.js";
import { localEndpoints } from "./local.js";
import { pageTokens } from "./page-tokens.js";
import { createPlanning, refusalOf } from "./planning.js";
import { policyEndpoints } from "./policy.js";
import { questionEndpoints } from "./questions.js";
import { guarded, withIdLimit } from "./refusals.js";
import { activeProgram, EMPTY_PROGRAM, storeSnapshots } from "./snapshot.js";

export { MIN_PAGE_SIZE, UNPAGED_LIST_REFUSED } from "./questions.js";

export interface ServiceOptions extends StoreOptions, ServiceSettings {}

/**
 * How long one run of explain's evaluator may take in a worker: explain is bounded by the size
 * of its answer (`explainNodes`, `explainBytes`), and a 3,000-deep proof takes seconds.
 */
const EXPLAIN_RUN_MS = 60_000;

/** What `serviceOver` needs besides the store. */
interface ServiceSettings extends Pick<LocalOptions, "now"> {
  /**
   * Answers of central questions kept per data version (src/service/answer-cache.ts); false
   * keeps none. Default: 20,000 answers, 200,000 rows.
   */
  readonly answerCache?: AnswerCacheLimits | false;
  /**
   * `/list` without `page_size` answers every result in one reply, as the 1.x clients expect;
   * by default it is refused (400).
   */
  readonly allowUnpagedList?: boolean;
  /** Limits of recursion computed by iteration in the store (src/fixpoint). */
  readonly fixpointBudget?: FixpointBudget;
  /** Limits of requests and policies over the defaults (docs/limits.md). */
  readonly limits?: Partial<Limits>;
  /**
   * Worker threads for checking policies and planning questions off the event loop; 0 does
   * that work in place (no deadline). Default: the cores less one, at least 2, at most 4.
   */
  readonly workers?: number;
  /**
   * A pool to judge policies and plan questions in, instead of one of `workers` threads of
   * its own; the service does not close it.
   */
  readonly pool?: WorkerPool;
}

/**
 * Opens the store and returns the service.
 *
 *   const service = await createService({ dataDir: "./data" });
 *   await service.authorize({ actor_type: "User", actor_id: "ada", action: "read",
 *     resource_type: "Doc", resource_id: "d1" }); // { body: { allowed: true } }
 */
export async function createService(options: ServiceOptions = {}): Promise<PolarService> {
  return serviceOver(await openStore(options), options);
}

export function serviceOver(store: FactStore, settings: ServiceSettings = {}): PolarService {
  const clock = settings.now ? { now: settings.now } : {};
  const limits = resolveLimits(settings.limits);
  const ownPool =
    settings.pool || settings.workers === 0 ? null : createWorkerPool({ size: settings.workers });
  const pool = settings.pool ?? ownPool;
  const planning = createPlanning(pool, limits);
  const snapshots = storeSnapshots(store);
  const steps: CentralSteps = {
    store,
    snapshot: (atLeast) => snapshots.current(atLeast),
    planning,
    answers: settings.answerCache === false ? null : createAnswerCache(settings.answerCache),
    clock,
    fixpointBudget: settings.fixpointBudget,
  };
  const tokens = pageTokens(store);
  const allowUnpagedList = settings.allowUnpagedList ?? false;
  const service: PolarService = {
    ...policyEndpoints(store, pool, planning, limits, clock),
    ...questionEndpoints(steps, { limits, tokens, allowUnpagedList }),
    ...factEndpoints(store, limits),
    ...localEndpoints(store, planning, limits, clock),
    async explain(body, reading = {}) {
      const request = parseBody(authorizeBodySchema, body);
      const explained = await guarded(limits, async () => {
        const head = await store.head(reading.atLeast);
        const program = head.program ?? EMPTY_PROGRAM;
        const contextFacts = checkContextFacts(program, request.context_facts);
        // Each run of the evaluator in a worker: a deep proof never holds the event loop.
        const evaluate: ExplainEvaluator | undefined = pool
          ? async (run) => {
              const task = { kind: "explain-run", sources: program.sources, run } as const;
              const outcome = await pool.run(task, Math.max(limits.requestMs, EXPLAIN_RUN_MS));
              if (outcome.kind !== "explain-run") throw refusalOf(outcome);
              return outcome.result;
            }
          : undefined;
        return explainStored(head.db, program, request, contextFacts, {
          ...clock,
          limits,
          ...(evaluate && { evaluate }),
        });
      });
      return { body: explained };
    },
    ...compatEndpoints(
      {
        batch: (body) => service.batch(body),
        evaluateQuery: (body, reading) => service.evaluateQuery(body, reading),
      },
      {
        program: () => activeProgram(store),
        shapes: () => readShapes(store.db),
        counts: () => countFacts(store.db),
      },
    ),
    previewPolicy: (body) => previewReply({ store, limits, ...clock }, body),
    catchUp: (version) => store.catchUp(version),
    standbys: () => store.standbys(),
    readMessages: () => store.readMessages(),
    async close() {
      await ownPool?.close();
      await store.close();
    },
  };
  return withIdLimit(service, limits.idsPerRequest);
}
