/**
 * Plain scans read from their tables on SQLite and PostgreSQL (src/lower/inline-scans.ts):
 * which bindings are inlined, which add their condition to the reader's WHERE, and which keep
 * their CTE; and, for random rows and random spellings of the binding queries, answers equal
 * to the reference evaluator's on each real engine. The spellings include a WHERE condition
 * naming a column that the joined table has too (it must stay the binding's own), a condition
 * with a function (a subquery on SQLite, the CTE on PostgreSQL), and select items SQLite reads
 * otherwise through a table (`"role"`, `AS`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import { authorize, list } from "../src/evaluate/index.js";
import { closeEngines, type EngineRunner, RUNNERS } from "./dialect-runners.js";

import { checked } from "./local-support.js";
import { propertyRuns } from "./support/runs.js";

// Engines this file opened (test/dialect-runners.ts).
afterAll(closeEngines);

const policy = checked(`actor User {}
resource Org { roles = ["member"]; }
resource Doc {
  permissions = ["read"];
  roles = ["reader"];
  relations = { org: Org };
  "reader" if "member" on "org";
  "read" if "reader";
}`);

/** Spellings of each binding's query; the comment says whether its scan is inlined. */
const DOC_ROLES = [
  "SELECT user_id, role, doc_id FROM ils_roles", // inlined
  "SELECT user_id, role, doc_id FROM ils_roles WHERE doc_id IS NOT NULL", // inlined, subquery
  'SELECT user_id, "role", doc_id FROM ils_roles', // CTE: a quoted name
  "SELECT user_id, role AS r, doc_id FROM ils_roles", // CTE: not a bare column
  "SELECT user_id, role, doc_id FROM ils_roles WHERE coalesce(doc_id, 0) > 0", // a function
] as const;
const ORG_ROLES = [
  "SELECT user_id, role, org_id FROM ils_roles WHERE org_id IS NOT NULL", // `org_id` of both tables
  "SELECT user_id, role, org_id FROM ils_roles",
] as const;
const DOC_ORGS = [
  "SELECT id, org_id FROM ils_docs",
  "SELECT id, org_id FROM ils_docs WHERE note <> 'hidden'",
  "SELECT id, org_id FROM ils_docs WHERE note IN ('shown') AND org_id IS NOT NULL",
] as const;

/** The bindings of a spelling; MySQL quotes the name with backticks (`"role"` is a string there). */
function yaml(spelling: readonly [number, number, number], dialect = "sqlite"): string {
  const docRoles = DOC_ROLES[spelling[0]]!;
  return `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: ${dialect === "mysql" ? docRoles.replace('"role"', "`role`") : docRoles}
  "has_role(User:_, String:_, Org:_)":
    query: ${ORG_ROLES[spelling[1]]}
  "has_relation(Doc:_, org, Org:_)":
    query: ${DOC_ORGS[spelling[2]]}
sql_types:
  Doc: integer
  Org: integer
`;
}

const USERS = ["ann", "bob", "Ann"];
const ROLES = ["reader", "member", "Reader"];

interface Rows {
  readonly roles: readonly (readonly [string, string, number | null, number | null])[];
  readonly docs: readonly (readonly [number, number | null, string])[];
}

const rowsArbitrary: fc.Arbitrary<Rows> = fc.record({
  roles: fc.array(
    fc.tuple(
      fc.constantFrom(...USERS),
      fc.constantFrom(...ROLES),
      fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
      fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    ),
    { maxLength: 8 },
  ),
  docs: fc.uniqueArray(
    fc.tuple(
      fc.integer({ min: 1, max: 4 }),
      fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      fc.constantFrom("hidden", "shown"),
    ),
    { selector: ([id]) => id },
  ),
});

/** The facts each spelling reads from the rows. */
function factsOf(rows: Rows, spelling: readonly [number, number, number]): GroundFact[] {
  const user = (id: string) => ({ type: "User", id });
  const facts: GroundFact[] = [];
  for (const [id, role, doc, org] of rows.roles) {
    if (doc !== null) {
      facts.push({
        predicate: "has_role",
        args: [user(id), { type: "String", id: role }, { type: "Doc", id: String(doc) }],
      });
    }
    if (org !== null) {
      facts.push({
        predicate: "has_role",
        args: [user(id), { type: "String", id: role }, { type: "Org", id: String(org) }],
      });
    }
  }
  for (const [id, org, note] of rows.docs) {
    if (org === null || (spelling[2] >= 1 && note === "hidden")) continue;
    facts.push({
      predicate: "has_relation",
      args: [
        { type: "Doc", id: String(id) },
        { type: "String", id: "org" },
        { type: "Org", id: String(org) },
      ],
    });
  }
  return facts;
}

