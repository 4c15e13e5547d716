/**
 * Data bindings `keys` (project extension): plain scans of one table that a question joins on
 * the table's key read the same row, and are read as one scan. Checked three ways: which
 * queries count as plain scans, that the emitted SQL holds one scan where it may (and two
 * where it may not), and that the merged statements, executed, give the reference
 * evaluator's answers on random tables (unique ids, NULL columns, central rows).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import { DataBindingsError, parseDataBindings } from "../src/bindings/parse.js";
import { plainScan, tableName } from "../src/bindings/query.js";
import type { GroundFact } from "../src/core/value.js";
import { authorize, list } from "../src/evaluate/index.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

describe("plain scans", () => {
  it("recognizes SELECT items FROM one table with an optional WHERE", () => {
    expect(plainScan("SELECT id, org_id FROM docs")).toEqual({
      table: "docs",
      tableName: tableName("docs"),
      items: ["id", "org_id"],
      columns: [tableName("id"), tableName("org_id")],
      conditions: [],
    });
    const scan = plainScan(
      `select "Id", lower(title) AS t FROM app."Docs" WHERE public AND (a OR b) -- c\n`,
    );
    expect(scan?.table).toBe('app."Docs"');
    expect(scan?.tableName).toBe(tableName('APP."Docs"'));
    expect(scan?.items).toEqual(['"Id"', "lower(title) AS t"]);
    expect(scan?.columns).toEqual([tableName('"Id"'), null]);
    expect(scan?.conditions).toEqual(["public AND (a OR b) -- c"]);
  });

  it.each([
    "SELECT DISTINCT id FROM docs",
    "SELECT * FROM docs",
    "SELECT d.* FROM docs d",
    "SELECT id FROM docs d",
    "SELECT id FROM docs AS d",
    "SELECT id FROM docs JOIN orgs ON true",
    "SELECT id FROM docs, orgs",
    "SELECT id FROM docs WHERE x GROUP BY id",
    "SELECT id FROM docs WHERE x ORDER BY id",
    "SELECT id FROM docs LIMIT 3",
    "SELECT id FROM docs WHERE x UNION SELECT id FROM other",
    "SELECT id FROM generate_series(1, 3) AS id",
    "WITH x AS (SELECT 1) SELECT id FROM x",
    "VALUES (1)",
  ])("does not take `%s` for a plain scan", (query) => {
    expect(plainScan(query)).toBeNull();
  });

  it("keeps subqueries in items and conditions", () => {
    const scan = plainScan(
      "SELECT id, (SELECT max(v) FROM w LIMIT 1) FROM docs WHERE id IN (SELECT d FROM x ORDER BY 1)",
    );
    expect(scan?.items).toHaveLength(2);
    expect(scan?.conditions).toEqual(["id IN (SELECT d FROM x ORDER BY 1)"]);
  });
});

describe("the `keys` section", () => {
  it("reads a column or a list of columns per table", () => {
    const parsed = parseDataBindings(`keys:
  docs: id
  app."Roles": [user_id, '"Org"']
`);
    expect(parsed.keys).toEqual(
      new Map([
        [tableName("docs"), [tableName("id")]],
        [tableName('app."Roles"'), [tableName("user_id"), tableName('"Org"')]],
      ]),
    );
  });

  it.each([
    ["keys:\n  docs: [id, 3]\n", "`keys` entry `docs` must be a column name or a list of them"],
    ["keys:\n  docs: []\n", "`keys` entry `docs` must be a column name or a list of them"],
    ["keys:\n  docs d: id\n", "invalid table name `docs d` in `keys`"],
    ["keys:\n  docs: docs.id\n", "invalid column name `docs.id` for `docs` in `keys`"],
    ["keys:\n  docs: id\n  DOCS: id\n", "duplicate table `DOCS` in `keys`"],
    ["keys: [docs]\n", "`keys` must be a mapping from table names to key columns"],
  ])("rejects %j", (yaml, message) => {
    expect(() => parseDataBindings(yaml)).toThrow(DataBindingsError);
    expect(() => parseDataBindings(yaml)).toThrow(message);
  });
});

const policy = checked(`actor User {}
resource Org { roles = ["member"]; }
resource Doc {
  permissions = ["read", "edit"];
  relations = { org: Org };
  "read" if is_public(resource) and "member" on "org";
  "edit" if "member" on "org" and not is_locked(resource);
}`);

function bindingsYaml(keys: boolean, alias = false): string {
  return `facts:
  has_relation(Doc:_, org, Org:_):
    query: SELECT id, org_id FROM docs
  is_public(Doc:_):
    query: SELECT id FROM docs ${alias ? "AS d " : ""}WHERE is_public -- public ones
  is_locked(Doc:_):
    query: SELECT id FROM docs WHERE locked
  has_role(User:_, String:_, Org:_):
    query: SELECT user_id, role, org_id FROM members
sql_types:
  Doc: integer
  Org: integer
${keys ? "keys:\n  docs: id\n" : ""}`;
}

/** Reads of the table: in a binding's CTE (`FROM docs`) or inlined (`docs as f0`). */
const scansOfDocs = (sql: string) => sql.match(/\bdocs\b(?!\.)/gi)?.length ?? 0;

