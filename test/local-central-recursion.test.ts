/**
 * Recursion over central facts only (a management chain held by the service): the statement
 * holds what the question reaches, not the whole relation, and answers as the evaluator does.
 * The `managers` family of local-oracle.test.ts checks random facts; this file checks size on a
 * large chain and the fallback when the reachable part is too large to compute here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authorizeQuery, evaluateQueryLocal, listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import { list } from "../src/evaluate/index.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { type TestDatabase, testEngines } from "./support/databases.js";

const program = checked(`actor User {}
resource Report {
  permissions = ["read"];
  relations = { owner: User };
  "read" if "owner";
}
managed_by(e: User, m: User) if manages(m, e);
managed_by(e: User, m: User) if manages(x, e) and managed_by(x, m);
has_permission(user: User, "read", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user);`);

const bindings = `facts:
  has_relation(Report:_, owner, User:_):
    query: SELECT id, owner_id FROM reports
sql_types:
  User: integer
  Report: integer
`;

const user = (id: number) => ({ type: "User", id: String(id) });

/** A tree of `size` users, three reports each: user n manages 3n, 3n+1 and 3n+2. */
function chain(size: number): GroundFact[] {
  const facts: GroundFact[] = [];
  for (let e = 3; e < size; e++) {
    facts.push({ predicate: "manages", args: [user(Math.floor(e / 3)), user(e)] });
  }
  return facts;
}

const SIZE = 3000;
const manages = chain(SIZE);
const central = inMemoryCentralFacts(manages);
const ownerships: GroundFact[] = Array.from({ length: SIZE }, (_, i) => ({
  predicate: "has_relation",
  args: [{ type: "Report", id: String(i) }, { type: "String", id: "owner" }, user(i)],
}));

function fragment(actor: number): string {
  return listQuery(
    program,
    {
      query: {
        actor_type: "User",
        actor_id: String(actor),
        action: "read",
        resource_type: "Report",
      },
      column: "reports.id",
      data_bindings: bindings,
    },
    { central },
  ).sql;
}

function expected(actor: number): string[] {
  const answer = list(program, [...manages, ...ownerships], user(actor), "read", "Report");
  return answer.sort((a, b) => Number(a) - Number(b));
}

describe("SQL in proportion to the question", () => {
  it("writes a manager's few reports, not the whole chain", () => {
    const few = fragment(700); // reports 2100..2102, none below them
    expect(few.length).toBeLessThan(2000);
    expect(few).not.toMatch(/with recursive/);
    // The manager's own reports and those below them: one branch, one list.
    expect(few).toContain("f0.owner_id in (700, 2100, 2101, 2102)");
    expect(few).not.toMatch(/union/);
  });

  it("writes the top manager's whole reach as one array literal", () => {
    const top = fragment(1);
    expect(top).toMatch(/f0\.owner_id = any\('\{3,4,5,9,/);
    expect(top).not.toMatch(/with recursive|union/);
    // About five bytes per id of the ~1,500 reached, not a table of every link.
    expect(top.length).toBeLessThan(12_000);
  });

  it("leaves a reach larger than the relation to the database", () => {
    // Every pair of a chain of 1,200 links is 720,000 rows: computed here, the statement
    // would outgrow the relation, so the recursion stays a CTE over the inlined links.
    const links = inMemoryCentralFacts(
      Array.from({ length: 1200 }, (_, i) => ({
        predicate: "manages",
        args: [user(i), user(i + 1)],
      })),
    );
    const pairs = evaluateQueryLocal(
      program,
      {
        query: {
          predicate: ["managed_by", ["e", "m"]],
          calls: [],
          constraints: { e: { type: "User", ids: null }, m: { type: "User", ids: null } },
        },
        mode: { mode: "select", query_vars_to_output_column_names: { e: "e", m: "m" } },
        data_bindings: bindings,
      },
      { central: links },
    ).sql;
    expect(pairs).toMatch(/with recursive/);
  });
});

// One database per engine for the file (PGlite takes a second to start).
const engines = testEngines();

describe.each(engines)("$name", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await engine.db();
    const rows = ownerships.map((f) => `(${f.args[0]!.id}, ${f.args[2]!.id})`).join(", ");
    await db.exec(
      `DROP TABLE IF EXISTS reports; CREATE TABLE reports (id integer PRIMARY KEY, owner_id integer); INSERT INTO reports VALUES ${rows};`,
    );
  });

  it.each([1, 2, 40, 700, 2999])(
    "lists what user %i may read as the evaluator does",
    async (actor) => {
      const rows = await db.query<{ id: number }>(
        `SELECT id FROM reports WHERE ${fragment(actor)} ORDER BY id`,
      );
      expect(rows.map((r) => String(r.id))).toEqual(expected(actor));
    },
  );
});

describe("a recursion seeded by the question's ids alone", () => {
  // `parent` is central and there is none: the CTE holds just the resource's id. That id is a
  // param of a text printed once per shape, so the recursion must stay in SQL rather than be
  // computed into a constant that a later request of the same shape would reuse.
  const folders = checked(`actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["read"];
  relations = { parent: Folder };
  role if role on "parent";
  "read" if "reader";
}`);
  const folderBindings = `facts:
  has_role(User:_, String:_, Folder:_):
    query: SELECT user_id, role, folder_id FROM folder_roles
`;
  const ask = (folder: string) =>
    authorizeQuery(folders, {
      query: {
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resource_type: "Folder",
        resource_id: folder,
      },
      data_bindings: folderBindings,
    }).sql;

  it.each(engines)("answers each request for its own resource on $name", async (engine) => {
    const db = await engine.db();
    await db.exec(`DROP TABLE IF EXISTS folder_roles;
      CREATE TABLE folder_roles (user_id text, role text, folder_id text);
      INSERT INTO folder_roles VALUES ('ada', 'reader', 'f1');`);
    expect(await db.query(ask("f1"))).toEqual([{ allowed: true }]);
    expect(await db.query(ask("f2"))).toEqual([{ allowed: false }]);
    expect(await db.query(ask("f1"))).toEqual([{ allowed: true }]);
  });
});
