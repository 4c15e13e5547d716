/**
 * Data bindings written in the application's SQL (docs/dialects.md): MySQL backtick
 * identifiers, backslash escapes and `#` comments; SQLite's quoting; each engine's type names
 * in `sql_types`.
 */
import { describe, expect, it } from "vitest";
import { parseDataBindings } from "../src/bindings/parse.js";
import { checkBindingQuery, plainScan, tableName } from "../src/bindings/query.js";
import { normalizeSqlType, sqlTypeFamily } from "../src/sql/sql-type.js";

describe("MySQL binding queries", () => {
  it("reads backslash escapes, both quote characters, backticks and comments", () => {
    expect(checkBindingQuery("SELECT id FROM t WHERE name = 'it\\'s; x'", "mysql")).toEqual({
      kind: "query",
      query: "SELECT id FROM t WHERE name = 'it\\'s; x'",
    });
    expect(checkBindingQuery('SELECT id FROM t WHERE name = "a;b\\"c"', "mysql").kind).toBe(
      "query",
    );
    expect(checkBindingQuery("SELECT `weird;name` FROM `t``x`", "mysql").kind).toBe("query");
    // `#` starts a comment to the end of the line; a trailing one gets its line break.
    expect(checkBindingQuery("SELECT id FROM t # why;", "mysql")).toEqual({
      kind: "query",
      query: "SELECT id FROM t # why;\n",
    });
    // `--` is a comment only before a space: `1--1` is arithmetic.
    expect(checkBindingQuery("SELECT 1--1; DELETE FROM t", "mysql").kind).toBe("error");
    // PostgreSQL reads `'it\\'` as a whole string, then an unterminated one.
    expect(checkBindingQuery("SELECT id FROM t WHERE name = 'it\\'s'", "postgres").kind).toBe(
      "error",
    );
  });

  it("refuses a second statement, parameters and unterminated text", () => {
    expect(checkBindingQuery("SELECT 1; DROP TABLE t", "mysql")).toEqual({
      kind: "error",
      problem: "must be one statement; found `;` before its end",
    });
    expect(checkBindingQuery("SELECT id FROM t WHERE org = ?", "mysql")).toMatchObject({
      kind: "error",
      problem: "uses parameter `?`; binding queries cannot take parameters",
    });
    expect(checkBindingQuery("SELECT 'a\\'", "mysql")).toMatchObject({ kind: "error" });
    expect(checkBindingQuery("SELECT `a", "mysql")).toMatchObject({ kind: "error" });
  });

  it("names backtick tables and columns as written, unquoted ones folded", () => {
    expect(tableName("`Docs`", "mysql")).toBe('["Docs"]');
    expect(tableName("app.`doc``s`", "mysql")).toBe('["app","doc`s"]');
    expect(plainScan("SELECT `id`, org_id FROM `docs` WHERE `kind` = 'a\\'b'", "mysql")).toEqual({
      table: "`docs`",
      tableName: '["docs"]',
      items: ["`id`", "org_id"],
      columns: ['["id"]', '["org_id"]'],
      conditions: ["`kind` = 'a\\'b'"],
    });
  });

  it("parses a bindings file in MySQL syntax; the same file is refused as PostgreSQL", () => {
    const yaml = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT \`user_id\`, role, doc_id FROM doc_roles WHERE note <> 'it\\'s'
sql_types:
  User: int(11) unsigned
  Doc: varchar(400)
keys:
  "\`doc_roles\`": ["\`user_id\`", doc_id]
`;
    const bindings = parseDataBindings(yaml, { syntax: "mysql" });
    expect(bindings.bindings[0]!.query).toBe(
      "SELECT `user_id`, role, doc_id FROM doc_roles WHERE note <> 'it\\'s'",
    );
    expect(bindings.keys.get('["doc_roles"]')).toEqual(['["user_id"]', '["doc_id"]']);
    expect(() => parseDataBindings(yaml)).toThrow(/unterminated string literal/);
  });
});

describe("SQLite binding queries", () => {
  it("reads its quoting and parameters", () => {
    expect(
      checkBindingQuery("SELECT [my id], \"x;y\", `z` FROM t WHERE a = 'b\\'", "sqlite"),
    ).toEqual({
      kind: "query",
      query: "SELECT [my id], \"x;y\", `z` FROM t WHERE a = 'b\\'",
    });
    expect(tableName("[Docs]", "sqlite")).toBe('["Docs"]');
    for (const parameter of ["?", "?2", ":org", "@org", "$org"]) {
      expect(
        checkBindingQuery(`SELECT id FROM t WHERE org = ${parameter}`, "sqlite"),
      ).toMatchObject({
        kind: "error",
        problem: `uses parameter \`${parameter}\`; binding queries cannot take parameters`,
      });
    }
  });
});

describe("sql_types of each engine", () => {
  it("accepts MySQL and SQLite type names in their families", () => {
    for (const [name, family] of [
      ["int(11) unsigned", "integer"],
      ["BIGINT UNSIGNED", "integer"],
      ["tinyint", "integer"],
      ["mediumint(8)", "integer"],
      ["INTEGER", "integer"],
      ["varchar(400)", "other"],
      ["char(36)", "other"],
      ["decimal(10,2)", "decimal"],
      ["text", "other"],
    ] as const) {
      const normalized = normalizeSqlType(name);
      expect(normalized, name).not.toBeNull();
      expect(sqlTypeFamily(normalized!), name).toBe(family);
    }
    expect(normalizeSqlType("int unsigned); drop table t --")).toBeNull();
  });
});
