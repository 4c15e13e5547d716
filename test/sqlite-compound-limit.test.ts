/**
 * SQLite stops a compound SELECT at 500 terms (SQLITE_MAX_COMPOUND_SELECT). Rows the
 * statement carries (ids of a question, context facts read with a binding) are written as
 * VALUES lists there (src/dialects/sqlite/index.ts), which that limit does not count: local questions
 * with more rows than that run, on better-sqlite3, and answer right.
 */
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { evaluateQueryLocal } from "../src/api/local.js";
import { checked } from "./local-support.js";

const program = checked(`actor User {}
resource Doc {
  permissions = ["read"];
  roles = ["reader"];
  "read" if "reader";
}`);

const BINDINGS = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM doc_roles
`;

const lite = new Database(":memory:");
lite.exec("CREATE TABLE doc_roles (user_id text, role text, doc_id text)");
lite.exec("INSERT INTO doc_roles VALUES ('ada', 'reader', 'd7'), ('ada', 'reader', 'd900')");
afterAll(() => lite.close());

const reader = (user: string, doc: string) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user },
    { type: "String", id: "reader" },
    { type: "Doc", id: doc },
  ],
});

describe("SQLite statements beyond 500 rows", () => {
  it("a question with 1,000 ids", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `d${i}`);
    const { sql } = evaluateQueryLocal(program, {
      query: {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["ada"] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids },
        },
      },
      data_bindings: BINDINGS,
      mode: { mode: "select", query_vars_to_output_column_names: { d: "doc" } },
      dialect: "sqlite",
    } as never);
    const rows = lite.prepare(sql).all() as { doc: string }[];
    expect(rows.map((row) => row.doc).sort()).toEqual(["d7", "d900"]);
  });

  it("a question with 700 context facts read with a binding", () => {
    const context = Array.from({ length: 700 }, (_, i) => reader("bo", `e${i}`));
    const { sql } = evaluateQueryLocal(program, {
      query: {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["bo", "ada"] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids: null },
        },
        context_facts: context,
      },
      data_bindings: BINDINGS,
      mode: { mode: "select", query_vars_to_output_column_names: { u: "user", d: "doc" } },
      dialect: "sqlite",
    } as never);
    const rows = lite.prepare(sql).all() as { user: string; doc: string }[];
    expect(rows).toHaveLength(702);
    expect(rows.filter((row) => row.user === "bo")).toHaveLength(700);
    expect(
      rows
        .filter((row) => row.user === "ada")
        .map((row) => row.doc)
        .sort(),
    ).toEqual(["d7", "d900"]);
  });
});
