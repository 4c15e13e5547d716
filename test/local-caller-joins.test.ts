/**
 * `list_query` rules that join the caller's table to other sources (src/lower/caller-rows.ts):
 * with a schema-qualified column and a key, `"read" if "read" on "folder"` is written as
 * `app.docs.folder_id in (<the folder walk>)` on the caller's row instead of
 * `app.docs.id in (select … from app.docs join <the walk>)`. On every engine, for random
 * tables (NULL columns, cycles in the folder tree, typed and untyped ids), the direct form
 * selects the rows the `IN` form (the same question through an alias) and the reference
 * evaluator select.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import type { DialectName } from "../src/dialects/registry.js";
import { list } from "../src/evaluate/index.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

const policy = checked(`actor User {}
resource Org {
  roles = ["member", "admin"];
  "member" if "admin";
}
resource Folder {
  roles = ["viewer", "owner"];
  permissions = ["read", "archive"];
  relations = { parent: Folder, org: Org };
  role if role on "parent";
  "owner" if "admin" on "org";
  "viewer" if "owner";
  "read" if "viewer";
  "archive" if "owner";
  "archive" if is_open(resource);
}
resource Doc {
  permissions = ["read", "edit", "archive"];
  relations = { folder: Folder, org: Org };
  "read" if "read" on "folder";
  "read" if is_public(resource) and "member" on "org";
  "edit" if "owner" on "folder";
  "archive" if "archive" on "folder";
}`);

/** The bindings over `schema`'s tables (unqualified names for ""). */
function bindings(schema: string, typed: boolean): string {
  const at = schema ? `${schema}.` : "";
  const types = typed
    ? "sql_types:\n  User: integer\n  Org: integer\n  Folder: integer\n  Doc: integer\n"
    : "";
  return `facts:
  has_role(User:_, String:_, Org:_):
    query: SELECT user_id, role, org_id FROM ${at}memberships
  has_role(User:_, String:_, Folder:_):
    query: SELECT user_id, role, folder_id FROM ${at}folder_roles
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM ${at}folders
  has_relation(Folder:_, org, Org:_):
    query: SELECT id, org_id FROM ${at}folders
  has_relation(Doc:_, folder, Folder:_):
    query: SELECT id, folder_id FROM ${at}docs
  has_relation(Doc:_, org, Org:_):
    query: SELECT id, org_id FROM ${at}docs
  is_public(Doc:_):
    query: SELECT id FROM ${at}docs WHERE is_public = 1
  is_open(Folder:_):
    query: SELECT folder_id FROM ${at}open_folders
${types}keys:
  ${at}docs: id
  ${at}folders: id
`;
}

function fragment(
  schema: string,
  typed: boolean,
  question: Question,
  column: string,
  dialect?: DialectName,
) {
  return listQuery(
    policy,
    {
      query: {
        actor_type: "User",
        actor_id: question.actor,
        action: question.action,
        resource_type: question.type,
      },
      column,
      data_bindings: bindings(schema, typed),
    },
    { dialect },
  ).sql;
}

interface Question {
  readonly actor: string;
  readonly action: string;
  readonly type: "Doc" | "Folder";
}

