/**
 * Hostile ids on MariaDB and SQLite: quotes, a backslash before a quote, NUL, `--`, `/*`,
 * `?`, backticks, non-BMP characters, and ids that the engine's default collation would call
 * equal (`D1`/`d1`, `a`/`a `, `w`/`ŵ`). Rows go in through driver parameters (not through the
 * renderer under test); every answer equals the reference evaluator's, on MariaDB both with
 * and without `NO_BACKSLASH_ESCAPES`, and a hostile id changes only its literal in the text.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { mysqlString } from "../src/dialects/mysql/index.js";
import { sqliteString } from "../src/dialects/sqlite/index.js";
import { authorize, list } from "../src/evaluate/index.js";
import { checked } from "./local-support.js";
import { describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

const RUNS = propertyRuns(15, 150);

const POLICY = `actor User {}
resource Folder {
  roles = ["viewer"];
  relations = { parent: Folder };
  "viewer" if "viewer" on "parent";
}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "viewer";
  "viewer" if "viewer" on "folder";
}`;
const BINDINGS = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM h_doc_roles
  "has_role(User:_, String:_, Folder:_)":
    query: SELECT user_id, role, folder_id FROM h_folder_roles
  "has_relation(Doc:_, folder, Folder:_)":
    query: SELECT id, folder_id FROM h_docs
  "has_relation(Folder:_, parent, Folder:_)":
    query: SELECT id, parent_id FROM h_folders
`;
const program = checked(POLICY);

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const hostile = fc
  .oneof(
    fc.constantFrom(
      "it's",
      "\\'",
      "\\'; DROP TABLE h_docs; --",
      "a\u0000b",
      "-- c",
      "/* c */",
      "?",
      "`x`",
      "😀",
      "D1",
      "d1",
      "d1 ",
      "w",
      "ŵ",
      "W",
    ),
    fc.string({
      unit: fc.constantFrom(
        "'",
        "\\",
        "\u0000",
        "-",
        "/",
        "*",
        "`",
        '"',
        "?",
        " ",
        "a",
        "A",
        "😀",
        "ŵ",
      ),
      minLength: 1,
      maxLength: 10,
    }),
  )
  .filter((id) => id !== "" && !UNPAIRED.test(id));

/** A few hostile ids, with the variants a case- and pad-insensitive collation would merge. */
const ids = fc
  .uniqueArray(hostile, { minLength: 1, maxLength: 3 })
  .map((base) => [...new Set(base.flatMap((id) => [id, id.toUpperCase(), `${id} `]))]);

interface World {
  readonly users: readonly string[];
  readonly docs: readonly string[];
  readonly folders: readonly string[];
  readonly facts: readonly GroundFact[];
}

const v = (type: string, id: string): Value => ({ type, id });

const worlds = fc
  .record({ users: ids, docs: ids, folders: ids })
  .chain(({ users, docs, folders }) =>
    fc
      .record({
        docRoles: fc.uniqueArray(
          fc.tuple(
            fc.constantFrom(...users),
            fc.constantFrom("viewer", "Viewer"),
            fc.constantFrom(...docs),
          ),
          { maxLength: 4 },
        ),
        folderRoles: fc.uniqueArray(
          fc.tuple(fc.constantFrom(...users), fc.constantFrom(...folders)),
          {
            maxLength: 3,
          },
        ),
        docFolders: fc.uniqueArray(
          fc.tuple(fc.constantFrom(...docs), fc.constantFrom(...folders)),
          {
            maxLength: 4,
          },
        ),
        parents: fc.uniqueArray(
          fc.tuple(fc.constantFrom(...folders), fc.constantFrom(...folders)),
          {
            maxLength: 4,
          },
        ),
      })
      .map(
        ({ docRoles, folderRoles, docFolders, parents }): World => ({
          users,
          docs,
          folders,
          facts: [
            ...docRoles.map(([u, r, d]) => ({
              predicate: "has_role",
              args: [v("User", u), v("String", r), v("Doc", d)],
            })),
            ...folderRoles.map(([u, f]) => ({
              predicate: "has_role",
              args: [v("User", u), v("String", "viewer"), v("Folder", f)],
            })),
            ...docFolders.map(([d, f]) => ({
              predicate: "has_relation",
              args: [v("Doc", d), v("String", "folder"), v("Folder", f)],
            })),
            ...parents.map(([f, p]) => ({
              predicate: "has_relation",
              args: [v("Folder", f), v("String", "parent"), v("Folder", p)],
            })),
          ],
        }),
      ),
  );