describe("plain scans on SQLite", () => {
  let dir: string;
  let db: Database.Database;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "polar-inline-"));
    db = new Database(join(dir, "t.db"));
    db.exec(`CREATE TABLE ils_roles (user_id text, role text, doc_id integer, org_id integer);
CREATE TABLE ils_docs (id integer PRIMARY KEY, org_id integer, note text)`);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (spelling: readonly [number, number, number], actor: string, doc: number) =>
    authorizeQuery(
      policy,
      {
        query: {
          actor_type: "User",
          actor_id: actor,
          action: "read",
          resource_type: "Doc",
          resource_id: String(doc),
        },
        data_bindings: yaml(spelling),
      },
      { dialect: "sqlite" },
    ).sql;

  it("are read from their tables; other bindings keep their CTE", () => {
    const plain = ask([0, 1, 0], "ann", 1);
    expect(plain).not.toContain("polar_c");
    expect(plain).toContain("from ils_roles as f0 where f0.user_id = 'ann' collate binary");
    // Conditions on columns join the reader's WHERE, each under its own alias.
    const conditions = ask([1, 0, 1], "ann", 1);
    expect(conditions).not.toContain("polar_c");
    expect(conditions).toContain("from ils_roles as f0 where (f0.doc_id IS NOT NULL)");
    expect(conditions).toMatch(/\(f0\.note <> 'hidden'\) and \(f1\.org_id IS NOT NULL\)/);
    expect(ask([4, 1, 0], "ann", 1)).toContain(
      "from (select user_id, role, doc_id from ils_roles where (coalesce(doc_id, 0) > 0)) as f0",
    );
    const quoted = ask([2, 1, 0], "ann", 1);
    expect(quoted).toContain(`polar_c0(arg0, arg1, arg2) as not materialized (${DOC_ROLES[2]})`);
    expect(quoted).toContain("from polar_c0 as f0");
    expect(ask([3, 1, 0], "ann", 1)).toContain("from polar_c0 as f0");
  });

  it("answer as the reference evaluator for every spelling", () => {
    const spellingArbitrary = fc.tuple(
      fc.nat({ max: DOC_ROLES.length - 1 }),
      fc.nat({ max: ORG_ROLES.length - 1 }),
      fc.nat({ max: DOC_ORGS.length - 1 }),
    );
    fc.assert(
      fc.property(rowsArbitrary, spellingArbitrary, (rows, spelling) => {
        db.exec("DELETE FROM ils_roles; DELETE FROM ils_docs");
        const role = db.prepare("INSERT INTO ils_roles VALUES (?, ?, ?, ?)");
        for (const row of rows.roles) role.run(...row);
        const doc = db.prepare("INSERT INTO ils_docs VALUES (?, ?, ?)");
        for (const row of rows.docs) doc.run(...row);
        const facts = factsOf(rows, spelling);
        for (const actor of USERS) {
          for (const id of [1, 2, 3, 4]) {
            const row = db.prepare(ask(spelling, actor, id)).get() as { allowed: number };
            const expected = authorize(policy, facts, { type: "User", id: actor }, "read", {
              type: "Doc",
              id: String(id),
            });
            expect(row.allowed === 1, `${actor} read ${id}`).toBe(expected);
          }
          const fragment = listQuery(
            policy,
            {
              query: { actor_type: "User", actor_id: actor, action: "read", resource_type: "Doc" },
              column: "d.id",
              data_bindings: yaml(spelling),
            },
            { dialect: "sqlite" },
          ).sql;
          const ids = (
            db
              .prepare(
                `SELECT d.id FROM (SELECT 1 AS id UNION SELECT 2 UNION SELECT 3 UNION SELECT 4) AS d WHERE ${fragment}`,
              )
              .all() as { id: number }[]
          ).map((r) => String(r.id));
          const expected = list(policy, facts, { type: "User", id: actor }, "read", "Doc");
          expect(ids.sort(), `list ${actor}`).toEqual([...expected].sort());
        }
      }),
      { numRuns: propertyRuns(20, 100) },
    );
  });
});

