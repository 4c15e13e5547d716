/**
 * Hostile data: ids with quotes, backslashes, `;`, `--`, `$$`, SQL keywords, unicode, empty
 * and 384-byte strings travel through emitted literals unchanged (checked on PostgreSQL), never
 * change the statement's structure; NULL columns and duplicate rows in the caller's tables do
 * not change answers.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { authorizeQuery, evaluateQueryLocal, listQuery } from "../src/api/local.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { postgres } from "../src/dialects/postgres/index.js";
import { quoteString } from "../src/dialects/postgres/literal.js";
import { folders, foldersSpace, rbac, rbacSpace, routedFacts } from "./local-families.js";
import {
  checked,
  compareAll,
  type Family,
  independentLiteral,
  load,
  prepare,
  type RoutedFact,
} from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

const nasty = [
  "it's",
  "a\\b",
  "\\'; DROP TABLE t; --",
  "$$ SELECT 1 $$",
  "-- comment",
  "/* c */",
  "SELECT",
  'say "hi"',
  "ünïcödé ✓ 🙂",
  "",
  "x".repeat(384),
  "é".repeat(192),
  "\n\t",
  "E'x'",
];

/** Strings PostgreSQL text can hold: no NUL, no unpaired surrogates. */
const hostileString = fc.oneof(
  fc.constantFrom(...nasty),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({
    unit: fc.constantFrom("'", "\\", ";", "-", "$", '"', "e", "E", " ", "\n"),
    maxLength: 12,
  }),
);

/** Ids are never empty, in facts and in questions (docs/http-api.md, "Ids"). */
const storable = hostileString.filter((s) => s !== "");

const family: Family = {
  name: "hostile",
  policy: `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}`,
  bindings: ["has_role(User:_, String:_, Doc:_)"],
  sqlTypes: { User: "text", Doc: "varchar(400)" },
  domain: {},
  actors: [],
  actions: [],
  resourceTypes: [],
};

const program = checked(family.policy);