const TABLES = `CREATE TABLE h_doc_roles (user_id varchar(255), role varchar(255), doc_id varchar(255));
CREATE TABLE h_folder_roles (user_id varchar(255), role varchar(255), folder_id varchar(255));
CREATE TABLE h_docs (id varchar(255), folder_id varchar(255));
CREATE TABLE h_folders (id varchar(255), parent_id varchar(255));`;

/** The rows of each table, in the tables' column order. */
function rows(world: World): Record<string, string[][]> {
  const out: Record<string, string[][]> = {
    h_doc_roles: [],
    h_folder_roles: [],
    h_docs: [],
    h_folders: [],
  };
  for (const { predicate, args } of world.facts) {
    const [a, b, c] = args.map((arg) => arg.id);
    if (predicate === "has_role" && args[2]!.type === "Doc") out.h_doc_roles!.push([a!, b!, c!]);
    else if (predicate === "has_role") out.h_folder_roles!.push([a!, b!, c!]);
    else if (args[0]!.type === "Doc") out.h_docs!.push([a!, c!]);
    else out.h_folders!.push([a!, c!]);
  }
  return out;
}

describeDialects("$name", (engine) => {
  it("answers as the evaluator for hostile ids, and a hostile id changes only its literal", async () => {
    const db = await engine.db();
    await db.exec(
      "DROP TABLE IF EXISTS h_doc_roles;\nDROP TABLE IF EXISTS h_folder_roles;\nDROP TABLE IF EXISTS h_docs;\nDROP TABLE IF EXISTS h_folders;\n" +
        TABLES,
    );
    const literal = engine.dialect === "mysql" ? mysqlString : sqliteString;
    const modes = engine.name === "mariadb" ? ["", "NO_BACKSLASH_ESCAPES"] : [""];
    await fc.assert(
      fc.asyncProperty(worlds, async (world) => {
        for (const table of ["h_doc_roles", "h_folder_roles", "h_docs", "h_folders"]) {
          await db.exec(engine.truncate(table));
        }
        for (const [table, values] of Object.entries(rows(world))) {
          for (const row of values) await db.insert(table, row);
        }
        const options = { dialect: engine.dialect, now: () => 0n };
        for (const mode of modes) {
          if (engine.name === "mariadb") await db.exec(`SET SESSION sql_mode = '${mode}'`);
          for (const user of world.users) {
            for (const doc of world.docs) {
              const query = {
                actor_type: "User",
                actor_id: user,
                action: "read",
                resource_type: "Doc",
                resource_id: doc,
              };
              const { sql } = authorizeQuery(program, { query, data_bindings: BINDINGS }, options);
              const plain = authorizeQuery(
                program,
                {
                  query: { ...query, actor_id: "placeholder_u", resource_id: "placeholder_d" },
                  data_bindings: BINDINGS,
                },
                options,
              ).sql;
              expect(
                plain
                  .replaceAll(literal("placeholder_u"), literal(user))
                  .replaceAll(literal("placeholder_d"), literal(doc)),
              ).toBe(sql);
              const [row] = await db.query<{ allowed: unknown }>(sql);
              const expected = authorize(
                program,
                world.facts,
                v("User", user),
                "read",
                v("Doc", doc),
                { now: () => 0n },
              );
              expect(Boolean(Number(row!.allowed)), `${mode} ${user} ${doc}\n${sql}`).toBe(
                expected,
              );
            }
            const fragment = listQuery(
              program,
              {
                query: { actor_type: "User", actor_id: user, action: "read", resource_type: "Doc" },
                column: "d.id",
                data_bindings: BINDINGS,
              },
              options,
            ).sql;
            const listed = await db.query<{ id: string }>(
              `SELECT d.id AS id FROM (SELECT doc_id AS id FROM h_doc_roles UNION ALL SELECT id FROM h_docs) AS d WHERE ${fragment}`,
            );
            const found = [...new Set(listed.map((r) => String(r.id)))].sort();
            const expected = list(program, world.facts, v("User", user), "read", "Doc", {
              now: () => 0n,
            }).sort();
            expect(found, `${mode} list ${user}\n${fragment}`).toEqual(expected);
          }
        }
        if (engine.name === "mariadb") await db.exec("SET SESSION sql_mode = DEFAULT");
      }),
      { numRuns: RUNS },
    );
  });
});
