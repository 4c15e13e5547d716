/**
 * Recurring reads sent several to a message on a PostgreSQL server
 * (src/store/postgres-batches.ts): reads that wait for a busy session go out together, each
 * answers as it would alone, and a batch that fails is sent again one read at a time.
 */
import fc from "fast-check";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DeadlineExceeded } from "../src/core/deadline.js";
import { type DeadlineGuard, recurringReads } from "../src/store/postgres-batches.js";

const databaseUrl = process.env.DATABASE_URL;

/** Cancels a statement at its deadline, as the store's guard does (src/store/postgres-executor.ts). */
const cancelling = (cancels: pg.Pool): DeadlineGuard => {
  const doomed = new WeakSet<pg.PoolClient>();
  const guard = async <T>(client: pg.PoolClient, deadline: number, run: () => Promise<T>) => {
    const pid = (client as unknown as { processID: number }).processID;
    const timer = setTimeout(
      () => {
        doomed.add(client);
        void cancels.query("select pg_cancel_backend($1)", [pid]).catch(() => {});
      },
      Math.max(0, deadline - Date.now()),
    );
    try {
      return await run();
    } catch (cause) {
      if ((cause as { code?: string }).code === "57014") throw new DeadlineExceeded(0);
      throw cause;
    } finally {
      clearTimeout(timer);
    }
  };
  return Object.assign(guard, { cancelled: (client: pg.PoolClient) => doomed.has(client) });
};

