/**
 * Ids without `sql_types` against an integer column on MariaDB and SQLite: an id matches only
 * the row whose id reads the same. MySQL reads a string met by a numeric column as a number
 * (`'abc'` as 0, `'2x'` as 2) and SQLite reads numeric-looking text as a number (`'02'`,
 * `'1e2'`), so such ids must not reach the column as plain literals (docs/dialects.md).
 */
import { beforeAll, expect, it } from "vitest";
import { authorizeQuery } from "../src/api/local.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import { type DialectDatabase, describeDialects } from "./support/dialect-engines.js";

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
