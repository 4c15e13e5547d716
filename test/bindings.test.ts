import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DataBindingsError,
  parseDataBindings,
  safeParseDataBindings,
} from "../src/bindings/parse.js";
import { checkBindingQuery } from "../src/bindings/query.js";
import { dataBindingsDocumentSchema } from "../src/bindings/schema.js";
import { formatSignature, parseSignature } from "../src/bindings/signature.js";
import type { BindingSlot, DataBindings } from "../src/bindings/types.js";
import { quoteIdentifier, quoteString } from "../src/dialects/postgres/literal.js";
import { propertyRuns } from "./support/runs.js";

const column = (type: string): BindingSlot => ({ kind: "column", type });
const constant = (type: string, value: string): BindingSlot => ({ kind: "constant", type, value });

/** The error message of an invalid document (fails the test when the document is valid). */
function errorOf(yaml: string): string {
  const result = safeParseDataBindings(yaml);
  if (result.success) throw new Error("expected the data bindings to be rejected");
  return result.error.message;
}

/** Bindings for one signature key with a trivial query. */
function one(signature: string, query = "SELECT 1") {
  return parseDataBindings(
    `facts:\n  ${JSON.stringify(signature)}:\n    query: ${JSON.stringify(query)}\n`,
  ).bindings[0]!;
}

/** Parsed bindings without the plain-scan reading of each query (tested in local-keys). */
function withoutScans(parsed: DataBindings) {
  return { ...parsed, bindings: parsed.bindings.map(({ scan: _scan, ...rest }) => rest) };
}

function slotsOf(signature: string): readonly BindingSlot[] {
  const parsed = parseSignature(signature);
  if (parsed.kind === "error") throw new Error(parsed.message);
  return parsed.slots;
}

