/**
 * `list_query` filters over the caller's own rows (src/lower/caller-rows.ts) on MariaDB and
 * SQLite: the condition written on the caller's row selects the rows the `IN (subquery)` form
 * and the reference evaluator select, NULL ids and columns included.
 */
import { beforeAll, expect, it } from "vitest";
import { listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import { list } from "../src/evaluate/index.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { type DialectDatabase, describeDialects } from "./support/dialect-engines.js";

const policy = checked(`actor User {}
resource Report {
  permissions = ["read"];
  relations = { owner: User };
  "read" if "owner";
}
managed_by(e: User, m: User) if manages(m, e);
managed_by(e: User, m: User) if manages(x, e) and managed_by(x, m);
has_permission(user: User, "read", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user);`);

const ROWS: readonly (readonly [number | null, number | null])[] = [
  [1, 0],
  [2, 1],
  [3, 2],
  [4, 3],
  [5, null],
  [null, 1],
  [null, 3],
  [6, 4],
];
const central: GroundFact[] = [
  [0, 1],
  [1, 2],
  [1, 3],
].map(([m, e]) => ({
  predicate: "manages",
  args: [
    { type: "User", id: String(m) },
    { type: "User", id: String(e) },
  ],
}));
const relations: GroundFact[] = ROWS.flatMap(([id, owner]) =>
  id === null || owner === null
    ? []
    : [
        {
          predicate: "has_relation",
          args: [
            { type: "Report", id: String(id) },
            { type: "String", id: "owner" },
            { type: "User", id: String(owner) },
          ],
        },
      ],
);

describeDialects("filters over the caller's rows on $name", (engine) => {
  let db: DialectDatabase;
  let schema = "";
  beforeAll(async () => {
    db = await engine.db();
    await db.exec("CREATE TABLE crq_reports (id integer UNIQUE, owner_id integer)");
    const values = ROWS.map(([id, owner]) => `(${id ?? "NULL"}, ${owner ?? "NULL"})`);
    await db.exec(`INSERT INTO crq_reports VALUES ${values.join(", ")}`);
    schema =
      engine.dialect === "mysql"
        ? String(Object.values((await db.query("SELECT DATABASE() AS d"))[0]!)[0])
        : "main";
  });

  it("select the rows of the IN form and of the reference evaluator", async () => {
    const table = `${schema}.crq_reports`;
    const yaml = `facts:
  has_relation(Report:_, owner, User:_):
    query: SELECT id, owner_id FROM ${table}
keys:
  ${table}: id
`;
    for (const actor of ["0", "1", "2", "3"]) {
      const ask = (column: string) =>
        listQuery(
          policy,
          {
            query: { actor_type: "User", actor_id: actor, action: "read", resource_type: "Report" },
            column,
            data_bindings: yaml,
          },
          { central: inMemoryCentralFacts(central), dialect: engine.dialect },
        ).sql;
      const direct = ask(`${table}.id`);
      expect(direct).not.toMatch(/\.id in \(/i);
      const ids = async (sql: string) =>
        (await db.query<{ id: unknown }>(sql)).map((r) => String(r.id)).sort();
      const got = await ids(`SELECT id FROM ${table} WHERE ${direct}`);
      expect(got).toEqual(await ids(`SELECT r.id FROM ${table} AS r WHERE ${ask("r.id")}`));
      const expected = list(
        policy,
        [...central, ...relations],
        { type: "User", id: actor },
        "read",
        "Report",
      );
      expect(got, `actor ${actor}`).toEqual([...expected].sort());
    }
  });
});
