/**
 * A worker thread of the pool (src/api/pool.ts): answers each `{ id, task }` message with
 * `{ id, outcome }` or `{ id, error }`.
 */
import { parentPort } from "node:worker_threads";
import { performTask, type Task } from "./work.js";

parentPort?.on("message", ({ id, task }: { id: number; task: Task }) => {
  try {
    const checked = () => parentPort!.postMessage({ id, checked: true });
    parentPort!.postMessage({ id, outcome: performTask(task, checked) });
  } catch (error) {
    parentPort!.postMessage({ id, error: String((error as Error)?.stack ?? error) });
  }
});

parentPort?.postMessage({ ready: true });
