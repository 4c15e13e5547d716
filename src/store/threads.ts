/**
 * Store threads seen from the main thread: each runs one connection (src/store/store-thread.ts)
 * and answers requests in order. A request may carry a deadline: at the deadline its promise
 * fails with `DeadlineExceeded` whether or not the thread has answered, and the thread's owner
 * decides what becomes of a thread still running it (a SQLite reader is ended and replaced;
 * src/store/sqlite-store.ts).
 */
import { Worker } from "node:worker_threads";
import { DeadlineExceeded, msUntil } from "../core/deadline.js";
import { sourceWorkerUrl } from "../core/source-worker.js";
import {
  rebuiltError,
  type ThreadDatabase,
  type ThreadReply,
  type ThreadRequest,
} from "./thread-protocol.js";

/** A request without its id, which the thread assigns. */
type Unnumbered<T> = T extends { readonly id: number } ? Omit<T, "id"> : never;
type StoreRequest = Unnumbered<ThreadRequest>;

export interface StoreThread {
  /** Requests sent and not yet answered. */
  readonly waiting: () => number;
  /** Whether the thread is running (not ended, not failed). */
  readonly alive: () => boolean;
  /** Sends a request; rejected with `DeadlineExceeded` once `deadline` passes. */
  request(message: StoreRequest, deadline?: number): Promise<ThreadReply>;
  /** Called with each notification the thread forwards. */
  onNotice(listener: (channel: string, payload: string) => void): void;
  /** Called when a request passes its deadline before the thread answered it. */
  onOverdue(listener: () => void): void;
  /** Ends the thread at once; what it was running is lost, its requests fail. */
  terminate(): Promise<void>;
}

/** Packages the store thread loads from their own folders (a native addon, WebAssembly). */
const THREAD_EXTERNALS = ["better-sqlite3", "@electric-sql/pglite"];

function newThread(database: ThreadDatabase): Worker {
  const options = { workerData: database };
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL("./store-thread.js", import.meta.url), options);
  }
  const entry = new URL("./store-thread.ts", import.meta.url);
  return new Worker(sourceWorkerUrl(entry, THREAD_EXTERNALS), options);
}

interface Pending {
  readonly resolve: (reply: ThreadReply) => void;
  readonly reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

/** Starts a thread over `database`; resolves once it has opened it. */
export function startStoreThread(database: ThreadDatabase): Promise<StoreThread> {
  const worker = newThread(database);
  worker.unref();
  const pending = new Map<number, Pending>();
  const noticeListeners: ((channel: string, payload: string) => void)[] = [];
  const overdueListeners: (() => void)[] = [];
  let nextId = 0;
  let running = true;

  function settle(id: number): void {
    pending.delete(id);
    if (pending.size === 0) worker.unref();
  }

  function fail(error: Error): void {
    running = false;
    for (const entry of pending.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(error);
    }
    pending.clear();
    worker.unref();
  }

  const thread: StoreThread = {
    waiting: () => pending.size,
    alive: () => running,
    request(message, deadline) {
      if (!running) return Promise.reject(new Error("the store thread has ended"));
      const id = nextId++;
      return new Promise<ThreadReply>((resolve, reject) => {
        const entry: Pending = { resolve, reject, timer: null };
        if (deadline !== undefined) {
          const started = Date.now();
          entry.timer = setTimeout(() => {
            if (pending.get(id) !== entry) return;
            settle(id);
            reject(new DeadlineExceeded(Date.now() - started));
            for (const listener of overdueListeners) listener();
          }, msUntil(deadline));
        }
        // A thread waited on keeps the process alive; an idle one does not.
        if (pending.size === 0) worker.ref();
        pending.set(id, entry);
        worker.postMessage({ ...message, id });
      });
    },
    onNotice: (listener) => noticeListeners.push(listener),
    onOverdue: (listener) => overdueListeners.push(listener),
    async terminate() {
      fail(new Error("the store thread was ended"));
      await worker.terminate();
    },
  };

  return new Promise((resolve, reject) => {
    worker.on("message", (reply: ThreadReply) => {
      if ("ready" in reply) {
        if (reply.ready) resolve(thread);
        else {
          running = false;
          void worker.terminate();
          reject(rebuiltError(reply.error));
        }
        return;
      }
      if ("channel" in reply) {
        for (const listener of noticeListeners) listener(reply.channel, reply.payload);
        return;
      }
      const entry = pending.get(reply.id);
      if (!entry) return; // answered after its deadline
      settle(reply.id);
      if (entry.timer) clearTimeout(entry.timer);
      if ("error" in reply) entry.reject(rebuiltError(reply.error));
      else entry.resolve(reply);
    });
    worker.on("error", (error) => {
      fail(error);
      reject(error);
    });
    worker.on("exit", (code) => {
      const error = new Error(`the store thread exited (code ${code})`);
      fail(error);
      reject(error);
    });
  });
}

/** The rows of a statement's reply. */
export function rowsOf<Row>(reply: ThreadReply): Row[] {
  if ("rows" in reply) return reply.rows as Row[];
  throw new Error("internal: a statement was answered without rows");
}
