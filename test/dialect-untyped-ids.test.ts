/**
 * Ids without `sql_types` against an integer column on MariaDB and SQLite: an id matches only
 * the row whose id reads the same. MySQL reads a string met by a numeric column as a number
 * (`'abc'` as 0, `'2x'` as 2) and SQLite reads numeric-looking text as a number (`'02'`,
 * `'1e2'`), so such ids must not reach the column as plain literals (docs/dialects.md).
 */
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { authorizeQuery } from "../src/api/local.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import type { GroundFact } from "../src/core/value.js";
import { list } from "../src/evaluate/index.js";
import { type DialectDatabase, describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

const program = checkPolicyOrThrow([
  {
    name: "docs.polar",
    text: `actor User {}
resource Doc {
  roles = ["reader"];
  permissions = ["read"];
  "read" if "reader";
}`,
  },
]);
// No sql_types: the compiler does not know that doc ids are integers.
const bindings = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM untyped_roles
`;
const STORED = ["0", "2", "100", "-7"];
// Also the kinds that raise an error against such a column in PostgreSQL without sql_types
// (docs/local-authorization.md, "Ids without sql_types"): here they match nothing. Never an
// empty id: a question about one is refused (docs/http-api.md, "Ids").
const ASKED = [
  ...["0", "2", "100", "-7", "abc", "2x", "02", "1e2", " 2", "2.0", "+2", "0x2"],
  ...["6b8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a01", "2e8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a01", "40000"],
];

describeDialects("ids without sql_types meet an integer column on $name", (engine) => {
  let db: DialectDatabase;
  beforeAll(async () => {
    db = await engine.db();
    await db.exec(
      "CREATE TABLE untyped_roles (user_id varchar(64), role varchar(64), doc_id integer)",
    );
    for (const id of STORED) await db.insert("untyped_roles", ["ada", "reader", id]);
  });

  it("allows exactly the stored ids, whatever the others look like", async () => {
    for (const id of ASKED) {
      const { sql } = authorizeQuery(
        program,
        {
          query: {
            actor_type: "User",
            actor_id: "ada",
            action: "read",
            resource_type: "Doc",
            resource_id: id,
          },
          data_bindings: bindings,
        },
        { dialect: engine.dialect },
      );
      const [row] = await db.query<{ allowed: unknown }>(sql);
      // MySQL and SQLite answer booleans as 0/1 (docs/dialects.md).
      expect(Boolean(Number(row?.allowed)), `resource id ${JSON.stringify(id)}`).toBe(
        STORED.includes(id),
      );
    }
  });
});

// Central facts appended to a binding (`select * from <binding> union all <rows>`): on SQLite
// the union has no column affinity, so its ids are read as text there (docs/dialects.md).
const folders = checkPolicyOrThrow([
  {
    name: "folders.polar",
    text: `actor User {}
resource Folder { roles = ["reader"]; }
resource Doc {
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "reader" on "folder";
}`,
  },
]);
const folderBindings = `facts:
  "has_role(User:_, String:_, Folder:_)":
    query: SELECT user_id, role, folder_id FROM untyped_folder_roles
  "has_relation(Doc:_, String:folder, Folder:_)":
    query: SELECT doc_id, folder_id FROM untyped_doc_folders
`;
const entity = (type: string, id: string) => ({ type, id });
const CENTRAL = [
  // Doc 1 is in folder 6 by the table; ada reads folder 6 by a central fact.
  {
    predicate: "has_role",
    args: [entity("User", "ada"), entity("String", "reader"), entity("Folder", "6")],
  },
  // Doc 2 is in folder 5 by a central fact; ada reads folder 5 by the table.
  {
    predicate: "has_relation",
    args: [entity("Doc", "2"), entity("String", "folder"), entity("Folder", "5")],
  },
  // Doc abc is in folder 5 by a central fact, with an id no integer column holds.
  {
    predicate: "has_relation",
    args: [entity("Doc", "abc"), entity("String", "folder"), entity("Folder", "5")],
  },
];
const central = {
  facts: (predicate: string, _arity: number, pattern: readonly ({ id: string } | null)[] = []) =>
    CENTRAL.filter(
      (fact) =>
        fact.predicate === predicate &&
        pattern.every((value, i) => value === null || value.id === fact.args[i]!.id),
    ),
};

describeDialects("central facts appended to bindings without sql_types on $name", (engine) => {
  let db: DialectDatabase;
  beforeAll(async () => {
    db = await engine.db();
    await db.exec(
      "CREATE TABLE untyped_folder_roles (user_id varchar(64), role varchar(64), folder_id integer)",
    );
    await db.exec("CREATE TABLE untyped_doc_folders (doc_id integer, folder_id integer)");
    await db.insert("untyped_folder_roles", ["ada", "reader", "5"]);
    await db.insert("untyped_doc_folders", ["1", "6"]);
    await db.insert("untyped_doc_folders", ["3", "7"]);
  });

  it("joins the table's integers with the central facts' ids", async () => {
    const expected: Record<string, boolean> = {
      "1": true,
      "2": true,
      abc: true,
      "3": false,
      "5": false,
    };
    for (const [id, allowed] of Object.entries(expected)) {
      const { sql } = authorizeQuery(
        folders,
        {
          query: {
            actor_type: "User",
            actor_id: "ada",
            action: "read",
            resource_type: "Doc",
            resource_id: id,
          },
          data_bindings: folderBindings,
        },
        { dialect: engine.dialect, central },
      );
      const [row] = await db.query<{ allowed: unknown }>(sql);
      expect(Boolean(Number(row?.allowed)), `resource id ${JSON.stringify(id)}\n${sql}`).toBe(
        allowed,
      );
    }
  });
});

const FOLDER_IDS = ["1", "2", "3"];
const DOC_IDS = ["1", "2", "3", "abc"];
const pairsOf = (left: readonly string[], right: readonly string[]) =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...left), fc.constantFrom(...right)), {
    maxLength: 5,
    selector: (pair) => pair.join(" "),
  });
/** Roles and folders in the tables (integer ids) and as central facts (any ids). */
const spread = fc.record({
  tableRoles: fc.uniqueArray(fc.constantFrom(...FOLDER_IDS), { maxLength: 3 }),
  tableDocs: pairsOf(["1", "2", "3"], FOLDER_IDS),
  centralRoles: fc.uniqueArray(fc.constantFrom(...FOLDER_IDS, "x"), { maxLength: 3 }),
  centralDocs: pairsOf(DOC_IDS, [...FOLDER_IDS, "x"]),
});

describeDialects("central facts and table rows without sql_types on $name", (engine) => {
  it("answer as the evaluator for any spread of the facts", async () => {
    const db = await engine.db();
    await db.exec(
      "CREATE TABLE spread_roles (user_id varchar(64), role varchar(64), folder_id integer)",
    );
    await db.exec("CREATE TABLE spread_docs (doc_id integer, folder_id integer)");
    const bindings = folderBindings
      .replace("untyped_folder_roles", "spread_roles")
      .replace("untyped_doc_folders", "spread_docs");
    await fc.assert(
      fc.asyncProperty(spread, async (facts) => {
        await db.exec("DELETE FROM spread_roles");
        await db.exec("DELETE FROM spread_docs");
        for (const folder of facts.tableRoles)
          await db.insert("spread_roles", ["ada", "reader", folder]);
        for (const [doc, folder] of facts.tableDocs) await db.insert("spread_docs", [doc, folder]);
        const role = (folder: string): GroundFact => ({
          predicate: "has_role",
          args: [entity("User", "ada"), entity("String", "reader"), entity("Folder", folder)],
        });
        const relation = ([doc, folder]: readonly [string, string]): GroundFact => ({
          predicate: "has_relation",
          args: [entity("Doc", doc), entity("String", "folder"), entity("Folder", folder)],
        });
        const centralFacts = [...facts.centralRoles.map(role), ...facts.centralDocs.map(relation)];
        const allFacts = [
          ...centralFacts,
          ...facts.tableRoles.map(role),
          ...facts.tableDocs.map(relation),
        ];
        const readable = list(folders, allFacts, entity("User", "ada"), "read", "Doc");
        const lookups = {
          facts: (predicate: string) => centralFacts.filter((fact) => fact.predicate === predicate),
        };
        for (const id of DOC_IDS) {
          const { sql } = authorizeQuery(
            folders,
            {
              query: {
                actor_type: "User",
                actor_id: "ada",
                action: "read",
                resource_type: "Doc",
                resource_id: id,
              },
              data_bindings: bindings,
            },
            { dialect: engine.dialect, central: lookups },
          );
          const [row] = await db.query<{ allowed: unknown }>(sql);
          expect(Boolean(Number(row?.allowed)), `doc ${id}\n${sql}`).toBe(readable.includes(id));
        }
      }),
      { numRuns: propertyRuns(15, 150) },
    );
  });
});
