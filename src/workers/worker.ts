/**
 * A worker thread of the pool (src/workers/pool.ts): answers each `{ id, task }` message with
 * `{ id, outcome }` or `{ id, error }`; a `{ warm }` message checks a policy, unanswered.
 */
import { parentPort } from "node:worker_threads";
import type { SourceFile } from "../source/source.js";
import { performTask, type Task, warmPolicy } from "./work.js";

type Message = { id: number; task: Task } | { warm: readonly SourceFile[] };

parentPort?.on("message", (message: Message) => {
  if ("warm" in message) {
    // A policy the main thread checked; a failure here is left to the task that needs it.
    try {
      warmPolicy(message.warm);
    } catch {}
    return;
  }
  const { id, task } = message;
  try {
    const checked = () => parentPort!.postMessage({ id, checked: true });
    parentPort!.postMessage({ id, outcome: performTask(task, checked) });
  } catch (error) {
    parentPort!.postMessage({ id, error: String((error as Error)?.stack ?? error) });
  }
});

parentPort?.postMessage({ ready: true });