describe("the §4.2 examples", () => {
  it("(a) workspace membership and parents, integer ids", () => {
    const bindings = parseDataBindings(`facts:
  "has_role(User:_, String:_, Workspace:_)":
    query: SELECT user_id, role, workspace_id FROM workspace_members
  "has_relation(Project:_, String:workspace, Workspace:_)":
    query: SELECT id, workspace_id FROM projects
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets WHERE project_id IS NOT NULL
sql_types:
  User: integer
  Workspace: integer
  Project: integer
  Ticket: bigint
`);
    expect(withoutScans(bindings)).toEqual({
      bindings: [
        {
          signature: "has_role(User:_, String:_, Workspace:_)",
          predicate: "has_role",
          slots: [column("User"), column("String"), column("Workspace")],
          query: "SELECT user_id, role, workspace_id FROM workspace_members",
          line: 2,
        },
        {
          signature: "has_relation(Project:_, String:workspace, Workspace:_)",
          predicate: "has_relation",
          slots: [column("Project"), constant("String", "workspace"), column("Workspace")],
          query: "SELECT id, workspace_id FROM projects",
          line: 4,
        },
        {
          signature: "has_relation(Ticket:_, String:project, Project:_)",
          predicate: "has_relation",
          slots: [column("Ticket"), constant("String", "project"), column("Project")],
          query: "SELECT id, project_id FROM tickets WHERE project_id IS NOT NULL",
          line: 6,
        },
      ],
      sqlTypes: new Map([
        ["User", "integer"],
        ["Workspace", "integer"],
        ["Project", "integer"],
        ["Ticket", "bigint"],
      ]),
      keys: new Map(),
    });
  });

  it("(b) attributes with Boolean and Integer slots, uuid ids", () => {
    const bindings = parseDataBindings(`facts:
  is_confidential(Ticket:_):
    query: SELECT id FROM tickets WHERE confidential
  has_status(Ticket:_, String:_):
    query: SELECT id, status::text FROM tickets
  is_public(Ticket:_, Boolean:_):
    query: SELECT id, public FROM tickets
  has_clearance(User:_, Integer:_):
    query: SELECT user_id, clearance_level FROM user_profiles
sql_types:
  Ticket: uuid
  User: uuid
`);
    expect(withoutScans(bindings)).toEqual({
      bindings: [
        {
          signature: "is_confidential(Ticket:_)",
          predicate: "is_confidential",
          slots: [column("Ticket")],
          query: "SELECT id FROM tickets WHERE confidential",
          line: 2,
        },
        {
          signature: "has_status(Ticket:_, String:_)",
          predicate: "has_status",
          slots: [column("Ticket"), column("String")],
          query: "SELECT id, status::text FROM tickets",
          line: 4,
        },
        {
          signature: "is_public(Ticket:_, Boolean:_)",
          predicate: "is_public",
          slots: [column("Ticket"), column("Boolean")],
          query: "SELECT id, public FROM tickets",
          line: 6,
        },
        {
          signature: "has_clearance(User:_, Integer:_)",
          predicate: "has_clearance",
          slots: [column("User"), column("Integer")],
          query: "SELECT user_id, clearance_level FROM user_profiles",
          line: 8,
        },
      ],
      sqlTypes: new Map([
        ["Ticket", "uuid"],
        ["User", "uuid"],
      ]),
      keys: new Map(),
    });
  });

  it("(c) global roles, constants in the middle slot, a recursive relation", () => {
    const bindings = parseDataBindings(`facts:
  has_role(User:_, String:_):
    query: SELECT DISTINCT user_id, role FROM staff_roles
  has_role(User:_, lead, Team:_):
    query: SELECT lead_user_id, id FROM teams
  has_role(User:_, member, Team:_):
    query: SELECT user_id, team_id FROM team_members
  has_relation(Folder:_, parent, Folder:_):
    query: >
      SELECT id, parent_id FROM folders
      WHERE parent_id IS NOT NULL
sql_types:
  User: text
  Team: text
  Folder: integer
`);
    expect(withoutScans(bindings)).toEqual({
      bindings: [
        {
          signature: "has_role(User:_, String:_)",
          predicate: "has_role",
          slots: [column("User"), column("String")],
          query: "SELECT DISTINCT user_id, role FROM staff_roles",
          line: 2,
        },
        {
          signature: "has_role(User:_, String:lead, Team:_)",
          predicate: "has_role",
          slots: [column("User"), constant("String", "lead"), column("Team")],
          query: "SELECT lead_user_id, id FROM teams",
          line: 4,
        },
        {
          signature: "has_role(User:_, String:member, Team:_)",
          predicate: "has_role",
          slots: [column("User"), constant("String", "member"), column("Team")],
          query: "SELECT user_id, team_id FROM team_members",
          line: 6,
        },
        {
          signature: "has_relation(Folder:_, String:parent, Folder:_)",
          predicate: "has_relation",
          slots: [column("Folder"), constant("String", "parent"), column("Folder")],
          query: "SELECT id, parent_id FROM folders WHERE parent_id IS NOT NULL",
          line: 8,
        },
      ],
      sqlTypes: new Map([
        ["User", "text"],
        ["Team", "text"],
        ["Folder", "integer"],
      ]),
      keys: new Map(),
    });
  });

  it("(d) all facts central, the bindings only type the ids", () => {
    expect(parseDataBindings("facts:\nsql_types:\n  Ticket: integer\n")).toEqual({
      bindings: [],
      sqlTypes: new Map([["Ticket", "integer"]]),
      keys: new Map(),
    });
  });
});