describe.runIf(databaseUrl)("reads in batches on PostgreSQL", () => {
  const pools: pg.Pool[] = [];
  /** A pool of `max` sessions whose messages are recorded. */
  const recordedPool = (max: number) => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max });
    pool.on("error", () => {});
    const messages: string[] = [];
    pool.on("connect", (client) => {
      client.on("error", () => {});
      const query = client.query.bind(client) as (text: string) => Promise<unknown>;
      (client as unknown as { query: (text: string) => Promise<unknown> }).query = (text) => {
        if (text.startsWith("EXECUTE")) messages.push(text);
        return query(text);
      };
    });
    pools.push(pool);
    return { pool, messages };
  };
  const cancels = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  afterAll(async () => {
    await Promise.all([...pools, cancels].map((pool) => pool.end()));
  });

  const square = "select cast($1 as integer) * cast($1 as integer) as n";

  it("sends the reads that wait for a busy session in one message, each with its answer", async () => {
    const { pool, messages } = recordedPool(1);
    const read = recurringReads(pool, 1, cancelling(cancels));
    const values = Array.from({ length: 12 }, (_, i) => String(i));
    const answers = await Promise.all(
      values.map((v) => read<{ n: number }>(square, [v], undefined)),
    );
    expect(answers.map((rows) => rows[0]!.n)).toEqual(values.map((v) => Number(v) ** 2));
    // The first went alone; the other eleven waited: one batch of 8, then one of 3.
    expect(messages.map((text) => text.split(";").length)).toEqual([1, 8, 3]);
    // What /metrics reports (polar_sql_store_recurring_reads_total and read_messages_total).
    expect(read.counts()).toEqual({ reads: 12, messages: 3 });
  });

  it("sends a failed batch again one read at a time: only the bad read fails", async () => {
    const { pool, messages } = recordedPool(1);
    const read = recurringReads(pool, 1, cancelling(cancels));
    const outcomes = await Promise.allSettled(
      ["1", "2", "x", "4"].map((v) => read<{ n: number }>(square, [v], undefined)),
    );
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value[0]!.n : "failed"))).toEqual([
      1,
      4,
      "failed",
      16,
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toMatch(/invalid input syntax/);
    // 1 alone; 2, x, 4 together (failed); then each alone.
    expect(messages.map((text) => text.split(";").length)).toEqual([1, 3, 1, 1, 1]);
  });

  it("cancels a batch at its earliest deadline and answers the others alone", async () => {
    const { pool } = recordedPool(1);
    const read = recurringReads(pool, 1, cancelling(cancels));
    const sleep = "select pg_sleep(cast($1 as float8)) is null as slept, cast($2 as text) as tag";
    // Holds the only session while the next three wait and go out together.
    const busy = read(sleep, ["0.2", "busy"], undefined);
    const fast = read<{ tag: string }>(sleep, ["0", "fast"], undefined);
    const slow = read(sleep, ["5", "slow"], Date.now() + 600);
    const after = read<{ tag: string }>(sleep, ["0", "after"], undefined);
    await busy;
    await expect(slow).rejects.toBeInstanceOf(DeadlineExceeded);
    expect((await fast)[0]!.tag).toBe("fast");
    expect((await after)[0]!.tag).toBe("after");
  });

  it("fails a read whose deadline passed while it waited, without sending it", async () => {
    const { pool, messages } = recordedPool(1);
    const read = recurringReads(pool, 1, cancelling(cancels));
    const busy = read("select pg_sleep(cast($1 as float8)) is null as s", ["0.2"], undefined);
    const late = read(square, ["3"], Date.now() + 50);
    await expect(late).rejects.toBeInstanceOf(DeadlineExceeded);
    await busy;
    expect(messages.some((text) => text.includes("'3'"))).toBe(false);
  });

  it("sends no more on a session a cancel was sent to, even when its statement finished", async () => {
    const { pool } = recordedPool(1);
    // A cancel sent too late to stop the statement may land on the session's next one.
    const doomed = new Set<pg.PoolClient>();
    const lateCancel: DeadlineGuard = Object.assign(
      async <T>(client: pg.PoolClient, _deadline: number, run: () => Promise<T>) => {
        doomed.add(client);
        return run();
      },
      { cancelled: (client: pg.PoolClient) => doomed.has(client) },
    );
    const read = recurringReads(pool, 1, lateCancel);
    const pid = "select pg_backend_pid() as pid, pg_sleep(cast($1 as float8)) is null as s";
    const later = Date.now() + 60_000;
    const first = read<{ pid: number }>(pid, ["0.1"], later);
    const next = ["0", "0", "0"].map((v) => read<{ pid: number }>(pid, [v], later));
    const firstPid = (await first)[0]!.pid;
    const nextPids = (await Promise.all(next)).map((rows) => rows[0]!.pid);
    expect(nextPids.every((p) => p !== firstPid)).toBe(true);
  });

  it("keeps to two sessions while they answer, however many the pool has", async () => {
    const { pool, messages } = recordedPool(10);
    const read = recurringReads(pool, 10, cancelling(cancels), { stallMs: 60_000 });
    const pid = "select pg_backend_pid() as pid, cast($1 as integer) as n";
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => read<{ pid: number }>(pid, [String(i)], undefined)),
    );
    expect(new Set(answers.map((rows) => rows[0]!.pid)).size).toBeLessThanOrEqual(2);
    expect(messages.length).toBeLessThan(100);
  });

  it("takes another session while the busy ones answer nothing, and only then", async () => {
    const { pool } = recordedPool(3);
    const read = recurringReads(pool, 3, cancelling(cancels), { steady: 1, stallMs: 20 });
    const sleep = "select pg_backend_pid() as pid, pg_sleep(cast($1 as float8)) is null as s";
    const done: string[] = [];
    const slow = read<{ pid: number }>(sleep, ["1"], undefined).then((rows) => {
      done.push("slow");
      return rows[0]!.pid;
    });
    // Waits behind the slow read until the stall gives it a session of its own.
    const fast = read<{ pid: number }>(sleep, ["0"], undefined).then((rows) => {
      done.push("fast");
      return rows[0]!.pid;
    });
    const [slowPid, fastPid] = await Promise.all([slow, fast]);
    expect(done).toEqual(["fast", "slow"]);
    expect(fastPid).not.toBe(slowPid);
    // With the stall over, reads that keep answering stay on one session again.
    const after = await Promise.all(
      ["0", "0", "0", "0"].map((v) => read<{ pid: number }>(sleep, [v], undefined)),
    );
    expect(new Set(after.map((rows) => rows[0]!.pid)).size).toBe(1);
  });

  it("answers every read as it would alone, whatever waits beside it", async () => {
    const { pool } = recordedPool(2);
    const read = recurringReads(pool, 2, cancelling(cancels));
    const alone = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    pools.push(alone);
    const statements = [
      square,
      "select cast($1 as text) || '!' as n",
      "select count(*) as n from generate_series(1, cast($1 as integer))",
    ];
    const value = fc.oneof(fc.integer({ min: -50, max: 50 }).map(String), fc.constant("x"));
    const reads = fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), value), {
      minLength: 1,
      maxLength: 30,
    });
    const outcome = async (run: () => Promise<unknown[]>) => {
      try {
        return { rows: await run() };
      } catch (cause) {
        return { error: (cause as { code?: string }).code };
      }
    };
    await fc.assert(
      fc.asyncProperty(reads, async (list) => {
        const together = await Promise.all(
          list.map(([s, v]) => outcome(() => read(statements[s]!, [v], undefined))),
        );
        for (const [i, [s, v]] of list.entries()) {
          const single = await outcome(
            async () => (await alone.query(statements[s]!, [v])).rows as unknown[],
          );
          expect(together[i]).toEqual(single);
        }
      }),
      { numRuns: 25 },
    );
  });
});