/** Rows of the tables as one INSERT each: constants of the arbitraries, safe to write. */
function insertRows(rows: Rows): string {
  const text = (value: string | number | null) =>
    value === null ? "NULL" : typeof value === "number" ? String(value) : `'${value}'`;
  const values = (table: string, list: readonly (readonly (string | number | null)[])[]) =>
    list.length === 0
      ? ""
      : `INSERT INTO ${table} VALUES ${list.map((row) => `(${row.map(text).join(", ")})`).join(", ")};\n`;
  return values("ils_roles", rows.roles) + values("ils_docs", rows.docs);
}

describe.each(["postgres", "mysql"] as const)("plain scans on %s", (dialect) => {
  const open = RUNNERS[dialect];
  let engine: EngineRunner;
  beforeAll(async () => {
    if (!open) return;
    engine = await open();
    await engine.exec(`CREATE TABLE ils_roles (user_id varchar(16), role varchar(16), doc_id integer, org_id integer);
CREATE TABLE ils_docs (id integer PRIMARY KEY, org_id integer, note varchar(16))`);
  });

  const body = (spelling: readonly [number, number, number], actor: string) => ({
    query: { actor_type: "User", actor_id: actor, action: "read", resource_type: "Doc" },
    data_bindings: yaml(spelling, dialect),
  });
  const ask = (spelling: readonly [number, number, number], actor: string, doc: number) => {
    const request = body(spelling, actor);
    const query = { ...request.query, resource_id: `${doc}` };
    return authorizeQuery(policy, { ...request, query }, { dialect }).sql;
  };

  it("are read from their tables where their condition joins the WHERE, else keep their CTE", () => {
    const conditions = ask([1, 0, 2], "ann", 1);
    expect(conditions).not.toContain("polar_c");
    expect(conditions).toMatch(/from ils_roles as f0 where \(f0\.doc_id IS NOT NULL\)/);
    expect(conditions).toContain("(f0.note IN ('shown') AND f0.org_id IS NOT NULL)");
    const function_ = ask([4, 1, 0], "ann", 1);
    expect(function_).toMatch(/polar_c0\(arg0, arg1, arg2\) as (not materialized )?\(/);
    expect(function_).toContain(DOC_ROLES[4]);
    expect(function_).toContain("from polar_c0 as f0");
  });

  it.skipIf(!open)("answer as the reference evaluator for every spelling", async () => {
    const spellingArbitrary = fc.tuple(
      fc.nat({ max: DOC_ROLES.length - 1 }),
      fc.nat({ max: ORG_ROLES.length - 1 }),
      fc.nat({ max: DOC_ORGS.length - 1 }),
    );
    await fc.assert(
      fc.asyncProperty(rowsArbitrary, spellingArbitrary, async (rows, spelling) => {
        await engine.exec(`DELETE FROM ils_roles; DELETE FROM ils_docs;\n${insertRows(rows)}`);
        const facts = factsOf(rows, spelling);
        for (const actor of USERS) {
          for (const id of [1, 2, 3, 4]) {
            const [row] = await engine.query(ask(spelling, actor, id), []);
            const doc = { type: "Doc", id: String(id) };
            const expected = authorize(policy, facts, { type: "User", id: actor }, "read", doc);
            expect([true, 1, "1"].includes(row!.allowed as never), `${actor} read ${id}`).toBe(
              expected,
            );
          }
          const request = { ...body(spelling, actor), column: "d.id" };
          const fragment = listQuery(policy, request, { dialect }).sql;
          const listed = await engine.query(
            `SELECT d.id FROM (SELECT 1 AS id UNION SELECT 2 UNION SELECT 3 UNION SELECT 4) AS d WHERE ${fragment}`,
            [],
          );
          const expected = list(policy, facts, { type: "User", id: actor }, "read", "Doc");
          expect(listed.map((r) => String(r.id)).sort(), `list ${actor}`).toEqual(
            [...expected].sort(),
          );
        }
      }),
      { numRuns: propertyRuns(10, 60) },
    );
  });
});