describe("document shape", () => {
  it("accepts empty documents and empty sections", () => {
    const empty = { bindings: [], sqlTypes: new Map(), keys: new Map() };
    expect(parseDataBindings("")).toEqual(empty);
    expect(parseDataBindings("# only a comment\n")).toEqual(empty);
    expect(parseDataBindings("facts:\n")).toEqual(empty);
    expect(parseDataBindings("facts: {}\nsql_types: {}\n")).toEqual(empty);
    expect(parseDataBindings("facts: null\nsql_types: ~\n")).toEqual(empty);
  });
  it("rejects unknown top-level keys", () => {
    expect(errorOf("fact:\n  x: 1\n")).toBe(
      "data_bindings:1:1: error[P705]: unknown key `fact` in data bindings; expected `facts`, `sql_types` or `keys`",
    );
    expect(errorOf("facts:\nsql_type:\n  User: text\n")).toBe(
      "data_bindings:2:1: error[P705]: unknown key `sql_type` in data bindings; expected `facts`, `sql_types` or `keys`",
    );
  });
  it("rejects a document or section that is not a mapping", () => {
    expect(errorOf("- facts\n")).toBe(
      "data_bindings:1:1: error[P701]: data bindings must be a mapping with keys `facts`, `sql_types` and `keys`",
    );
    expect(errorOf("facts: [a]\n")).toBe(
      "data_bindings:1:1: error[P701]: `facts` must be a mapping from fact signatures to queries",
    );
    expect(errorOf("sql_types: text\n")).toBe(
      "data_bindings:1:1: error[P701]: `sql_types` must be a mapping from type names to SQL type names",
    );
  });
  it("rejects a repeated top-level key", () => {
    expect(errorOf("facts:\nfacts:\n")).toBe(
      "data_bindings:2:1: error[P701]: duplicate key `facts` in data bindings",
    );
  });
  it("reports YAML syntax errors with their position", () => {
    expect(errorOf("facts:\n  a: b: c\n")).toBe(
      "data_bindings:2:6: error[P704]: invalid YAML in data bindings: nested mappings are not allowed in compact mappings",
    );
    expect(errorOf("facts:\n---\nfacts:\n")).toMatch(
      /^data_bindings:\d+:\d+: error\[P704\]: invalid YAML in data bindings: .*multiple documents/,
    );
  });
  it("resolves anchors and aliases", () => {
    const bindings = parseDataBindings(`facts:
  "a(User:_)": &q
    query: SELECT id FROM users
  "b(User:_)": *q
`).bindings;
    expect(bindings.map((b) => [b.signature, b.query, b.line])).toEqual([
      ["a(User:_)", "SELECT id FROM users", 2],
      ["b(User:_)", "SELECT id FROM users", 4],
    ]);
  });
  it("exports the zod schema of the document shape", () => {
    expect(
      dataBindingsDocumentSchema.safeParse({ facts: { "a(_)": { query: "SELECT 1" } } }).success,
    ).toBe(true);
    expect(dataBindingsDocumentSchema.safeParse({ facts: { "a(_)": {} } }).success).toBe(false);
  });
});

describe("errors", () => {
  it("are DataBindingsError (code P701) with one coded diagnostic per problem", () => {
    const yaml =
      'facts:\n  "has_role(User:_, String:_":\n    query: SELECT 1\n  "is_open(Ticket:_)":\n';
    let thrown: unknown;
    try {
      parseDataBindings(yaml);
    } catch (caught) {
      thrown = caught;
    }
    expect(thrown).toBeInstanceOf(DataBindingsError);
    const error = thrown as DataBindingsError;
    expect(error.code).toBe("P701");
    expect(error.message).toBe(
      [
        "data_bindings:2:3: error[P706]: invalid fact signature `has_role(User:_, String:_`",
        "data_bindings:4:3: error[P701]: binding `is_open(Ticket:_)` has no query",
      ].join("\n"),
    );
    const keySpan = (key: string) => {
      const start = yaml.indexOf(key);
      return { file: "data_bindings", start, end: start + key.length };
    };
    expect(error.diagnostics.map((d) => [d.code, d.severity, d.message, d.span])).toEqual([
      [
        "P706",
        "error",
        "invalid fact signature `has_role(User:_, String:_`",
        keySpan('"has_role(User:_, String:_"'),
      ],
      ["P701", "error", "binding `is_open(Ticket:_)` has no query", keySpan('"is_open(Ticket:_)"')],
    ]);
  });
  it("name the file given in the options", () => {
    const result = safeParseDataBindings("fact:\n", { fileName: "bindings.yaml" });
    expect(result.success ? "" : result.error.message).toMatch(
      /^bindings\.yaml:1:1: error\[P705\]: unknown key/,
    );
  });
  it("safeParse returns the data on success", () => {
    const result = safeParseDataBindings("sql_types:\n  User: text\n");
    expect(result).toEqual({
      success: true,
      data: { bindings: [], sqlTypes: new Map([["User", "text"]]), keys: new Map() },
    });
  });
});