describeEngines("$name", (engine) => {
  it("round-trips hostile ids through authorize, list and select", async () => {
    const db = await engine.db();
    const prepared = await prepare(db, family);
    await fc.assert(
      fc.asyncProperty(storable, storable, storable, async (user, doc, other) => {
        const fact = (u: string, d: string): RoutedFact => ({
          fact: { predicate: "has_role", args: [v("User", u), v("String", "viewer"), v("Doc", d)] },
          to: "local",
        });
        const loaded = await load(db, prepared, [fact(user, doc), fact(other, other)]);
        const authorize = (actor: string, resource: string) =>
          authorizeQuery(
            program,
            {
              query: {
                actor_type: "User",
                actor_id: actor,
                action: "read",
                resource_type: "Doc",
                resource_id: resource,
              },
              data_bindings: prepared.yaml,
            },
            loaded.options,
          ).sql;
        const [allowed] = await db.query<{ allowed: boolean }>(authorize(user, doc));
        expect(allowed!.allowed).toBe(true);
        if (user !== other || doc !== other) {
          const [denied] = await db.query<{ allowed: boolean }>(authorize(user, `${doc}x`));
          expect(denied!.allowed).toBe(user === other && `${doc}x` === other);
        }
        const fragment = listQuery(
          program,
          {
            query: { actor_type: "User", actor_id: user, action: "read", resource_type: "Doc" },
            column: "d.id",
            data_bindings: prepared.yaml,
          },
          loaded.options,
        ).sql;
        const candidates = [doc, other, `${doc}?`].map(
          (id) => `(${independentLiteral(family, v("Doc", id))})`,
        );
        const listed = await db.query<{ id: string }>(
          `SELECT d.id FROM (VALUES ${candidates.join(", ")}) AS d(id) WHERE ${fragment}`,
        );
        const expected = new Set([doc, ...(user === other ? [other] : [])]);
        expect(new Set(listed.map((r) => r.id))).toEqual(expected);
      }),
      { numRuns: propertyRuns(10, 40) },
    );
  });

  it("round-trips hostile central and context values through VALUES lists", async () => {
    const db = await engine.db();
    const prepared = await prepare(db, family);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(storable, { minLength: 1, maxLength: 4 }),
        storable,
        async (docs, user) => {
          const central = docs
            .slice(1)
            .map((d): RoutedFact => ({ fact: role(user, d), to: "central" }));
          const loaded = await load(db, prepared, central);
          const sql = evaluateQueryLocal(
            program,
            {
              query: {
                predicate: ["allow", ["u", "a", "d"]],
                calls: [],
                constraints: {
                  u: { type: "User", ids: [user] },
                  a: { type: "String", ids: ["read"] },
                  d: { type: "Doc", ids: null },
                },
                context_facts: [role(user, docs[0]!)],
              },
              data_bindings: prepared.yaml,
              mode: { mode: "select", query_vars_to_output_column_names: { d: "doc", u: "user" } },
            },
            loaded.options,
          ).sql;
          const rows = await db.query<{ doc: string; user: string }>(sql);
          expect(new Set(rows.map((r) => r.doc))).toEqual(new Set(docs));
          expect(new Set(rows.map((r) => r.user))).toEqual(new Set([user]));
        },
      ),
      { numRuns: propertyRuns(10, 40) },
    );
  });

  it("changes only literals, never the statement's structure", () => {
    // Without sql_types an id that may meet a column of any type (a canonical 32-bit integer,
    // a lowercase uuid) is compared with the column, any other with its text
    // (docs/local-authorization.md): the probe is an id of the same kind.
    const probeFor = (id: string) =>
      !postgres.comparesUntyped?.(id)
        ? "PROBE"
        : id.includes("-") && id.length === 36
          ? "00000000-0000-0000-0000-00000000abcd"
          : "12345";
    const ids = fc.oneof(
      storable,
      fc.constantFrom("0", "-7", "2147483647", "6b8f0c1e-0000-4000-8000-00000000cafe"),
    );
    fc.assert(
      fc.property(ids, (id) => {
        const sqlFor = (actor: string) =>
          authorizeQuery(program, {
            query: {
              actor_type: "User",
              actor_id: actor,
              action: "read",
              resource_type: "Doc",
              resource_id: "d",
            },
            data_bindings:
              "facts:\n  has_role(User:_, String:_, Doc:_):\n    query: SELECT u, r, d FROM roles\n",
          }).sql;
        const probe = probeFor(id);
        expect(sqlFor(id)).toBe(sqlFor(probe).replace(quoteString(probe), () => quoteString(id)));
      }),
      { numRuns: propertyRuns(50, 200) },
    );
  });

  it("matches the evaluator with NULL columns and duplicate rows in the caller's tables", async () => {
    const db = await engine.db();
    for (const [fam, space, junk] of [
      [
        rbac,
        rbacSpace,
        [
          "INSERT INTO rbac_b0 VALUES (NULL, 'owner', 10), (1, NULL, 10), (2, 'owner', NULL), (NULL, NULL, NULL);",
        ],
      ],
      [
        folders,
        foldersSpace,
        [
          "INSERT INTO folders_b0 VALUES (1, NULL), (NULL, 2), (NULL, NULL);",
          "INSERT INTO folders_b1 VALUES ('a.md', NULL), (NULL, 1);",
          "INSERT INTO folders_b2 VALUES (NULL, 'writer', 1), ('ada', NULL, 2), ('bo', 'reader', NULL);",
        ],
      ],
    ] as [Family, GroundFact[], string[]][]) {
      const prepared = await prepare(db, fam);
      await fc.assert(
        fc.asyncProperty(routedFacts(space, ["local"]), async (facts) => {
          const doubled = [...facts, ...facts];
          const loaded = await load(db, prepared, doubled, junk);
          await compareAll(db, prepared, loaded);
        }),
        { numRuns: propertyRuns(3, 8) },
      );
    }
  });
});

function v(type: string, id: string): Value {
  return { type, id };
}

function role(user: string, doc: string): GroundFact {
  return { predicate: "has_role", args: [v("User", user), v("String", "viewer"), v("Doc", doc)] };
}
