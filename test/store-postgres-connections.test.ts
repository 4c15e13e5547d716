/**
 * A PostgreSQL session the server ends while the store holds it between two statements (a
 * standby stopping, an administrator's `pg_terminate_backend`): the statement after fails and
 * is handled, and the process goes on (src/store/postgres-executor.ts). Without a listener on
 * the checked-out connection, its `error` event ended the process.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { SqlExecutor } from "../src/store/executor.js";
import { openPostgres } from "../src/store/postgres-executor.js";

const databaseUrl = process.env.DATABASE_URL;

describe.runIf(databaseUrl)("a PostgreSQL session ended between two statements", () => {
  let executor: SqlExecutor | undefined;
  const admin = new pg.Client({ connectionString: databaseUrl });
  afterAll(async () => {
    await executor?.close();
    await admin.end();
  });

  it("fails the next statement, and the store answers on another session", async () => {
    executor = await openPostgres({ connectionString: databaseUrl! });
    await admin.connect();
    const ended = executor.transaction(async (tx) => {
      const [row] = await tx.query<{ pid: number }>("select pg_backend_pid() as pid");
      await admin.query("select pg_terminate_backend($1)", [row!.pid]);
      // Until the server has let the session go: the store's connection has heard of it then,
      // with no statement of its own running.
      for (;;) {
        const { rows } = await admin.query("select 1 from pg_stat_activity where pid = $1", [
          row!.pid,
        ]);
        if (rows.length === 0) break;
      }
      await admin.query("select 1");
      return tx.query("select 1");
    });
    await expect(ended).rejects.toThrow();
    expect(await executor.query<{ n: number }>("select 1 as n")).toEqual([{ n: 1 }]);
  });
});
