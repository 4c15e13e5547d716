/**
 * A pool of worker threads for the work of a request that may run long (judging a policy,
 * planning a question; src/api/work.ts), so the event loop keeps answering other requests.
 * Each task has a deadline: a task still queued then is refused with a 503, a running one
 * with a 422 naming the `requestMs` limit, and its worker is ended and replaced.
 */
import { availableParallelism } from "node:os";
import { type ResourceLimits, Worker } from "node:worker_threads";
import { limitMessage } from "./limits.js";
import { ApiError } from "./service.js";
import type { Outcome, Task } from "./work.js";

export interface PoolOptions {
  /** Worker threads; default the cores less one, at least 1, at most 4. */
  readonly size?: number;
  /** Heap of each worker (MB); a task that needs more is refused. Default 1024. */
  readonly heapMb?: number;
}

export interface WorkerPool {
  /** Runs the task within `deadlineMs` of now. */
  run(task: Task, deadlineMs: number): Promise<Outcome>;
  close(): Promise<void>;
}

interface Job {
  readonly id: number;
  readonly task: Task;
  readonly deadlineMs: number;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

interface Slot {
  readonly worker: Worker;
  job: Job | null;
  /** Ended and replaced: its late events are ignored. */
  retired: boolean;
}

/**
 * The compiled worker next to this file; under tsx (tests, benches) the TypeScript one, loaded
 * through tsx's loader registered inside the worker (loader flags do not reach workers).
 */
function newWorker(options: { resourceLimits: ResourceLimits }): Worker {
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL("./worker.js", import.meta.url), options);
  }
  const url = new URL("./worker.ts", import.meta.url).href;
  const code = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(url)}); });`;
  return new Worker(code, { ...options, eval: true });
}

export function createWorkerPool(options: PoolOptions = {}): WorkerPool {
  const size = options.size ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  const heapMb = options.heapMb ?? 1024;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 0;
  let closed = false;

  function spawn(): Slot {
    // A deep rule chain plans recursively: a larger stack than the main thread's.
    const worker = newWorker({
      resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb: 64 },
    });
    worker.unref();
    const slot: Slot = { worker, job: null, retired: false };
    worker.on("message", (message: { id: number; outcome?: Outcome; error?: string }) => {
      const job = slot.job;
      if (slot.retired || !job || job.id !== message.id) return;
      finish(slot);
      if (message.outcome) job.resolve(message.outcome);
      else job.reject(new Error(`worker failed: ${message.error}`));
    });
    const lost = (why: string) => {
      if (slot.retired || closed) return;
      const job = slot.job;
      replace(slot);
      job?.reject(
        new ApiError(422, `the request's work stopped the worker (${why}); it is refused`),
      );
    };
    worker.on("error", (error) => lost(error.message));
    worker.on("exit", (code) => lost(`exit code ${code}`));
    return slot;
  }

  /** Ends a slot's worker and puts a fresh one in its place. */
  function replace(slot: Slot): void {
    if (slot.job?.timer) clearTimeout(slot.job.timer);
    slot.job = null;
    slot.retired = true;
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
    pump();
  }

  function finish(slot: Slot): void {
    if (slot.job?.timer) clearTimeout(slot.job.timer);
    slot.job = null;
    pump();
  }

  function pump(): void {
    while (queue.length > 0) {
      let slot = slots.find((s) => s.job === null);
      if (!slot && slots.length < size) {
        slot = spawn();
        slots.push(slot);
      }
      if (!slot) return;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.postMessage({ id: job.id, task: job.task });
    }
  }

  function expire(job: Job): void {
    const queued = queue.indexOf(job);
    if (queued >= 0) {
      queue.splice(queued, 1);
      job.reject(
        new ApiError(
          503,
          `the service is busy: the request waited ${job.deadlineMs} ms for a worker`,
        ),
      );
      return;
    }
    const slot = slots.find((s) => s.job === job);
    if (!slot) return;
    replace(slot);
    job.reject(
      new ApiError(
        422,
        limitMessage("requestMs", job.deadlineMs, "the request's work did not finish in time"),
        { limit: "requestMs", value: job.deadlineMs },
      ),
    );
  }

  return {
    run(task, deadlineMs) {
      if (closed) return Promise.reject(new ApiError(503, "the service is shutting down"));
      return new Promise<Outcome>((resolve, reject) => {
        const job: Job = { id: nextId++, task, deadlineMs, resolve, reject, timer: null };
        job.timer = setTimeout(() => expire(job), deadlineMs);
        queue.push(job);
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        if (job.timer) clearTimeout(job.timer);
        job.reject(new ApiError(503, "the service is shutting down"));
      }
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
