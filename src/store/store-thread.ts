/**
 * A store thread: one database connection off the main thread (src/store/threads.ts starts
 * it), so that no statement holds the event loop. It opens what `workerData` names, answers
 * `{ready}`, then runs each request in order of arrival on its connection; statements of a
 * transaction run on the transaction's connection, others wait for it to end (as they would
 * on one connection in the main thread).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { SqlExecutor } from "./executor.js";
import {
  type ThreadDatabase,
  type ThreadReply,
  type ThreadRequest,
  threadError,
} from "./thread-protocol.js";

const port = parentPort!;
const reply = (message: ThreadReply) => port.postMessage(message);

/** Each engine's module is loaded only by the threads that open it. */
async function open(database: ThreadDatabase): Promise<SqlExecutor> {
  switch (database.engine) {
    case "sqlite": {
      const { openSqliteConnection } = await import("./sqlite-connection.js");
      return openSqliteConnection(database);
    }
    case "pglite": {
      const { openPglite } = await import("./pglite-executor.js");
      return openPglite({
        imagePath: database.imagePath,
        ...(database.dataDir && { dataDir: database.dataDir }),
        ...(database.settings && { settings: database.settings }),
      });
    }
    default: {
      const _never: never = database;
      return _never;
    }
  }
}

interface OpenTransaction {
  readonly tx: SqlExecutor;
  readonly end: (commit: boolean) => void;
}

async function serve(db: SqlExecutor): Promise<void> {
  const transactions = new Map<number, OpenTransaction>();
  let nextTx = 0;

  /** Transactions begun and not yet ended, by number: settled when committed or rolled back. */
  const pending = new Map<number, Promise<void>>();

  function begin(id: number): void {
    const number = nextTx++;
    let started = false;
    const settled = db.transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          started = true;
          transactions.set(number, {
            tx,
            end: (commit) => (commit ? resolve() : reject(new Error("rolled back"))),
          });
          reply({ id, tx: number });
        }),
    );
    pending.set(number, settled);
    // Once started, `end` answers for the transaction; a failure to start is answered here.
    settled.catch((cause) => {
      if (started) return;
      pending.delete(number);
      reply({ id, error: threadError(cause) });
    });
  }

  async function handle(request: ThreadRequest): Promise<void> {
    switch (request.op) {
      case "query":
      case "prepared": {
        const runner = request.tx === null ? db : transactions.get(request.tx)?.tx;
        if (!runner) throw new Error(`internal: no transaction ${request.tx}`);
        const rows =
          request.op === "query"
            ? await runner.query(request.sql, request.params, request.hints)
            : await runner.prepared(request.sql, request.params as string[], request.hints);
        reply({ id: request.id, rows });
        return;
      }
      case "begin":
        begin(request.id);
        return;
      case "end": {
        const open = transactions.get(request.tx);
        const settled = pending.get(request.tx);
        if (!open || !settled) throw new Error(`internal: no transaction ${request.tx}`);
        transactions.delete(request.tx);
        pending.delete(request.tx);
        open.end(request.commit);
        try {
          await settled;
        } catch (cause) {
          if (request.commit) throw cause;
        }
        reply({ id: request.id, done: true });
        return;
      }
      case "listen":
        await db.listen(request.channel, {
          notice: (payload) => reply({ channel: request.channel, payload }),
          lost: () => {},
          listening: () => {},
        });
        reply({ id: request.id, done: true });
        return;
      case "close":
        await db.close();
        reply({ id: request.id, done: true });
        port.close();
        return;
      default: {
        const _never: never = request;
        return _never;
      }
    }
  }

  port.on("message", (request: ThreadRequest) => {
    handle(request).catch((cause) => reply({ id: request.id, error: threadError(cause) }));
  });
}

try {
  await serve(await open(workerData as ThreadDatabase));
  reply({ ready: true });
} catch (cause) {
  reply({ ready: false, error: threadError(cause) });
}
