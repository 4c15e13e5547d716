/**
 * One pool of planning threads (src/workers/pool.ts) per test process, for the services the
 * tests open without a pool or `workers` of their own. Each service starting its own pool cost
 * about 0.3 s of CPU: the threads' start, and every thread checking each policy. Files in one
 * test process run one after another (vitest.config.ts `isolate: false`), so they never share
 * it at the same time. The pool's threads are unref'd and never keep the process alive, so it
 * is not closed.
 *
 *   const service = await createService({ embedded: "sqlite", pool: sharedWorkerPool() });
 */
import { createWorkerPool, type WorkerPool } from "../../src/workers/pool.js";

let shared: WorkerPool | undefined;

export function sharedWorkerPool(): WorkerPool {
  shared ??= createWorkerPool();
  return shared;
}
