/**
 * The local-authorization library functions: request validation, the statement shapes
 * (docs/local-authorization.md, executed), name collisions with the caller's SQL, and composing
 * the statements into a caller's own Kysely query.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import {
  actionsQuery,
  actionsQueryExpression,
  authorizeQuery,
  authorizeQueryExpression,
  evaluateQueryLocal,
  LocalQueryError,
  listQuery,
  listQueryExpression,
} from "../src/api/local.js";
import {
  type AuthorizeQueryRequest,
  authorizeQueryRequestSchema,
  type EvaluateQueryLocalRequest,
  type ListQueryRequest,
  listQueryRequestSchema,
} from "../src/api/wire.js";
import { DataBindingsError } from "../src/bindings/parse.js";
import type { GroundFact } from "../src/core/value.js";
import { compiledQuery } from "../src/print/compose.js";
import { checked } from "./local-support.js";
import { describeEngines, type TestDatabase } from "./support/databases.js";

interface Tables {
  docs: { id: number; public: boolean };
}

/** A caller's Kysely instance (compiles only; the test runs its SQL on each engine). */
const kysely = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const program = checked(`actor User {}
resource Doc {
  roles = ["viewer", "owner"];
  permissions = ["read", "delete"];
  "viewer" if "owner";
  "read" if "viewer";
  "delete" if "owner";
}
has_permission(user: User, "read", doc: Doc) if is_public(doc) and is_member(user);`);

const bindings = `facts:
  has_role(User:_, String:_, Doc:_):
    query: SELECT user_id, role, doc_id FROM doc_roles
  is_public(Doc:_):
    query: SELECT id FROM docs WHERE public
sql_types:
  Doc: integer
  User: integer
`;

const schema = `
CREATE TABLE docs (id integer PRIMARY KEY, public boolean);
CREATE TABLE doc_roles (user_id integer, role text, doc_id integer);
INSERT INTO docs VALUES (1, false), (2, true), (3, false);
INSERT INTO doc_roles VALUES (7, 'owner', 1), (8, 'viewer', 3);
`;

function authorizeBody(
  actor: string,
  action: string,
  doc: string,
  context: GroundFact[] = [],
): AuthorizeQueryRequest {
  return {
    query: {
      actor_type: "User",
      actor_id: actor,
      action,
      resource_type: "Doc",
      resource_id: doc,
      context_facts: context,
    },
    data_bindings: bindings,
  };
}

function listBody(actor: string, action: string, column = "docs.id"): ListQueryRequest {
  return {
    query: { actor_type: "User", actor_id: actor, action, resource_type: "Doc" },
    column,
    data_bindings: bindings,
  };
}