describe("emitted SQL", () => {
  const listSql = (yaml: string, action: string) =>
    listQuery(policy, {
      query: { actor_type: "User", actor_id: "u1", action, resource_type: "Doc" },
      column: "docs.id",
      data_bindings: yaml,
    }).sql;

  it("reads two bindings of one table joined on its key as one scan", () => {
    const merged = listSql(bindingsYaml(true), "read");
    expect(merged).toContain("select id, id, org_id from docs where (is_public -- public ones\n)");
    expect(scansOfDocs(merged)).toBe(1);
    expect(scansOfDocs(listSql(bindingsYaml(false), "read"))).toBe(2);
  });

  it("merges inside `not` only scans joined there, not across it", () => {
    // `is_locked` is read under NOT EXISTS: its own scan, correlated on the key.
    expect(scansOfDocs(listSql(bindingsYaml(true), "edit"))).toBe(2);
  });

  it("leaves a binding that is no plain scan as it is", () => {
    expect(scansOfDocs(listSql(bindingsYaml(true, true), "read"))).toBe(2);
  });

  it("keeps both scans where central rows join the binding", () => {
    const central = inMemoryCentralFacts([
      { predicate: "is_public", args: [{ type: "Doc", id: "9" }] },
    ]);
    const sql = listQuery(
      policy,
      {
        query: { actor_type: "User", actor_id: "u1", action: "read", resource_type: "Doc" },
        column: "docs.id",
        data_bindings: bindingsYaml(true),
      },
      { central },
    ).sql;
    expect(scansOfDocs(sql)).toBe(2);
  });
});

interface Doc {
  readonly id: number;
  readonly org: number | null;
  readonly isPublic: boolean | null;
  readonly locked: boolean;
}

const docsArbitrary = fc.uniqueArray(
  fc.record({
    id: fc.integer({ min: 1, max: 12 }),
    org: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 5 }),
    isPublic: fc.option(fc.boolean(), { nil: null, freq: 6 }),
    locked: fc.boolean(),
  }),
  { selector: (doc) => doc.id, maxLength: 10 },
);
const membersArbitrary = fc.uniqueArray(
  fc.record({ user: fc.constantFrom("u1", "u2"), org: fc.integer({ min: 1, max: 3 }) }),
  { selector: (m) => `${m.user}/${m.org}`, maxLength: 5 },
);

function factsOf(docs: readonly Doc[], members: readonly { user: string; org: number }[]) {
  const facts: GroundFact[] = [];
  const doc = (id: number) => ({ type: "Doc", id: String(id) });
  for (const d of docs) {
    if (d.org !== null) {
      facts.push({
        predicate: "has_relation",
        args: [doc(d.id), { type: "String", id: "org" }, { type: "Org", id: String(d.org) }],
      });
    }
    if (d.isPublic === true) facts.push({ predicate: "is_public", args: [doc(d.id)] });
    if (d.locked) facts.push({ predicate: "is_locked", args: [doc(d.id)] });
  }
  for (const m of members) {
    facts.push({
      predicate: "has_role",
      args: [
        { type: "User", id: m.user },
        { type: "String", id: "member" },
        { type: "Org", id: String(m.org) },
      ],
    });
  }
  return facts;
}

describeEngines("merged scans on $name", (engine) => {
  it("answer as the reference evaluator does", async () => {
    const db = await engine.db();
    await db.exec(`DROP TABLE IF EXISTS docs, members;
CREATE TABLE docs (id integer PRIMARY KEY, org_id integer, is_public boolean, locked boolean NOT NULL);
CREATE TABLE members (user_id text, role text, org_id integer);`);
    const yaml = bindingsYaml(true);
    await fc.assert(
      fc.asyncProperty(docsArbitrary, membersArbitrary, async (docs, members) => {
        const rows = docs.map(
          (d) => `(${d.id}, ${d.org ?? "NULL"}, ${d.isPublic ?? "NULL"}, ${d.locked})`,
        );
        const memberRows = members.map((m) => `('${m.user}', 'member', ${m.org})`);
        await db.exec(`TRUNCATE docs, members;
${rows.length ? `INSERT INTO docs VALUES ${rows.join(", ")};` : ""}
${memberRows.length ? `INSERT INTO members VALUES ${memberRows.join(", ")};` : ""}`);
        const facts = factsOf(docs, members);
        for (const user of ["u1", "u2"]) {
          for (const action of ["read", "edit"]) {
            const fragment = listQuery(policy, {
              query: { actor_type: "User", actor_id: user, action, resource_type: "Doc" },
              column: "d.id",
              data_bindings: yaml,
            }).sql;
            const found = await db.query<{ id: number }>(
              `SELECT d.id FROM generate_series(1, 12) AS d(id) WHERE ${fragment} ORDER BY 1`,
            );
            const expected = list(policy, facts, { type: "User", id: user }, action, "Doc");
            expect(found.map((r) => String(r.id)).sort()).toEqual([...expected].sort());
            for (const id of [1, 5, 12]) {
              const statement = authorizeQuery(policy, {
                query: {
                  actor_type: "User",
                  actor_id: user,
                  action,
                  resource_type: "Doc",
                  resource_id: String(id),
                },
                data_bindings: yaml,
              }).sql;
              const [row] = await db.query<{ allowed: boolean }>(statement);
              const resource = { type: "Doc", id: String(id) };
              expect(row!.allowed).toBe(
                authorize(policy, facts, { type: "User", id: user }, action, resource),
              );
            }
          }
        }
      }),
      { numRuns: propertyRuns(10, 40) },
    );
  });
});