describe("which joined rules read the caller's rows directly", () => {
  const read: Question = { actor: "1", action: "read", type: "Doc" };
  const edit: Question = { actor: "1", action: "edit", type: "Doc" };
  it.each([true, false])(
    "writes the folder walk on the document's folder (sql_types: %s)",
    (typed) => {
      const sql = fragment("app", typed, edit, "app.docs.id");
      expect(sql).toMatch(/^\(app\.docs\.folder_id in \(with recursive/);
      expect(sql).toMatch(
        // The walk's ids are never NULL where `in` holds: only the key is guarded.
        /\) and app\.docs\.id is not null\)$/,
      );
      expect(sql).not.toContain("from app.docs");
    },
  );

  it("reads subqueries beside another condition as arrays on PostgreSQL", () => {
    // The public rule reads a binding with a WHERE condition, so it stays a subquery on the
    // key; `<subquery> or <subquery>` is not a join, `= any(array(<subquery>))` twice is.
    const sql = fragment("app", true, read, "app.docs.id");
    expect(sql).toMatch(/^\(\(app\.docs\.id = any\(array\(\(select /);
    // The key's guard outside the OR, so that the OR is left to the indexes.
    expect(sql).toMatch(/\)\)\)\) and app\.docs\.id is not null\)$/);
    expect(sql).toMatch(/ or app\.docs\.folder_id = any\(array\(\(with recursive/);
    expect(sql).not.toMatch(/ in \((select|with)/);
  });

  it.each(["mysql", "sqlite"] as const)("keeps them in one IN on %s", (dialect) => {
    const sql = fragment("app", true, read, "app.docs.id", dialect);
    expect(sql).toMatch(/^app\.docs\.id in \(with recursive/);
    expect(sql).not.toContain("app.docs.folder_id");
  });

  it("writes the two archive rules as one subquery on the folder (run by the property below)", () => {
    const archive: Question = { actor: "1", action: "archive", type: "Doc" };
    const sql = fragment("app", true, archive, "app.docs.id");
    expect(sql.match(/app\.docs\.folder_id in \(/g)).toHaveLength(1);
    expect(sql).toContain("from app.open_folders as f");
    expect(sql).not.toContain("from app.docs");
  });

  it("shares one subquery between rules joined through the same column", () => {
    const program = checked(`actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["read"];
  relations = { parent: Folder };
  role if role on "parent";
  "read" if "viewer";
  "read" if is_open(resource);
}
resource Doc {
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "read" on "folder";
}`);
    const yaml = `facts:
  has_role(User:_, String:_, Folder:_):
    query: SELECT user_id, role, folder_id FROM app.folder_roles
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM app.folders
  is_open(Folder:_):
    query: SELECT folder_id FROM app.open_folders
  has_relation(Doc:_, folder, Folder:_):
    query: SELECT id, folder_id FROM app.docs
keys:
  app.docs: id
`;
    const query = { actor_type: "User", actor_id: "1", action: "read", resource_type: "Doc" };
    const sql = listQuery(program, { query, column: "app.docs.id", data_bindings: yaml }).sql;
    expect(sql.match(/app\.docs\.folder_id in \(/g)).toHaveLength(1);
    expect(sql).toMatch(/union all select f\d+\.folder_id from app\.open_folders/);
    expect(sql).not.toContain("from app.docs");
  });

  it.each([
    ["an unqualified table", "", "docs.id"],
    ["an alias", "app", "d.id"],
    ["a column that is not the key", "app", "app.docs.folder_id"],
  ])("keeps the IN form for %s", (_what, schema, column) => {
    const sql = fragment(schema, true, edit, column);
    // The subquery form (on PostgreSQL an array computed once): it reads the documents' table.
    expect(sql.startsWith(`${column} = any(array(`)).toBe(true);
    expect(sql).toMatch(/ from (app\.)?docs as f\d+, polar\d*_r0/);
  });
});

interface Tables {
  readonly memberships: readonly (readonly [number, string, number | null])[];
  readonly folderRoles: readonly (readonly [number, string, number | null])[];
  readonly folders: readonly (readonly [number, number | null, number | null])[];
  /** Ids may be NULL (several): such a row is no document. */
  readonly docs: readonly (readonly [number | null, number | null, number | null, 0 | 1])[];
  readonly openFolders: readonly (number | null)[];
}

const maybe = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: null, freq: 6 });
const unique = <T extends readonly [number | null, ...unknown[]]>(rows: T[]) =>
  rows.filter((row, i) => row[0] === null || rows.findIndex((o) => o[0] === row[0]) === i);
const tablesArbitrary: fc.Arbitrary<Tables> = fc.record({
  memberships: fc.array(
    fc.tuple(fc.nat(3), fc.constantFrom("member", "admin"), maybe(fc.integer({ min: 1, max: 2 }))),
    { maxLength: 4 },
  ),
  folderRoles: fc.array(
    fc.tuple(fc.nat(3), fc.constantFrom("viewer", "owner"), maybe(fc.integer({ min: 1, max: 6 }))),
    { maxLength: 4 },
  ),
  folders: fc
    .array(
      fc.tuple(
        fc.integer({ min: 1, max: 6 }),
        maybe(fc.integer({ min: 1, max: 6 })),
        maybe(fc.integer({ min: 1, max: 2 })),
      ),
      { maxLength: 7 },
    )
    .map(unique),
  docs: fc
    .array(
      fc.tuple(
        maybe(fc.integer({ min: 1, max: 10 })),
        maybe(fc.integer({ min: 1, max: 6 })),
        maybe(fc.integer({ min: 1, max: 2 })),
        fc.constantFrom(0 as const, 1 as const),
      ),
      { maxLength: 10 },
    )
    .map(unique),
  openFolders: fc.array(maybe(fc.integer({ min: 1, max: 6 })), { maxLength: 2 }),
});

function factsOf(tables: Tables): GroundFact[] {
  const facts: GroundFact[] = [];
  const id = (type: string, value: number) => ({ type, id: String(value) });
  const text = (value: string) => ({ type: "String", id: value });
  for (const [user, role, org] of tables.memberships)
    if (org !== null)
      facts.push({ predicate: "has_role", args: [id("User", user), text(role), id("Org", org)] });
  for (const [user, role, folder] of tables.folderRoles)
    if (folder !== null)
      facts.push({
        predicate: "has_role",
        args: [id("User", user), text(role), id("Folder", folder)],
      });
  for (const [folder, parent, org] of tables.folders) {
    if (parent !== null)
      facts.push({
        predicate: "has_relation",
        args: [id("Folder", folder), text("parent"), id("Folder", parent)],
      });
    if (org !== null)
      facts.push({
        predicate: "has_relation",
        args: [id("Folder", folder), text("org"), id("Org", org)],
      });
  }
  for (const folder of tables.openFolders)
    if (folder !== null) facts.push({ predicate: "is_open", args: [id("Folder", folder)] });
  for (const [doc, folder, org, isPublic] of tables.docs) {
    if (doc === null) continue;
    if (folder !== null)
      facts.push({
        predicate: "has_relation",
        args: [id("Doc", doc), text("folder"), id("Folder", folder)],
      });
    if (org !== null)
      facts.push({
        predicate: "has_relation",
        args: [id("Doc", doc), text("org"), id("Org", org)],
      });
    if (isPublic) facts.push({ predicate: "is_public", args: [id("Doc", doc)] });
  }
  return facts;
}

const QUESTIONS: readonly Question[] = ["0", "1", "2", "3"].flatMap((actor) => [
  { actor, action: "read", type: "Doc" as const },
  { actor, action: "edit", type: "Doc" as const },
  { actor, action: "archive", type: "Doc" as const },
  { actor, action: "read", type: "Folder" as const },
]);

/** What the property needs of an engine: its dialect, the schema of its tables, two calls. */
interface Engine {
  readonly dialect?: DialectName;
  readonly schema: string;
  exec(sql: string): Promise<void>;
  ids(sql: string): Promise<string[]>;
}

const value = (v: number | string | null) =>
  v === null ? "NULL" : typeof v === "string" ? `'${v}'` : String(v);
const rows = (table: string, values: readonly (readonly (number | string | null)[])[]) =>
  values.length === 0
    ? ""
    : `INSERT INTO ${table} VALUES ${values.map((row) => `(${row.map(value).join(", ")})`).join(", ")};\n`;

async function checkTables(engine: Engine, typed: boolean, tables: Tables): Promise<void> {
  const s = engine.schema;
  await engine.exec(
    `DELETE FROM ${s}.memberships;\nDELETE FROM ${s}.folder_roles;\nDELETE FROM ${s}.folders;\nDELETE FROM ${s}.docs;\nDELETE FROM ${s}.open_folders;\n${rows(
      `${s}.memberships`,
      tables.memberships,
    )}${rows(`${s}.folder_roles`, tables.folderRoles)}${rows(`${s}.folders`, tables.folders)}${rows(`${s}.docs`, tables.docs)}${rows(
      `${s}.open_folders`,
      tables.openFolders.map((folder) => [folder]),
    )}`,
  );
  const facts = factsOf(tables);
  for (const question of QUESTIONS) {
    const table = question.type === "Doc" ? `${s}.docs` : `${s}.folders`;
    const direct = fragment(s, typed, question, `${table}.id`, engine.dialect);
    const aliased = fragment(s, typed, question, "t.id", engine.dialect);
    const selected = await engine.ids(`SELECT ${table}.id FROM ${table} WHERE ${direct}`);
    const subquery = await engine.ids(`SELECT t.id FROM ${table} AS t WHERE ${aliased}`);
    // The caller's table holds the rows listed: the evaluator's answer among the table's ids.
    const present = new Set(
      (question.type === "Doc" ? tables.docs : tables.folders).flatMap((row) =>
        row[0] === null ? [] : [String(row[0])],
      ),
    );
    const listed = list(
      policy,
      facts,
      { type: "User", id: question.actor },
      question.action,
      question.type,
    );
    const expected = [...listed].filter((id) => present.has(id)).sort();
    expect(selected, JSON.stringify(question)).toEqual(subquery);
    expect(selected, JSON.stringify(question)).toEqual(expected);
  }
}

const TABLES = (
  s: string,
) => `CREATE TABLE ${s}.memberships (user_id integer, role varchar(20), org_id integer);
CREATE TABLE ${s}.folder_roles (user_id integer, role varchar(20), folder_id integer);
CREATE TABLE ${s}.folders (id integer UNIQUE, parent_id integer, org_id integer);
CREATE TABLE ${s}.docs (id integer UNIQUE, folder_id integer, org_id integer, is_public integer NOT NULL);
CREATE TABLE ${s}.open_folders (folder_id integer)`;

function property(engine: () => Promise<Engine>) {
  it.each([true, false])(
    "selects the rows of the IN form and of the evaluator (sql_types: %s)",
    async (typed) => {
      const db = await engine();
      await fc.assert(
        fc.asyncProperty(tablesArbitrary, (tables) => checkTables(db, typed, tables)),
        { numRuns: propertyRuns(8, 40) },
      );
    },
  );
}

const sortedIds = (rows: readonly Record<string, unknown>[]) =>
  rows.map((row) => String(Object.values(row)[0])).sort();

describeEngines("joined rules over the caller's rows on $name", (engine) => {
  let opened: Promise<Engine> | undefined;
  property(
    () =>
      (opened ??= (async () => {
        const db = await engine.db();
        await db.exec(`DROP SCHEMA IF EXISTS cj CASCADE; CREATE SCHEMA cj;\n${TABLES("cj")};`);
        return {
          schema: "cj",
          exec: (sql) => db.exec(sql),
          ids: async (sql) => sortedIds(await db.query(sql)),
        };
      })()),
  );
});

describeDialects("joined rules over the caller's rows on $name", (engine) => {
  let opened: Promise<Engine> | undefined;
  property(
    () =>
      (opened ??= (async () => {
        const db = await engine.db();
        const schema =
          engine.name === "sqlite"
            ? "main"
            : String(Object.values((await db.query("SELECT DATABASE() AS name"))[0]!)[0]);
        for (const statement of TABLES(schema).split(";\n")) await db.exec(statement);
        return {
          dialect: engine.dialect,
          schema,
          exec: async (sql) => {
            for (const statement of sql.split(";\n").filter((s) => s.trim()))
              await db.exec(statement);
          },
          ids: async (sql) => sortedIds(await db.query(sql)),
        };
      })()),
  );
});
