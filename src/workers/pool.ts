/**
 * A pool of worker threads for the work of a request that may run long (judging a policy,
 * planning a question; src/workers/work.ts), so the event loop keeps answering other requests.
 * Each task has a deadline counted from when a worker takes it, and again from when a plan
 * task's policy is checked (a worker checks each policy once): a running task past it is
 * refused with a 422 naming the `requestMs` limit and its worker is ended and replaced; a task
 * that waited too long for a free worker is refused with a 503.
 */
import { availableParallelism } from "node:os";
import { type ResourceLimits, Worker } from "node:worker_threads";
import { limitMessage } from "../api/limits.js";
import { ApiError } from "../api/service.js";
import { sourceWorkerUrl } from "../core/source-worker.js";
import type { SourceFile } from "../source/source.js";
import type { Outcome, Task } from "./work.js";

interface PoolOptions {
  /**
   * Worker threads; default the cores less one, at least 2 (one long task never holds up the
   * plans of other questions), at most 4.
   */
  readonly size?: number;
  /** Heap of each worker (MB); a task that needs more is refused. Default 1024. */
  readonly heapMb?: number;
}

export interface WorkerPool {
  /**
   * Runs the task within `deadlineMs` of a worker taking it. A `background` task (planning
   * ahead) waits behind every other task, and never takes the last free worker of a pool of
   * two or more, so that a question's own plan is never queued behind one.
   */
  run(task: Task, deadlineMs: number, background?: boolean): Promise<Outcome>;
  /**
   * Has every worker, and each one started later, check this policy ahead of the plans that
   * will need it (a worker checks a policy once: src/workers/work.ts). Nothing is answered.
   */
  warm(sources: readonly SourceFile[]): void;
  close(): Promise<void>;
}

/** How much longer than its deadline a task may wait for a free (or starting) worker. */
const QUEUE_GRACE_MS = 30_000;

interface Job {
  readonly id: number;
  readonly task: Task;
  readonly deadlineMs: number;
  readonly background: boolean;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

interface Slot {
  readonly worker: Worker;
  job: Job | null;
  /** Loaded and listening: tasks go only to ready workers. */
  ready: boolean;
  /** Ended and replaced: its late events are ignored. */
  retired: boolean;
}

type WorkerMessage =
  | { readonly ready: true }
  /** The task's policy is checked: its planning starts, and its deadline with it. */
  | { readonly id: number; readonly checked: true }
  | { readonly id: number; readonly outcome: Outcome }
  | { readonly id: number; readonly error: string };

/**
 * The compiled worker next to this file; from sources (tests, benches) the TypeScript one,
 * bundled once per process (src/core/source-worker.ts).
 */
function newWorker(resourceLimits: ResourceLimits): Worker {
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL("./worker.js", import.meta.url), { resourceLimits });
  }
  return new Worker(sourceWorkerUrl(new URL("./worker.ts", import.meta.url)), { resourceLimits });
}

/**
 * Starts workers on demand, up to `size`.
 *
 *   const pool = createWorkerPool({ size: 2 });
 *   await pool.run({ kind: "policy", sources, limits, now: null, failFast: false }, 5000);
 */
export function createWorkerPool(options: PoolOptions = {}): WorkerPool {
  const size = options.size ?? Math.max(2, Math.min(4, availableParallelism() - 1));
  // A deep rule chain plans recursively: a larger stack than the main thread's.
  const limits: ResourceLimits = {
    maxOldGenerationSizeMb: options.heapMb ?? 1024,
    stackSizeMb: 64,
  };
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let warmWith: readonly SourceFile[] | null = null;
  let nextId = 0;
  let closed = false;

  function spawn(): Slot {
    const worker = newWorker(limits);
    worker.unref();
    const slot: Slot = { worker, job: null, ready: false, retired: false };
    // Queued until the worker listens; it checks the policy before its first task.
    if (warmWith) worker.postMessage({ warm: warmWith });
    worker.on("message", (message: WorkerMessage) => {
      if (slot.retired) return;
      if ("ready" in message) {
        slot.ready = true;
        pump();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      if (job.timer) clearTimeout(job.timer);
      if ("checked" in message) {
        job.timer = setTimeout(() => overdue(slot, job), job.deadlineMs);
        return;
      }
      slot.job = null;
      if ("outcome" in message) job.resolve(message.outcome);
      else job.reject(new Error(`worker failed: ${message.error}`));
      pump();
    });
    const lost = (why: string) => {
      if (slot.retired || closed) return;
      const job = slot.job;
      retire(slot);
      job?.reject(new ApiError(422, `the request's work stopped its worker (${why})`));
    };
    worker.on("error", (error) => lost(error.message));
    worker.on("exit", (code) => lost(`exit code ${code}`));
    return slot;
  }

  /** Ends a slot's worker; `pump` starts another when work waits. */
  function retire(slot: Slot): void {
    if (slot.job?.timer) clearTimeout(slot.job.timer);
    slot.job = null;
    slot.retired = true;
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
    pump();
  }

  function pump(): void {
    while (queue.length > 0 && !closed) {
      if (queue[0]!.background) {
        const running = slots.filter((s) => s.job?.background).length;
        if (running >= Math.max(1, size - 1)) return;
      }
      const slot = slots.find((s) => s.ready && s.job === null);
      if (!slot) {
        if (slots.length < size) slots.push(spawn());
        return;
      }
      const job = queue.shift()!;
      slot.job = job;
      if (job.timer) clearTimeout(job.timer);
      job.timer = setTimeout(() => overdue(slot, job), job.deadlineMs);
      slot.worker.postMessage({ id: job.id, task: job.task });
    }
  }

  function overdue(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    retire(slot);
    job.reject(
      new ApiError(
        422,
        // The setting's value, not what was left of the request's deadline when the task began.
        limitMessage("requestMs", requestMsOf(job), "the request's work did not finish in time"),
      ),
    );
  }

  function waitedTooLong(job: Job): void {
    const index = queue.indexOf(job);
    if (index < 0) return;
    queue.splice(index, 1);
    job.reject(new ApiError(503, "the service is busy: no worker was free in time; try again"));
  }

  return {
    run(task, deadlineMs, background = false) {
      if (closed) return Promise.reject(new ApiError(503, "the service is shutting down"));
      return new Promise<Outcome>((resolve, reject) => {
        const id = nextId++;
        const job: Job = { id, task, deadlineMs, background, resolve, reject, timer: null };
        job.timer = setTimeout(() => waitedTooLong(job), deadlineMs + QUEUE_GRACE_MS);
        // Background jobs queue last; others go before the first of them.
        const firstBackground = queue.findIndex((queued) => queued.background);
        if (background || firstBackground < 0) queue.push(job);
        else queue.splice(firstBackground, 0, job);
        pump();
      });
    },
    warm(sources) {
      warmWith = sources;
      for (const slot of slots) slot.worker.postMessage({ warm: sources });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        if (job.timer) clearTimeout(job.timer);
        job.reject(new ApiError(503, "the service is shutting down"));
      }
      for (const slot of slots) {
        if (slot.job?.timer) clearTimeout(slot.job.timer);
        slot.job?.reject(new ApiError(503, "the service is shutting down"));
      }
      await Promise.all(slots.splice(0).map((slot) => slot.worker.terminate()));
    },
  };
}

/** The `requestMs` limit a task ran under: its limits' when it carries them. */
function requestMsOf(job: Job): number {
  return "limits" in job.task ? job.task.limits.requestMs : job.deadlineMs;
}