describe("requests", () => {
  it("rejects a body that does not match the schema", () => {
    const partial = { query: { actor_type: "User" }, data_bindings: "" };
    // @ts-expect-error: a request without its ids does not type-check
    expect(() => authorizeQuery(program, partial)).toThrow(LocalQueryError);
    expect(() => authorizeQuery(program, partial as never)).toThrow(
      /^invalid request: `query\.actor_id`: /,
    );
    expect(authorizeQueryRequestSchema.safeParse(authorizeBody("7", "read", "1")).success).toBe(
      true,
    );
  });

  it("accepts list bodies with or without page fields", () => {
    const body = listBody("7", "read");
    expect(listQueryRequestSchema.safeParse(body).success).toBe(true);
    const paged = { ...body, query: { ...body.query, page_size: 10000, page_token: "x" } };
    expect(listQuery(program, paged).sql).toBe(listQuery(program, body).sql);
  });

  it("reports invalid data bindings", () => {
    expect(() =>
      authorizeQuery(program, { ...authorizeBody("7", "read", "1"), data_bindings: "fact: {}" }),
    ).toThrow(DataBindingsError);
  });

  it("checks context facts against the fact signatures", () => {
    const bad = [{ predicate: "is_public", args: [{ type: "User", id: "7" }] }];
    expect(() => authorizeQuery(program, authorizeBody("7", "read", "1", bad))).toThrow(
      "context fact: argument 1 of `is_public` must be `Doc`, got `User`",
    );
  });

  it("refuses context facts that PostgreSQL text cannot hold, instead of dropping them", () => {
    const nul = [{ predicate: "is_public", args: [{ type: "Doc", id: "1\u0000" }] }];
    expect(() => authorizeQuery(program, authorizeBody("7", "read", "1", nul))).toThrow(
      /context fact: `is_public` has an argument with a NUL character/,
    );
    const fine = [{ predicate: "is_public", args: [{ type: "Doc", id: "1" }] }];
    expect(authorizeQuery(program, authorizeBody("7", "read", "1", fine)).sql).toBeTruthy();
  });

  it("rejects abstract query variables, missing constraints and unknown predicates", () => {
    const query = (constraints: Record<string, unknown>, predicate = "allow") =>
      ({
        query: { predicate: [predicate, ["u", "a", "d"]], calls: [], constraints },
        data_bindings: bindings,
        mode: { mode: "select", query_vars_to_output_column_names: {} },
      }) as never;
    const ok = {
      u: { type: "User", ids: ["7"] },
      a: { type: "String", ids: null },
      d: { type: "Doc", ids: null },
    };
    expect(() =>
      evaluateQueryLocal(program, query({ ...ok, u: { type: "Actor", ids: null } })),
    ).toThrow("query variables need a concrete type, not `Actor`");
    expect(() => evaluateQueryLocal(program, query({ u: ok.u, a: ok.a }))).toThrow(
      "variable `d` has no constraint",
    );
    expect(() => evaluateQueryLocal(program, query(ok, "allowed"))).toThrow(
      "unknown predicate `allowed/3`",
    );
  });

  it("refuses to answer select mode with an id its column type cannot hold", () => {
    const universal = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(_: User, "read", _: Doc);`);
    const body = (mode: EvaluateQueryLocalRequest["mode"]): EvaluateQueryLocalRequest => ({
      query: {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["7"] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids: ["not-a-number"] },
        },
      },
      data_bindings: bindings,
      mode,
    });
    expect(() =>
      evaluateQueryLocal(
        universal,
        body({ mode: "select", query_vars_to_output_column_names: { d: "doc" } }),
      ),
    ).toThrow("cannot write the `Doc` value `not-a-number` in SQL for its column type");
    // A filter compares with the caller's integer column, which cannot hold the id: no rows.
    const filter = body({ mode: "filter", query_var: "d", output_column_name: "docs.id" });
    expect(evaluateQueryLocal(universal, filter).sql).toBe(
      "docs.id in (select docs.id where false)",
    );
  });

  it("writes no placeholders or trailing semicolon in text; composes with parameters", () => {
    const text = authorizeQuery(program, authorizeBody("7", "read", "1")).sql;
    expect(text).not.toMatch(/\$\d|;\s*$/);
    const { sql, parameters } = compiledQuery(
      authorizeQueryExpression(program, authorizeBody("7", "read", "1")),
    );
    expect(parameters).toEqual(["7", "1"]);
    expect(sql).toMatch(/cast\(\$1 as bigint\)/);
  });
});

describeEngines("$name", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await engine.db();
    await db.exec(`DROP TABLE IF EXISTS docs, doc_roles; ${schema}`);
  });

  it("authorize_query: one row, boolean `allowed`, usable as a derived table", async () => {
    for (const [actor, action, doc, expected] of [
      ["7", "delete", "1", true],
      ["8", "delete", "3", false],
      ["8", "read", "3", true],
      ["8", "read", "x", false],
    ] as const) {
      const { sql } = authorizeQuery(program, authorizeBody(actor, action, doc));
      expect(await db.query(sql)).toEqual([{ allowed: expected }]);
      expect(await db.query(`SELECT x.allowed FROM (${sql}) AS x`)).toEqual([
        { allowed: expected },
      ]);
    }
  });

  it("authorize_query: folds to a constant when central data decides", async () => {
    const member = [{ predicate: "is_member", args: [{ type: "User", id: "9" }] }];
    const { sql } = authorizeQuery(program, authorizeBody("9", "read", "2", member));
    expect(await db.query(sql)).toEqual([{ allowed: true }]);
    expect(authorizeQuery(program, authorizeBody("9", "fly", "2")).sql).toBe(
      "select false as allowed",
    );
  });

  it("actions_query: one row per action, column `actions`, empty when none", async () => {
    const rows = await db.query(
      actionsQuery(program, {
        ...authorizeBody("7", "", "1"),
        query: { actor_type: "User", actor_id: "7", resource_type: "Doc", resource_id: "1" },
      }).sql,
    );
    expect(rows.map((r) => r.actions).sort()).toEqual(["delete", "read"]);
    const none = actionsQuery(program, {
      data_bindings: bindings,
      query: { actor_type: "Robot", actor_id: "1", resource_type: "Doc", resource_id: "1" },
    }).sql;
    expect(none).toBe("select cast(null as text) as actions where false");
    expect(await db.query(none)).toEqual([]);
  });

  it("list_query: a fragment that combines with the caller's conditions", async () => {
    const { sql } = listQuery(program, listBody("7", "read"));
    // On PostgreSQL the listed ids are an array computed once (src/lower/lower.ts `lowerFilter`).
    expect(sql.startsWith("docs.id = any(array(")).toBe(true);
    expect(await db.query(`SELECT id FROM docs WHERE ${sql} AND id > 0 ORDER BY id`)).toEqual([
      { id: 1 },
    ]);
    const nothing = listQuery(program, listBody("7", "fly")).sql;
    expect(nothing).toBe("docs.id in (select docs.id where false)");
    expect(await db.query(`SELECT id FROM docs WHERE ${nothing}`)).toEqual([]);
  });

  it("list_query: keeps our aliases apart from the caller's column text", async () => {
    const { sql } = listQuery(program, listBody("7", "read", "f0.id"));
    expect(sql).toContain("polar_f");
    const rows = await db.query(`SELECT f0.id FROM docs AS f0 WHERE ${sql} ORDER BY f0.id`);
    expect(rows).toEqual([{ id: 1 }]);
  });

  it("renames its CTEs when a binding query mentions one of their names", async () => {
    const clash = bindings.replace("FROM doc_roles", "FROM doc_roles AS polar_c0");
    const { sql } = authorizeQuery(program, {
      ...authorizeBody("7", "delete", "1"),
      data_bindings: clash,
    });
    expect(sql).toContain("polar1_c0");
    expect(await db.query(sql)).toEqual([{ allowed: true }]);
  });

  it("select mode: quoted column names; an empty map asks whether any solution exists", async () => {
    const body = (names: Record<string, string>): EvaluateQueryLocalRequest => ({
      query: {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["8"] },
          a: { type: "String", ids: null },
          d: { type: "Doc", ids: null },
        },
      },
      data_bindings: bindings,
      mode: { mode: "select", query_vars_to_output_column_names: names },
    });
    const rows = await db.query(
      evaluateQueryLocal(program, body({ d: "Doc Id", a: "action" })).sql,
    );
    expect(rows).toEqual([{ "Doc Id": 3, action: "read" }]);
    expect(await db.query(evaluateQueryLocal(program, body({})).sql)).toEqual([{ result: true }]);
  });

  it("composes into a caller's typed Kysely query, values as parameters", async () => {
    const allowed = authorizeQueryExpression(program, authorizeBody("7", "delete", "1"));
    const composed = kysely
      .selectFrom("docs")
      .innerJoin(allowed.as("a"), (join) => join.onTrue())
      .select(["docs.id", "a.allowed"])
      .where(listQueryExpression(program, listBody("8", "read")))
      .where("docs.id", ">", 0)
      .orderBy("docs.id")
      .compile();
    const rows: { id: number; allowed: boolean }[] = await db.query(composed.sql, [
      ...composed.parameters,
    ]);
    expect(rows).toEqual([{ id: 3, allowed: true }]);
    const actions = kysely
      .selectFrom(
        actionsQueryExpression(program, {
          query: { actor_type: "User", actor_id: "7", resource_type: "Doc", resource_id: "1" },
          data_bindings: bindings,
        }).as("x"),
      )
      .select("x.actions")
      .orderBy("x.actions")
      .compile();
    const found: { actions: string }[] = await db.query(actions.sql, [...actions.parameters]);
    expect(found).toEqual([{ actions: "delete" }, { actions: "read" }]);
  });
});
