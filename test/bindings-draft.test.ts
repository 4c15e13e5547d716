/**
 * `draftBindings` on catalogs made up by fast-check: whatever the names and types, the draft
 * is valid bindings (with and without a policy), and the naming rules hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkBindings } from "../src/bindings/check.js";
import { draftBindings } from "../src/bindings/draft.js";
import { relationNameOf, singular, typeNameOf } from "../src/bindings/naming.js";
import type { Catalog, CatalogTable } from "../src/database/types.js";
import { postgresFamily, postgresIdentifier } from "../src/dialects/postgres/catalog.js";
import { checked } from "./local-support.js";

const LONG = process.env.POLAR_SQL_LONG === "1";

const program = checked(`actor User {}
resource Organization {
  roles = ["member", "admin"];
  permissions = ["read"];
  "member" if "admin";
  "read" if "member";
}
resource Repository {
  roles = ["maintainer"];
  permissions = ["read"];
  relations = { organization: Organization, owner: User };
  "read" if "member" on "organization";
  "read" if "maintainer";
  "read" if is_public(resource);
  "read" if "owner";
}
`);

const name = fc.oneof(
  fc.constantFrom(
    "users",
    "organizations",
    "repositories",
    "org_memberships",
    "repository_maintainers",
    "strings",
    "people",
    "select",
    "Weird Name",
    "id",
    "org_id",
    "user_id",
    "owner_id",
    "role",
    "is_public",
    "archived",
  ),
  fc.string({ minLength: 1, maxLength: 10 }),
  fc.string({
    minLength: 1,
    maxLength: 8,
    unit: fc.constantFrom("a", "b", "_", "\n", "\r", '"', "'", ":", "#", " ", "\\", "\u2028", "é"),
  }),
);
const type = fc.constantFrom(
  "integer",
  "bigint",
  "text",
  "boolean",
  "uuid",
  "character varying(64)",
  "numeric(10,2)",
  "my enum",
  "integer[]",
);

const catalog: fc.Arbitrary<Catalog> = fc
  .uniqueArray(
    fc.record({
      name,
      kind: fc.constantFrom("table", "view"),
      columns: fc.uniqueArray(fc.record({ name, type, nullable: fc.boolean() }), {
        minLength: 1,
        maxLength: 5,
        selector: (c) => c.name,
      }),
      keyWidth: fc.integer({ min: 0, max: 2 }),
      refs: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 6, selector: (t) => t.name },
  )
  .map((raw) => ({
    dialect: "postgres",
    schema: "public",
    tables: raw.map((t): CatalogTable => {
      const key = t.columns.slice(0, t.keyWidth).map((c) => c.name);
      const isTable = t.kind === "table";
      return {
        schema: "public",
        name: t.name,
        kind: t.kind as "table" | "view",
        columns: t.columns.map((c) => ({
          ...c,
          nullable: key.includes(c.name) ? false : c.nullable,
        })),
        primaryKey: isTable && key.length > 0 ? key : null,
        uniqueKeys: [],
        foreignKeys: isTable
          ? t.refs.map(([column, table, target]) => {
              const other = raw[table % raw.length]!;
              return {
                columns: [t.columns[column % t.columns.length]!.name],
                references: { schema: "public", name: other.name },
                referencedColumns: [other.columns[target % other.columns.length]!.name],
              };
            })
          : [],
      };
    }),
  }));

const COLON_RELATION: Catalog = {
  dialect: "postgres",
  schema: "public",
  tables: [
    {
      schema: "public",
      name: "A",
      kind: "table",
      columns: [
        { name: "a::a", type: "integer", nullable: false },
        { name: "a", type: "integer", nullable: false },
      ],
      primaryKey: ["a::a"],
      uniqueKeys: [],
      foreignKeys: [
        {
          columns: ["a::a"],
          references: { schema: "public", name: "A" },
          referencedColumns: ["a::a"],
        },
      ],
    },
  ],
};

describe("drafts", () => {
  it("are valid bindings for any catalog, with and without a policy", () => {
    fc.assert(
      fc.property(catalog, fc.boolean(), (made, withPolicy) => {
        const yaml = draftBindings(made, {
          identifier: postgresIdentifier,
          family: postgresFamily,
          program: withPolicy ? program : null,
        });
        const result = checkBindings(withPolicy ? program : null, yaml, { warnings: false });
        expect(result.diagnostics, yaml).toEqual([]);
      }),
      // A foreign key column whose relation name holds `::` (found by the long run): written
      // bare, `a::a` read back as the type `a`.
      { numRuns: LONG ? 3000 : 200, examples: [[COLON_RELATION, false]] },
    );
  });

  it("name types, relations and attributes after the schema", () => {
    const yaml = draftBindings(
      {
        dialect: "postgres",
        schema: "public",
        tables: [
          {
            schema: "public",
            name: "posts",
            kind: "table",
            columns: [
              { name: "id", type: "bigint", nullable: false },
              { name: "author_id", type: "text", nullable: true },
              { name: "published", type: "boolean", nullable: false },
            ],
            primaryKey: ["id"],
            uniqueKeys: [],
            foreignKeys: [
              {
                columns: ["author_id"],
                references: { schema: "public", name: "users" },
                referencedColumns: ["id"],
              },
            ],
          },
          {
            schema: "public",
            name: "users",
            kind: "table",
            columns: [{ name: "id", type: "text", nullable: false }],
            primaryKey: ["id"],
            uniqueKeys: [],
            foreignKeys: [],
          },
        ],
      },
      { identifier: postgresIdentifier, family: postgresFamily },
    );
    expect(yaml).toContain(
      '  "has_relation(Post:_, author, User:_)":\n    query: "SELECT id, author_id FROM posts WHERE author_id IS NOT NULL"',
    );
    expect(yaml).toContain(
      '  "is_published(Post:_)":\n    query: "SELECT id FROM posts WHERE published"',
    );
    expect(yaml).toContain('sql_types:\n  "Post": "bigint"\n  "User": "text"');
    expect(yaml).toContain('keys:\n  "posts": "id"');
  });

  it("use singular PascalCase type names and `_id`-less relation names", () => {
    expect(
      ["repositories", "addresses", "people", "status", "boxes", "users"].map(singular),
    ).toEqual(["repository", "address", "person", "status", "box", "user"]);
    expect(typeNameOf("org_members")).toBe("OrgMember");
    // Names of Object.prototype's members are words too (a fast-check counterexample).
    expect(["__proto__", "constructor", "toString"].map(singular)).toEqual([
      "__proto__",
      "constructor",
      "toString",
    ]);
    expect(typeNameOf("Repositories")).toBe("Repository");
    expect(relationNameOf("author_id")).toBe("author");
    expect(relationNameOf("parent")).toBe("parent");
  });
});