describe("signatures", () => {
  it("allow whitespace around every token", () => {
    expect(one(" has_role ( User : _ ,String:_,  Team:_ ) ").signature).toBe(
      "has_role(User:_, String:_, Team:_)",
    );
  });
  it("read a missing type as String", () => {
    expect(one("f(_, parent)").slots).toEqual([column("String"), constant("String", "parent")]);
    expect(one("f(Folder:_, parent)").signature).toBe("f(Folder:_, String:parent)");
  });
  it("read typed constants, canonicalizing integers", () => {
    expect(one("f(User:_, Integer:007, Boolean:true, Integer:-0, Integer:+5)").slots).toEqual([
      column("User"),
      constant("Integer", "7"),
      constant("Boolean", "true"),
      constant("Integer", "0"),
      constant("Integer", "5"),
    ]);
    expect(one("f(Folder:root)").slots).toEqual([constant("Folder", "root")]);
  });
  it("read double-quoted constants with commas, spaces and escapes", () => {
    expect(one('f(User:_, "in progress, maybe", String:"a\\"b\\\\c", Folder:"x)")').slots).toEqual([
      column("User"),
      constant("String", "in progress, maybe"),
      constant("String", 'a"b\\c'),
      constant("Folder", "x)"),
    ]);
    expect(one('f("_", "")').slots).toEqual([constant("String", "_"), constant("String", "")]);
  });
  it("have a canonical text: simple names bare, other constants quoted", () => {
    expect(one('f(User:_, "in progress", "_", "3", lead, Integer:3)').signature).toBe(
      'f(User:_, String:"in progress", String:"_", String:"3", String:lead, Integer:3)',
    );
    expect(formatSignature("f", [constant("String", 'a"\\\n\tb')])).toBe(
      'f(String:"a\\"\\\\\\n\\tb")',
    );
  });
  it("canonical text parses back to the same slots", () => {
    const type = fc.constantFrom("String", "User", "Integer", "Boolean", "App::Org", "Équipe");
    const slot = fc.oneof(
      type.map(column),
      fc
        .string({ unit: "binary" })
        .filter((s) => !s.includes("\0"))
        .map((v) => constant("String", v)),
      fc
        .string({ unit: "binary", minLength: 1 })
        .filter((s) => !s.includes("\0"))
        .map((v) => constant("Team", v)),
      fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map((n) => constant("Integer", n.toString())),
      fc.boolean().map((b) => constant("Boolean", String(b))),
    );
    fc.assert(
      fc.property(fc.array(slot, { minLength: 1, maxLength: 5 }), (slots) => {
        const text = formatSignature("p", slots);
        expect(slotsOf(text)).toEqual(slots);
        expect(formatSignature("p", slotsOf(text))).toBe(text);
      }),
      { numRuns: propertyRuns(100, 300) },
    );
  });

  const invalid = (signature: string) =>
    errorOf(`facts:\n  ${JSON.stringify(signature)}:\n    query: SELECT 1\n`);
  it("reject malformed signatures", () => {
    for (const bad of [
      "has_role(User:_, String:_",
      "has_role",
      "has_role()",
      "has_role(User:_,)",
      "has_role(, User:_)",
      "has_role(User:_) extra",
      "1role(User:_)",
      "has_role(User:)",
      'has_role(User:"open)',
      "has_role(a b)",
      "has_role(a(b))",
      'has_role("a"b)',
    ]) {
      expect(invalid(bad), bad).toBe(
        `data_bindings:2:3: error[P706]: invalid fact signature \`${bad}\``,
      );
    }
    expect(errorOf("facts:\n  123:\n    query: SELECT 1\n")).toBe(
      "data_bindings:2:3: error[P706]: invalid fact signature `123`",
    );
  });
  it("reject malformed, empty and abstract types", () => {
    expect(invalid("f(1x:_)")).toBe(
      "data_bindings:2:3: error[P706]: invalid type name `1x` in fact signature `f(1x:_)`",
    );
    expect(invalid("f(Foo-bar:_)")).toBe(
      "data_bindings:2:3: error[P706]: invalid type name `Foo-bar` in fact signature `f(Foo-bar:_)`",
    );
    expect(invalid("f(:_)")).toBe(
      "data_bindings:2:3: error[P706]: missing type before `:` in fact signature `f(:_)`",
    );
    expect(invalid("f(Actor:_)")).toBe(
      "data_bindings:2:3: error[P706]: abstract type `Actor` in fact signature `f(Actor:_)`; bindings need a concrete type",
    );
    expect(invalid("f(Resource:x)")).toMatch(/abstract type `Resource`/);
  });
  it("reject constants that do not fit their type", () => {
    expect(invalid("f(Integer:abc)")).toBe(
      "data_bindings:2:3: error[P706]: invalid Integer constant `abc` in fact signature `f(Integer:abc)`",
    );
    expect(invalid("f(Integer:9223372036854775808)")).toMatch(
      /invalid Integer constant `9223372036854775808`/,
    );
    expect(invalid("f(Boolean:yes)")).toBe(
      "data_bindings:2:3: error[P706]: invalid Boolean constant `yes` in fact signature `f(Boolean:yes)`; expected `true` or `false`",
    );
    expect(invalid('f(Team:"")')).toBe(
      'data_bindings:2:3: error[P706]: empty `Team` id in fact signature `f(Team:"")`',
    );
    expect(invalid('f("a\\0")')).toBe(
      'data_bindings:2:3: error[P706]: constant in fact signature `f("a\\0")` contains U+0000 (NUL)',
    );
  });
});

