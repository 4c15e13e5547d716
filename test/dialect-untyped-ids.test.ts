/**
 * Ids without `sql_types` against an integer column on MariaDB and SQLite: an id matches only
 * the row whose id reads the same. MySQL reads a string met by a numeric column as a number
 * (`'abc'` as 0, `'2x'` as 2) and SQLite reads numeric-looking text as a number (`'02'`,
 * `'1e2'`), so such ids must not reach the column as plain literals (docs/dialects.md).
 */
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { authorizeQuery, type LocalOptions } from "../src/api/local.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { list } from "../src/evaluate/index.js";
import { type DialectDatabase, describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

const entity = (type: string, id: string) => ({ type, id });

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
/** Whether `authorize_query`'s SQL, run on `db`, lets ada read Doc `id`; and that SQL. */
async function adaReads(
  db: DialectDatabase,
  policy: Program,
  data_bindings: string,
  id: string,
  options: LocalOptions,
): Promise<{ allowed: boolean; sql: string }> {
  const query = {
    actor_type: "User",
    actor_id: "ada",
    action: "read",
    resource_type: "Doc",
    resource_id: id,
  };
  const { sql } = authorizeQuery(policy, { query, data_bindings }, options);
  const [row] = await db.query<{ allowed: unknown }>(sql);
  // MySQL and SQLite answer booleans as 0/1 (docs/dialects.md).
  return { allowed: Boolean(Number(row?.allowed)), sql };
}

/** `has_role(User{"ada"}, "reader", Folder{folder})`. */
const role = (folder: string): GroundFact => ({
  predicate: "has_role",
  args: [entity("User", "ada"), entity("String", "reader"), entity("Folder", folder)],
});
/** `has_relation(<type>{child}, "<name>", Folder{parent})`. */
const relation =
  (type: string, name: string) =>
  ([child, parent]: readonly [string, string]): GroundFact => ({
    predicate: "has_relation",
    args: [entity(type, child), entity("String", name), entity("Folder", parent)],
  });

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
      const { allowed } = await adaReads(db, program, bindings, id, { dialect: engine.dialect });
      expect(allowed, `resource id ${JSON.stringify(id)}`).toBe(STORED.includes(id));
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
const CENTRAL = [
  // Doc 1 is in folder 6 by the table; ada reads folder 6 by a central fact.
  role("6"),
  // Doc 2 is in folder 5 by a central fact; ada reads folder 5 by the table.
  relation("Doc", "folder")(["2", "5"]),
  // Doc abc is in folder 5 by a central fact, with an id no integer column holds.
  relation("Doc", "folder")(["abc", "5"]),
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
      const options = { dialect: engine.dialect, central };
      const answer = await adaReads(db, folders, folderBindings, id, options);
      expect(answer.allowed, `resource id ${JSON.stringify(id)}\n${answer.sql}`).toBe(allowed);
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
/** Roles, documents' folders and folders' parents in the tables (integers) and as central facts. */
const spread = fc.record({
  tableRoles: fc.uniqueArray(fc.constantFrom(...FOLDER_IDS), { maxLength: 3 }),
  tableDocs: pairsOf(["1", "2", "3"], FOLDER_IDS),
  tableParents: pairsOf(FOLDER_IDS, FOLDER_IDS),
  centralRoles: fc.uniqueArray(fc.constantFrom(...FOLDER_IDS, "x"), { maxLength: 3 }),
  centralDocs: pairsOf(DOC_IDS, [...FOLDER_IDS, "x"]),
  centralParents: pairsOf([...FOLDER_IDS, "x"], [...FOLDER_IDS, "x"]),
});
/** Readers of a folder read its subfolders: a recursive walk over both kinds of rows. */
const nested = checkPolicyOrThrow([
  {
    name: "nested.polar",
    text: `actor User {}
resource Folder {
  roles = ["reader"];
  relations = { parent: Folder };
  "reader" if "reader" on "parent";
}
resource Doc {
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "reader" on "folder";
}`,
  },
]);
const nestedBindings = `facts:
  "has_role(User:_, String:_, Folder:_)":
    query: SELECT user_id, role, folder_id FROM spread_roles
  "has_relation(Doc:_, String:folder, Folder:_)":
    query: SELECT doc_id, folder_id FROM spread_docs
  "has_relation(Folder:_, String:parent, Folder:_)":
    query: SELECT folder_id, parent_id FROM spread_parents
`;

describeDialects("central facts and table rows without sql_types on $name", (engine) => {
  it("answer as the evaluator for any spread of the facts, through a recursive walk", async () => {
    const db = await engine.db();
    await db.exec(
      // Folder ids as text here and integers in the other tables: each side of a join may be either.
      "CREATE TABLE spread_roles (user_id varchar(64), role varchar(64), folder_id varchar(64))",
    );
    await db.exec("CREATE TABLE spread_docs (doc_id integer, folder_id integer)");
    await db.exec("CREATE TABLE spread_parents (folder_id integer, parent_id integer)");
    await fc.assert(
      fc.asyncProperty(spread, async (facts) => {
        for (const table of ["spread_roles", "spread_docs", "spread_parents"])
          await db.exec(`DELETE FROM ${table}`);
        for (const folder of facts.tableRoles)
          await db.insert("spread_roles", ["ada", "reader", folder]);
        for (const pair of facts.tableDocs) await db.insert("spread_docs", [...pair]);
        for (const pair of facts.tableParents) await db.insert("spread_parents", [...pair]);
        const centralFacts = [
          ...facts.centralRoles.map(role),
          ...facts.centralDocs.map(relation("Doc", "folder")),
          ...facts.centralParents.map(relation("Folder", "parent")),
        ];
        const allFacts = [
          ...centralFacts,
          ...facts.tableRoles.map(role),
          ...facts.tableDocs.map(relation("Doc", "folder")),
          ...facts.tableParents.map(relation("Folder", "parent")),
        ];
        const readable = list(nested, allFacts, entity("User", "ada"), "read", "Doc");
        const lookups = {
          facts: (predicate: string) => centralFacts.filter((fact) => fact.predicate === predicate),
        };
        for (const id of DOC_IDS) {
          const options = { dialect: engine.dialect, central: lookups };
          const answer = await adaReads(db, nested, nestedBindings, id, options);
          expect(answer.allowed, `doc ${id}\n${answer.sql}`).toBe(readable.includes(id));
        }
      }),
      { numRuns: propertyRuns(15, 150) },
    );
  });
});
