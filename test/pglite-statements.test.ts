import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteStatements } from "../src/store/pglite-statements.js";

describe("prepared statements on PGlite through the extended protocol", () => {
  let db: PGlite;
  let run: ReturnType<typeof pgliteStatements>;
  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec("create table t (id bigint, name text, ok boolean)");
    await db.exec("insert into t values (1, 'ada', true), (2, 'bo', false)");
    run = pgliteStatements(db);
  }, 60_000);
  afterAll(() => db.close());

  const byId = "select name, ok, id from t where id = cast($1 as bigint)";

  it("answers typed rows, as query does, for each set of values", async () => {
    expect(await run(byId, ["1"])).toEqual([{ name: "ada", ok: true, id: 1 }]);
    expect(await run(byId, ["2"])).toEqual((await db.query(byId, ["2"])).rows);
    expect(await run(byId, ["3"])).toEqual([]);
  });

  it("refuses a value the type cannot read, and goes on answering", async () => {
    await expect(run(byId, ["2x"])).rejects.toThrow(/invalid input syntax for type bigint/);
    expect(await run(byId, ["1"])).toEqual([{ name: "ada", ok: true, id: 1 }]);
    await expect(run("select nonsense from", [])).rejects.toThrow(/syntax error/);
    expect(await run(byId, ["2"])).toHaveLength(1);
  });

  it("waits for a transaction in progress instead of running inside it", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted: () => void = () => {};
    const begun = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.exec("insert into t values (3, 'cy', true)");
      inserted();
      await held;
      await tx.rollback();
    });
    await begun;
    const outside = run(byId, ["3"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await transaction;
    // Had it run inside the transaction, it would have seen the row that was rolled back.
    expect(await outside).toEqual([]);
  });

  it("keeps a bounded number of named statements, closing the oldest", async () => {
    for (let i = 0; i < 205; i++) {
      expect(await run(`select cast($1 as integer) + ${i} as n`, ["1"])).toEqual([{ n: 1 + i }]);
    }
    const [row] = (
      await db.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements")
    ).rows;
    expect(row!.n).toBeLessThanOrEqual(200);
    expect(await run("select cast($1 as integer) + 0 as n", ["5"])).toEqual([{ n: 5 }]);
  });
});
