/**
 * `list_query` filters over the caller's own rows (src/lower/caller-rows.ts): when the caller's
 * column names a binding's schema-qualified table and its declared key, a branch that reads
 * only that table is written as a condition on the caller's row instead of `IN (subquery)`.
 * Checked two ways: which fragments take the direct form (and which must not), and that the
 * direct form, executed on random tables (NULL ids and columns, central recursion, a branch
 * that stays a subquery), selects the rows the reference evaluator lists and the `IN` form
 * selects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import { list } from "../src/evaluate/index.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

/** The subquery form on the caller's column: `IN (…)`, on PostgreSQL an array computed once. */
const SUBQUERY_ON_COLUMN = / (in \(|= any\(array\(\(?)(with|select)/i;

const policy = checked(`actor User {}
resource Org { roles = ["member"]; }
resource Report {
  permissions = ["read"];
  relations = { owner: User, org: Org };
  "read" if "owner";
  "read" if "member" on "org";
}
managed_by(e: User, m: User) if manages(m, e);
managed_by(e: User, m: User) if manages(x, e) and managed_by(x, m);
has_permission(user: User, "read", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user);`);

interface BindingsOptions {
  readonly table?: string;
  readonly where?: string;
  readonly keys?: string | null;
  /** Roles read from a table too, so the org branch joins two scans. */
  readonly members?: boolean;
}

function bindings(options: BindingsOptions = {}): string {
  const table = options.table ?? "crq.reports";
  const where = options.where ? ` WHERE ${options.where}` : "";
  const keys = options.keys === undefined ? `${table}: id` : options.keys;
  return `facts:
  has_relation(Report:_, owner, User:_):
    query: SELECT id, owner_id FROM ${table}${where}
  has_relation(Report:_, org, Org:_):
    query: SELECT id, org_id FROM ${table}
${options.members ? "  has_role(User:_, member, Org:_):\n    query: SELECT user_id, org_id FROM crq.members\n" : ""}${keys === null ? "" : `keys:\n  ${keys}\n`}`;
}

const manages = (manager: number, report: number): GroundFact => ({
  predicate: "manages",
  args: [
    { type: "User", id: String(manager) },
    { type: "User", id: String(report) },
  ],
});
const member = (user: number, org: number): GroundFact => ({
  predicate: "has_role",
  args: [
    { type: "User", id: String(user) },
    { type: "String", id: "member" },
    { type: "Org", id: String(org) },
  ],
});

function fragment(yaml: string, column: string, central: GroundFact[] = [manages(0, 1)]) {
  return listQuery(
    policy,
    {
      query: { actor_type: "User", actor_id: "0", action: "read", resource_type: "Report" },
      column,
      data_bindings: yaml,
    },
    { central: inMemoryCentralFacts(central) },
  ).sql;
}

describe("which filters read the caller's rows directly", () => {
  it("writes the owner branches as conditions on the caller's row", () => {
    const sql = fragment(bindings(), "crq.reports.id");
    expect(sql).toContain("crq.reports.owner_id");
    expect(sql).toContain("crq.reports.id is not null");
    // No member facts: the org branch has no rows, so no subquery is left.
    expect(sql).not.toMatch(/reports\.id in \(/);
  });

  it("reads quoted names as the database does", () => {
    const yaml = `facts:
  has_relation(Report:_, owner, User:_):
    query: SELECT "Id", "Owner" FROM "Crq"."Reports"
keys:
  '"Crq"."Reports"': '"Id"'
`;
    const direct = fragment(yaml, ' "Crq" . "Reports" . "Id" ');
    expect(direct).toContain('"Crq"."Reports"."Owner" in (');
    // Unquoted, the names fold to lower case: another table and column.
    for (const column of ['crq."Reports"."Id"', '"Crq"."Reports".id']) {
      expect(fragment(yaml, column)).toMatch(SUBQUERY_ON_COLUMN);
    }
  });

  it("writes a branch joined through a subquery beside another as an array", () => {
    // `owner_id in (…) or org_id in (<subquery>)` is not a join (test/local-caller-joins.test.ts).
    const sql = fragment(bindings({ members: true }), "crq.reports.id");
    expect(sql).toContain("crq.reports.owner_id in (");
    expect(sql).toMatch(
      /crq\.reports\.org_id = any\(array\(\(select f\d+\.org_id from crq\.members/,
    );
    expect(sql).not.toMatch(/ in \((select|with)/);
  });

  it.each([
    ["an alias for the column", bindings(), "r.id"],
    ["another column of the table", bindings(), "crq.reports.owner_id"],
    ["another table", bindings(), "crq.other.id"],
    ["a table without schema", bindings({ table: "reports" }), "reports.id"],
    ["a binding with a WHERE condition", bindings({ where: "owner_id > 0" }), "crq.reports.id"],
    ["no keys", bindings({ keys: null }), "crq.reports.id"],
    ["a key of two columns", bindings({ keys: "crq.reports: [id, owner_id]" }), "crq.reports.id"],
  ])("keeps the IN form for %s", (_what, yaml, column) => {
    const sql = fragment(yaml, column);
    expect(sql).toMatch(SUBQUERY_ON_COLUMN);
    // Not the direct form on the row (`crq.reports.owner_id in ('0', '1')` or `= any('{…}')`).
    expect(sql).not.toMatch(/crq\.reports\.owner_id (in \(|= any\('\{)/);
  });
});

interface Row {
  readonly id: number | null;
  readonly owner: number | null;
  readonly org: number | null;
}

const maybe = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: null, freq: 5 });
const rowsArbitrary = fc
  .array(
    fc.record({
      id: maybe(fc.integer({ min: 1, max: 12 })),
      owner: maybe(fc.nat(5)),
      org: maybe(fc.integer({ min: 1, max: 3 })),
    }),
    { maxLength: 10 },
  )
  .map((rows): Row[] => {
    // The key is unique; NULL ids may repeat.
    const seen = new Set<number>();
    return rows.map((row) => {
      if (row.id === null || !seen.has(row.id)) {
        if (row.id !== null) seen.add(row.id);
        return row;
      }
      return { ...row, id: null };
    });
  });
const edgesArbitrary = fc.array(fc.tuple(fc.nat(5), fc.nat(5)), { maxLength: 8 });
const membersArbitrary = fc.array(fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 3 })), {
  maxLength: 3,
});

function factsOf(rows: readonly Row[], central: readonly GroundFact[]): GroundFact[] {
  const facts = [...central];
  for (const row of rows) {
    if (row.id === null) continue;
    for (const [name, type, value] of [
      ["owner", "User", row.owner],
      ["org", "Org", row.org],
    ] as const) {
      if (value === null) continue;
      facts.push({
        predicate: "has_relation",
        args: [
          { type: "Report", id: String(row.id) },
          { type: "String", id: name },
          { type, id: String(value) },
        ],
      });
    }
  }
  return facts;
}

describeEngines("filters over the caller's rows on $name", (engine) => {
  it("select the rows of the IN form and of the reference evaluator", async () => {
    const db = await engine.db();
    await db.exec(`DROP SCHEMA IF EXISTS crq CASCADE; CREATE SCHEMA crq;
CREATE TABLE crq.reports (id integer UNIQUE, owner_id integer, org_id integer);
CREATE INDEX ON crq.reports (owner_id);`);
    const yaml = bindings();
    await fc.assert(
      fc.asyncProperty(
        rowsArbitrary,
        edgesArbitrary,
        membersArbitrary,
        async (rows, edges, members) => {
          const values = rows.map(
            (r) => `(${r.id ?? "NULL"}, ${r.owner ?? "NULL"}, ${r.org ?? "NULL"})`,
          );
          await db.exec(`TRUNCATE crq.reports;
${values.length ? `INSERT INTO crq.reports VALUES ${values.join(", ")};` : ""}`);
          const centralFacts = [
            ...edges.map(([m, e]) => manages(m, e)),
            ...members.map(([u, o]) => member(u, o)),
          ];
          const central = inMemoryCentralFacts(centralFacts);
          const facts = factsOf(rows, centralFacts);
          for (const actor of ["0", "1", "2"]) {
            const ask = (column: string) =>
              listQuery(
                policy,
                {
                  query: {
                    actor_type: "User",
                    actor_id: actor,
                    action: "read",
                    resource_type: "Report",
                  },
                  column,
                  data_bindings: yaml,
                },
                { central },
              ).sql;
            const direct = await db.query<{ id: number }>(
              `SELECT id FROM crq.reports WHERE ${ask("crq.reports.id")} ORDER BY 1`,
            );
            const subquery = await db.query<{ id: number }>(
              `SELECT r.id FROM crq.reports AS r WHERE ${ask("r.id")} ORDER BY 1`,
            );
            expect(direct).toEqual(subquery);
            const expected = list(policy, facts, { type: "User", id: actor }, "read", "Report");
            expect(direct.map((r) => String(r.id)).sort()).toEqual([...expected].sort());
          }
        },
      ),
      { numRuns: propertyRuns(10, 40) },
    );
  });
});