describe("duplicate bindings", () => {
  it("are rejected by identity: predicate, arity and every slot", () => {
    const yaml = `facts:
  "has_relation(Ticket:_, String:project, Project:_)":
    query: SELECT 1, 2
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT 1, 2
  'has_relation( Ticket:_, "project", Project:_ )':
    query: SELECT 1, 2
`;
    expect(errorOf(yaml)).toBe(
      [
        "data_bindings:4:3: error[P701]: duplicate binding `has_relation(Ticket:_, String:project, Project:_)`",
        "data_bindings:6:3: error[P701]: duplicate binding `has_relation(Ticket:_, String:project, Project:_)`",
      ].join("\n"),
    );
    expect(errorOf("facts:\n  f(_):\n    query: SELECT 1\n  f(_):\n    query: SELECT 1\n")).toBe(
      "data_bindings:4:3: error[P701]: duplicate binding `f(String:_)`",
    );
  });
  it("differ when any slot type or constant differs, and may overlap", () => {
    const yaml = `facts:
  "has_role(User:_, String:_, Workspace:_)":
    query: SELECT 1, 2, 3
  "has_role(User:_, String:_, Project:_)":
    query: SELECT 1, 2, 3
  "has_role(User:_, String:_)":
    query: SELECT 1, 2
  "has_role(User:_, lead, Team:_)":
    query: SELECT 1, 2
  "has_role(User:_, member, Team:_)":
    query: SELECT 1, 2
  "has_role(User:_, String:_, Team:_)":
    query: SELECT 1, 2, 3
`;
    expect(parseDataBindings(yaml).bindings).toHaveLength(6);
  });
});

describe("binding bodies", () => {
  it("reject a binding without a query", () => {
    expect(errorOf("facts:\n  is_open(Ticket:_):\n")).toBe(
      "data_bindings:2:3: error[P701]: binding `is_open(Ticket:_)` has no query",
    );
    expect(errorOf("facts:\n  is_open(Ticket:_): {}\n")).toBe(
      "data_bindings:2:3: error[P701]: binding `is_open(Ticket:_)` has no query",
    );
    expect(errorOf("facts:\n  is_open(Ticket:_):\n    query:\n")).toBe(
      "data_bindings:2:3: error[P701]: binding `is_open(Ticket:_)` has no query",
    );
  });
  it("reject a body that is not a mapping, a query that is not a string, unknown keys", () => {
    expect(errorOf("facts:\n  is_open(Ticket:_): SELECT 1\n")).toBe(
      "data_bindings:2:3: error[P701]: binding `is_open(Ticket:_)` must be a mapping with a `query`",
    );
    expect(errorOf("facts:\n  is_open(Ticket:_):\n    query: 42\n")).toBe(
      "data_bindings:2:3: error[P701]: query of binding `is_open(Ticket:_)` must be a string",
    );
    expect(errorOf("facts:\n  is_open(Ticket:_):\n    query: [SELECT 1]\n")).toBe(
      "data_bindings:2:3: error[P701]: query of binding `is_open(Ticket:_)` must be a string",
    );
    expect(errorOf("facts:\n  is_open( Ticket:_ ):\n    query: SELECT 1\n    params: []\n")).toBe(
      "data_bindings:2:3: error[P705]: unknown key `params` in binding `is_open(Ticket:_)`; expected `query`",
    );
  });
  it("name the canonical signature in query errors", () => {
    expect(errorOf("facts:\n  f(User:_, x):\n    query: '   ;; '\n")).toBe(
      "data_bindings:2:3: error[P701]: query of binding `f(User:_, String:x)` is empty",
    );
    expect(errorOf("facts:\n  f(User:_):\n    query: SELECT 1; DROP TABLE users\n")).toBe(
      "data_bindings:2:3: error[P701]: query of binding `f(User:_)` must be one statement; found `;` before its end",
    );
    expect(errorOf("facts:\n  f(User:_):\n    query: DELETE FROM users RETURNING id\n")).toBe(
      "data_bindings:2:3: error[P701]: query of binding `f(User:_)` must be a single SELECT-like statement starting with SELECT, WITH, VALUES or TABLE; found `DELETE`",
    );
  });
});

