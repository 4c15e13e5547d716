/**
 * A `SqlExecutor` whose statements run on a store thread (src/store/threads.ts). Statements of
 * a transaction carry its number, so they run on the transaction's connection there.
 */
import type { ChannelListener, SqlExecutor, StatementHints } from "./executor.js";
import { rowsOf, type StoreThread } from "./threads.js";

/** One statement on `thread`, in transaction `tx` or outside any. */
export async function runOn<Row>(
  thread: StoreThread,
  op: "query" | "prepared",
  sql: string,
  params: readonly unknown[] | undefined,
  hints: StatementHints | undefined,
  tx: number | null = null,
): Promise<Row[]> {
  const { deadline, ...rest } = hints ?? {};
  const reply = await thread.request({ op, sql, params: params ?? [], hints: rest, tx }, deadline);
  return rowsOf<Row>(reply);
}

/** Runs `work` in one transaction on `thread`: all of it commits, or none of it. */
export async function transactionOn<T>(
  thread: StoreThread,
  engine: SqlExecutor["engine"],
  work: (tx: SqlExecutor) => Promise<T>,
): Promise<T> {
  const begun = await thread.request({ op: "begin" });
  if (!("tx" in begun)) throw new Error("internal: a transaction began without a number");
  const number = begun.tx;
  const inside: SqlExecutor = {
    engine,
    query: (sql, params, hints) => runOn(thread, "query", sql, params, hints, number),
    prepared: (sql, params, hints) => runOn(thread, "prepared", sql, params, hints, number),
    listen: () => Promise.reject(new Error("internal: listen inside a transaction")),
    transaction: (nested) => nested(inside),
    close: async () => {},
  };
  let result: T;
  try {
    result = await work(inside);
  } catch (cause) {
    await thread.request({ op: "end", tx: number, commit: false }).catch(() => {});
    throw cause;
  }
  await thread.request({ op: "end", tx: number, commit: true });
  return result;
}

/** Forwards the thread's notifications on `channel` to `listener`; resolves once listening. */
async function listenOn(
  thread: StoreThread,
  channel: string,
  listener: ChannelListener,
): Promise<void> {
  thread.onNotice((from, payload) => {
    if (from === channel) listener.notice(payload);
  });
  await thread.request({ op: "listen", channel });
}

/** Closes the thread's connection, then ends the thread. */
export async function closeThread(thread: StoreThread): Promise<void> {
  if (thread.alive()) await thread.request({ op: "close" }).catch(() => {});
  await thread.terminate();
}

/** Every statement on one thread (PGlite: one connection, one thread). */
export function executorOnThread(thread: StoreThread, engine: SqlExecutor["engine"]): SqlExecutor {
  return {
    engine,
    query: (sql, params, hints) => runOn(thread, "query", sql, params, hints),
    prepared: (sql, params, hints) => runOn(thread, "prepared", sql, params, hints),
    listen: (channel, listener) => listenOn(thread, channel, listener),
    transaction: (work) => transactionOn(thread, engine, work),
    close: () => closeThread(thread),
  };
}