describe("binding queries", () => {
  const accepted = (text: string) => {
    const result = checkBindingQuery(text);
    if (result.kind === "error") throw new Error(result.problem);
    return result.query;
  };
  const problem = (text: string) => {
    const result = checkBindingQuery(text);
    return result.kind === "error" ? result.problem : `accepted: ${result.query}`;
  };

  it("strip trailing whitespace and semicolons, and comments after them", () => {
    expect(accepted("SELECT id FROM t;\n")).toBe("SELECT id FROM t");
    expect(accepted("  SELECT id FROM t ; ;\t;  \n")).toBe("  SELECT id FROM t");
    expect(accepted("SELECT id FROM t; -- done\n/* really */")).toBe("SELECT id FROM t");
  });
  it("keep a line break after a trailing line comment so it cannot swallow what follows", () => {
    expect(accepted("SELECT id FROM t -- all of them")).toBe("SELECT id FROM t -- all of them\n");
    expect(accepted("SELECT id FROM t -- all\n;\n")).toBe("SELECT id FROM t -- all\n");
    expect(accepted("SELECT id -- x\nFROM t")).toBe("SELECT id -- x\nFROM t");
  });
  it("accept SELECT, WITH, VALUES and TABLE, after comments and parentheses", () => {
    expect(accepted("select 1")).toBe("select 1");
    expect(accepted("WITH a AS (SELECT 1) SELECT * FROM a")).toBeTruthy();
    expect(accepted("VALUES (1, 2), (3, 4)")).toBeTruthy();
    expect(accepted("TABLE memberships")).toBeTruthy();
    expect(
      accepted("-- members\n/* all /* nested */ of them */ ((SELECT 1) UNION (SELECT 2))"),
    ).toBeTruthy();
  });
  it("reject other statements", () => {
    for (const bad of [
      "DELETE FROM t",
      "INSERT INTO t VALUES (1)",
      "SET x = 1",
      "(DROP TABLE t)",
      "1",
    ]) {
      expect(problem(bad), bad).toMatch(
        /^must be a single SELECT-like statement starting with SELECT, WITH, VALUES or TABLE; found `/,
      );
    }
    expect(problem("(")).toBe(
      "must be a single SELECT-like statement starting with SELECT, WITH, VALUES or TABLE",
    );
  });
  it("ignore `;` inside literals, quoted identifiers and comments", () => {
    for (const query of [
      "SELECT ';' AS x",
      "SELECT 'it''s; fine' AS x",
      "SELECT E'\\'; still a string' AS x",
      "SELECT e'\\\\'",
      'SELECT 1 AS ";"',
      'SELECT 1 AS "a"";"',
      "SELECT $$;$$",
      "SELECT $tag$ $$; $tag$",
      "SELECT 1 /* ; */",
      "SELECT 1 /* /* ; */ ; */",
      "SELECT 1 -- ;\n",
      "SELECT a$b$c FROM t",
    ]) {
      expect(accepted(query), query).toBe(query.trimEnd() + (query.endsWith("-- ;\n") ? "\n" : ""));
    }
  });
  it("reject a second statement", () => {
    for (const bad of [
      "SELECT 1; SELECT 2",
      "SELECT 1;DROP TABLE t;",
      "SELECT 'a'; DELETE FROM t",
      "SELECT 'a\\'; DELETE FROM t --'",
      "SELECT 1 /* */; SELECT 2",
      "SELECT 1;\n-- comment\nSELECT 2",
    ]) {
      expect(problem(bad), bad).toBe("must be one statement; found `;` before its end");
    }
  });
  it("reject unterminated literals and comments", () => {
    expect(problem("SELECT 'abc")).toBe("has an unterminated string literal");
    expect(problem("SELECT E'abc\\'")).toBe("has an unterminated string literal");
    expect(problem('SELECT 1 AS "x')).toBe("has an unterminated quoted identifier");
    expect(problem("SELECT $q$ abc $Q$")).toBe("has an unterminated dollar-quoted string");
    expect(problem("SELECT 1 /* /* */")).toBe("has an unterminated block comment");
  });
  it("reject unbalanced parentheses and parameters", () => {
    expect(problem("SELECT (1")).toBe("has unbalanced parentheses");
    expect(problem("SELECT 1) UNION (SELECT 2")).toBe("has unbalanced parentheses");
    expect(problem("SELECT id FROM t WHERE org = $1")).toBe(
      "uses parameter `$1`; binding queries cannot take parameters",
    );
    expect(accepted("SELECT '$1', \"$2\", $$ $3 $$")).toBeTruthy();
  });
  it("reject empty queries", () => {
    for (const bad of ["", "   ", ";", " ; ; ", "-- nothing", "/* nothing */;"]) {
      expect(problem(bad), bad).toBe("is empty");
    }
  });
  it("accept every literal the SQL renderer produces", () => {
    const text = fc.string({ unit: "binary" }).filter((s) => !s.includes("\0"));
    fc.assert(
      fc.property(text, text, (value, name) => {
        fc.pre(name !== "" && Buffer.byteLength(name) <= 63);
        const query = `SELECT ${quoteString(value)} AS ${quoteIdentifier(name)}`;
        expect(accepted(query)).toBe(query);
        expect(problem(`${query}; DELETE FROM t`)).toBe(
          "must be one statement; found `;` before its end",
        );
      }),
      { numRuns: propertyRuns(100, 300) },
    );
  });
});

describe("sql_types", () => {
  it("lowercases and normalizes SQL type names", () => {
    const { sqlTypes } = parseDataBindings(`sql_types:
  User: BIGINT
  Org: " Character   VARYING ( 20 ) "
  Team: string
  Doc: numeric(10,2)
  Tag: TEXT
  Ticket: uuid
`);
    expect(sqlTypes).toEqual(
      new Map([
        ["User", "bigint"],
        ["Org", "character varying(20)"],
        ["Team", "text"],
        ["Doc", "numeric(10, 2)"],
        ["Tag", "text"],
        ["Ticket", "uuid"],
      ]),
    );
  });
  it("reject SQL type names that could alter SQL structure", () => {
    expect(errorOf('sql_types:\n  User: "int); DROP TABLE users; --"\n')).toBe(
      "data_bindings:2:3: error[P701]: invalid SQL type `int); DROP TABLE users; --` for `User` in `sql_types`; expected a type name such as `integer`, `uuid` or `varchar(64)`",
    );
    for (const bad of ["int[]", "public.citext", "text -- x", "'text'"]) {
      expect(errorOf(`sql_types:\n  User: ${JSON.stringify(bad)}\n`), bad).toMatch(
        /invalid SQL type/,
      );
    }
  });
  it("reject values that are not strings", () => {
    expect(errorOf("sql_types:\n  User: 5\n")).toBe(
      "data_bindings:2:3: error[P701]: `sql_types` entry `User` must be a string",
    );
    expect(errorOf("sql_types:\n  User:\n")).toBe(
      "data_bindings:2:3: error[P701]: `sql_types` entry `User` must be a string",
    );
  });
  it("reject type names that are malformed, primitive, abstract or repeated", () => {
    expect(errorOf("sql_types:\n  user-id: text\n")).toBe(
      "data_bindings:2:3: error[P701]: invalid type name `user-id` in `sql_types`",
    );
    expect(errorOf("sql_types:\n  String: text\n")).toBe(
      "data_bindings:2:3: error[P701]: `sql_types` cannot give an SQL type to primitive type `String`; list entity types",
    );
    expect(errorOf("sql_types:\n  Actor: text\n")).toBe(
      "data_bindings:2:3: error[P701]: `sql_types` cannot give an SQL type to abstract type `Actor`; list entity types",
    );
    expect(errorOf("sql_types:\n  User: text\n  User: uuid\n")).toBe(
      "data_bindings:3:3: error[P701]: duplicate type `User` in `sql_types`",
    );
  });
  it("keep type names case-sensitive", () => {
    expect(parseDataBindings("sql_types:\n  User: text\n  user: integer\n").sqlTypes).toEqual(
      new Map([
        ["User", "text"],
        ["user", "integer"],
      ]),
    );
  });
});
