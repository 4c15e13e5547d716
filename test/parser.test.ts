import { readdirSync, readFileSync } from "node:fs";
import { tokenMatcher } from "chevrotain";
import { describe, expect, it } from "vitest";
import type { Item, PolicyFile } from "../src/polar/ast.js";
import { MAX_NESTING } from "../src/polar/items.js";
import { lexPolicy } from "../src/polar/lexer.js";
import { type ParseResult, parsePolicy } from "../src/polar/parse.js";
import { Ident } from "../src/polar/tokens.js";
import type { Diagnostic, DiagnosticCode } from "../src/source/diagnostic.js";
import { formatDiagnostic } from "../src/source/format.js";

// ---------------------------------------------------------------- helpers

const FILE = "policy.polar";

function parse(text: string): ParseResult {
  return parsePolicy({ name: FILE, text });
}

/** The AST without spans (spans never take part in equality). */
function stripSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSpans);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "span")
        .map(([key, inner]) => [key, stripSpans(inner)]),
    );
  }
  return value;
}

function describeAll(text: string, diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((d) => formatDiagnostic(d, [{ name: FILE, text }])).join("\n");
}

/** Parses text that must be free of diagnostics; returns its items. */
function items(text: string): readonly Item[] {
  const { ast, diagnostics } = parse(text);
  if (diagnostics.length > 0)
    expect.fail(`unexpected diagnostics:\n${describeAll(text, diagnostics)}`);
  return ast.items;
}

function only(text: string): unknown {
  const found = items(text);
  expect(found).toHaveLength(1);
  return stripSpans(found[0]);
}

/** The body of `p(x) if <body>;`, spans stripped. */
function body(expression: string): unknown {
  const rule = items(`p(x) if ${expression};`)[0]!;
  if (rule.kind !== "rule") expect.fail("not a rule");
  return stripSpans(rule.body);
}

/** The body of a shorthand rule inside a resource block, spans stripped. */
function shorthandBody(expression: string): unknown {
  const block = items(`resource R { "x" if ${expression}; }`)[0]!;
  if (block.kind !== "block") expect.fail("not a block");
  return stripSpans(block.shorthands[0]!.body);
}

function underlined(text: string, diagnostic: Diagnostic): string {
  return text.slice(diagnostic.span!.start, diagnostic.span!.end);
}

/** Asserts a diagnostic with `code` underlining `underline`; returns its message. */
function expectDiagnostic(text: string, code: DiagnosticCode, underline: string): string {
  const { diagnostics } = parse(text);
  const found = diagnostics.find((d) => d.code === code && underlined(text, d) === underline);
  if (!found) {
    expect.fail(
      `expected ${code} underlining ${JSON.stringify(underline)}, got:\n${describeAll(text, diagnostics)}`,
    );
  }
  expect(found.span!.file).toBe(FILE);
  return found.message;
}

function tokenTypes(text: string): string[] {
  return lexPolicy({ name: FILE, text }).tokens.map((token) => token.tokenType.name);
}

function spanTexts(text: string, ast: PolicyFile): Map<string, string[]> {
  const byKind = new Map<string, string[]>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (!value || typeof value !== "object") return;
    const node = value as { kind?: string; span?: { start: number; end: number } };
    if (node.kind && node.span) {
      const list = byKind.get(node.kind) ?? [];
      list.push(text.slice(node.span.start, node.span.end));
      byKind.set(node.kind, list);
    }
    for (const [key, inner] of Object.entries(value)) if (key !== "span") visit(inner);
  };
  visit(ast);
  return byKind;
}

// AST builders for expectations (spans stripped).
const id = (name: string) => ({ kind: "ident", name });
const v = (name: string) => ({ kind: "variable", name });
const str = (value: string) => ({ kind: "string", value });
const int = (value: bigint) => ({ kind: "integer", value });
const bool = (value: boolean) => ({ kind: "boolean", value });
const obj = (type: string, value: unknown) => ({ kind: "object", type: id(type), value });
const call = (name: string, ...args: unknown[]) => ({ kind: "call", name: id(name), args });
const cmp = (op: string, left: unknown, right: unknown) => ({ kind: "compare", op, left, right });
const and = (...operands: unknown[]) => ({ kind: "and", operands });
const or = (...operands: unknown[]) => ({ kind: "or", operands });
const not = (operand: unknown) => ({ kind: "not", operand });
const ref = (term: unknown, on: unknown = null) => ({ kind: "shorthand_ref", term, on });
const head = (name: string, ...params: unknown[]) => ({ kind: "head", name: id(name), params });
const typed = (name: string, type: string) => ({
  kind: "typed",
  variable: v(name),
  type: id(type),
});

// ---------------------------------------------------------------- lexer

describe("lexer", () => {
  it("lexes words that start with a keyword as names", () => {
    const words = "actors iffy on_call notable in_list matchesx trueish assert_nothing testing";
    expect(new Set(tokenTypes(words))).toEqual(new Set(["Name"]));
  });

  it("lexes reserved and contextual keywords", () => {
    expect(tokenTypes("if and or not in matches matches! true false")).toEqual([
      "If",
      "And",
      "Or",
      "Not",
      "In",
      "Matches",
      "MatchesBang",
      "True",
      "False",
    ]);
    const contextual =
      "actor resource global extends type declare test fixture setup assert assert_not iff on";
    const { tokens } = lexPolicy({ name: FILE, text: contextual });
    expect(tokens.map((t) => t.tokenType.name)).toEqual([
      "Actor",
      "Resource",
      "Global",
      "Extends",
      "Type",
      "Declare",
      "Test",
      "Fixture",
      "Setup",
      "Assert",
      "AssertNot",
      "Iff",
      "On",
    ]);
    expect(tokens.every((t) => tokenMatcher(t, Ident))).toBe(true);
    const reserved = lexPolicy({ name: FILE, text: "if and or not in matches true false" });
    expect(reserved.tokens.some((t) => tokenMatcher(t, Ident))).toBe(false);
  });

  it("lexes Unicode names, `::` segments and a trailing `?`", () => {
    const { tokens, diagnostics } = lexPolicy({
      name: FILE,
      text: "ünïcödé 名前 😀x _x1 App::User ready? a1b2",
    });
    expect(diagnostics).toEqual([]);
    expect(tokens.map((t) => [t.tokenType.name, t.image])).toEqual([
      ["Name", "ünïcödé"],
      ["Name", "名前"],
      ["Name", "😀x"],
      ["Name", "_x1"],
      ["Name", "App::User"],
      ["Name", "ready?"],
      ["Name", "a1b2"],
    ]);
  });

  it("does not start a name with a digit", () => {
    expect(tokenTypes("1abc")).toEqual(["Integer", "Name"]);
  });

  it("skips comments and any kind of whitespace, but not `#` inside strings", () => {
    const text = 'p("a # b"); # comment ; q(\n\u00a0\u2003\tx\r\n)';
    const { tokens } = lexPolicy({ name: FILE, text });
    expect(tokens.map((t) => t.image)).toEqual(["p", "(", '"a # b"', ")", ";", "x", ")"]);
  });

  it("lexes operators, longest first", () => {
    expect(tokenTypes("?= != <= >= < > = ( ) { } [ ] , ; :")).toEqual([
      "QueryOp",
      "NotEq",
      "LtEq",
      "GtEq",
      "Lt",
      "Gt",
      "Eq",
      "LParen",
      "RParen",
      "LCurly",
      "RCurly",
      "LBracket",
      "RBracket",
      "Comma",
      "Semicolon",
      "Colon",
    ]);
  });

  it("tells `@current_unix_time` from rule flags", () => {
    expect(tokenTypes("@current_unix_time @current_unix_timestamp @debug")).toEqual([
      "Builtin",
      "Flag",
      "Flag",
    ]);
  });

  it("decodes string escapes, a backslash before anything else giving that character", () => {
    const rule = items('p("a\\nb\\rc\\td\\0e\\\\f\\"g\\qh\\😀");')[0]!;
    expect(rule.kind === "rule" && rule.head.params[0]).toMatchObject({
      kind: "string",
      value: 'a\nb\rc\td\0e\\f"gqh😀',
    });
  });

  it("reads integers as signed 64-bit values", () => {
    const rule = items("p(007, -5, +5, 9223372036854775807, -9223372036854775808);")[0]!;
    expect(rule.kind === "rule" && stripSpans(rule.head.params)).toEqual([
      int(7n),
      int(-5n),
      int(5n),
      int(9223372036854775807n),
      int(-9223372036854775808n),
    ]);
  });
});

describe("lexical errors", () => {
  it("reports an unexpected character", () => {
    const text = "p(x) if x = 5 % 2;";
    expect(expectDiagnostic(text, "P001", "%")).toBe("unexpected character `%`");
  });

  it("reports an unterminated string up to the end of its line", () => {
    const text = 'p("abc);\nq(1);';
    expect(expectDiagnostic(text, "P002", '"abc);')).toBe("unterminated string literal");
    expect(expectDiagnostic('p("abc', "P002", '"abc')).toBe("unterminated string literal");
  });

  it("reports a line break inside a string, also right after a backslash", () => {
    const text = 'p("abc\ndef");';
    expect(expectDiagnostic(text, "P003", '"abc\ndef"')).toBe("line break inside string literal");
    const escaped = 'p("abc\\\ndef");';
    expect(expectDiagnostic(escaped, "P003", '"abc\\\ndef"')).toBe(
      "line break inside string literal",
    );
  });

  it("reports float literals", () => {
    expect(expectDiagnostic("p(1.5);", "P004", "1.5")).toBe(
      "float literals are not supported: `1.5`",
    );
    expect(expectDiagnostic("p(x) if x > 2e3;", "P004", "2e3")).toBe(
      "float literals are not supported: `2e3`",
    );
  });

  it("reports integers outside 64 bits", () => {
    expect(expectDiagnostic("p(9223372036854775808);", "P005", "9223372036854775808")).toBe(
      "integer literal `9223372036854775808` does not fit in 64 bits",
    );
    expect(expectDiagnostic("p(-9223372036854775809);", "P005", "-9223372036854775809")).toBe(
      "integer literal `-9223372036854775809` does not fit in 64 bits",
    );
  });

  it("hints at `=` for `==`", () => {
    const text = "p(x) if x == 1;";
    expect(expectDiagnostic(text, "P008", "==")).toBe("`==` is not supported; use `=`");
    const rule = parse(text).ast.items[0]!;
    expect(rule.kind === "rule" && stripSpans(rule.body)).toEqual(cmp("=", v("x"), int(1n)));
  });

  it("hints at `matches` for `isa`", () => {
    const text = "p(x) if x isa User;";
    expect(expectDiagnostic(text, "P008", "isa")).toBe("`isa` is not supported; use `matches`");
  });

  it("hints at facts for attribute lookups", () => {
    const text = 'p(user) if user.name = "ada";';
    expect(expectDiagnostic(text, "P008", "user.name")).toBe(
      "attribute lookups like `user.name` are not supported; use a fact such as `has_name(user, name)`",
    );
    expect(parse(text).diagnostics).toHaveLength(1);
  });

  it("reports a dot that is not a lookup as an unexpected character", () => {
    expect(expectDiagnostic("p(x) if x = .5;", "P001", ".")).toBe("unexpected character `.`");
  });

  it("reports names ending in `::`", () => {
    expect(expectDiagnostic("p(App::);", "P010", "App::")).toBe("name `App::` cannot end in `::`");
  });
});

// ---------------------------------------------------------------- items

describe("blocks", () => {
  it("parses actor, resource and global blocks", () => {
    expect(only("actor User {}")).toEqual({
      kind: "block",
      blockKind: "actor",
      name: id("User"),
      extends: [],
      declarations: [],
      shorthands: [],
    });
    expect(only("resource Doc extends File, Item, {};")).toMatchObject({
      blockKind: "resource",
      name: id("Doc"),
      extends: [id("File"), id("Item")],
    });
    expect(only('global { roles = ["admin"]; }')).toMatchObject({
      blockKind: "global",
      name: null,
      declarations: [{ kind: "declaration", key: id("roles") }],
    });
  });

  it("parses list and dictionary declarations with any key", () => {
    const block = only(`resource Doc {
      roles = ["reader", "writer",];
      permissions = [];
      relations = { parent: Folder, owner: User, };
      role = { untyped };
      anything = [1, true, User{"u"}];
    }`) as { declarations: unknown[] };
    expect(block.declarations).toEqual([
      {
        kind: "declaration",
        key: id("roles"),
        value: { kind: "list", elements: [str("reader"), str("writer")] },
      },
      { kind: "declaration", key: id("permissions"), value: { kind: "list", elements: [] } },
      {
        kind: "declaration",
        key: id("relations"),
        value: {
          kind: "dict",
          fields: [
            { kind: "field", name: id("parent"), type: id("Folder") },
            { kind: "field", name: id("owner"), type: id("User") },
          ],
        },
      },
      {
        kind: "declaration",
        key: id("role"),
        value: { kind: "dict", fields: [{ kind: "field", name: id("untyped"), type: null }] },
      },
      {
        kind: "declaration",
        key: id("anything"),
        value: { kind: "list", elements: [int(1n), bool(true), obj("User", str("u"))] },
      },
    ]);
  });

  it("parses shorthand rules with flags, interleaved with declarations", () => {
    const block = only(`resource Doc {
      "read" if "reader";
      roles = ["reader"];
      @generated role if role on "parent";
    }`) as { declarations: unknown[]; shorthands: unknown[] };
    expect(block.declarations).toHaveLength(1);
    expect(block.shorthands).toEqual([
      { kind: "shorthand", flags: [], head: str("read"), body: ref(str("reader")) },
      {
        kind: "shorthand",
        flags: [id("generated")],
        head: v("role"),
        body: ref(v("role"), str("parent")),
      },
    ]);
  });

  it("parses every shorthand body atom", () => {
    expect(shorthandBody('"viewer"')).toEqual(ref(str("viewer")));
    expect(shorthandBody("role")).toEqual(ref(v("role")));
    expect(shorthandBody('"member" on "workspace"')).toEqual(ref(str("member"), str("workspace")));
    expect(shorthandBody('"member" on resource')).toEqual(ref(str("member"), v("resource")));
    expect(shorthandBody('"x" on "on"')).toEqual(ref(str("x"), str("on")));
    expect(shorthandBody('global "support"')).toEqual({
      kind: "shorthand_global",
      term: str("support"),
    });
    expect(shorthandBody("is_public(resource, true)")).toEqual(
      call("is_public", v("resource"), bool(true)),
    );
  });

  it("gives shorthand bodies the precedence of expressions", () => {
    expect(shorthandBody('"a" or "b" and "c"')).toEqual(
      or(ref(str("a")), and(ref(str("b")), ref(str("c")))),
    );
    expect(shorthandBody('not "a" and "b"')).toEqual(and(not(ref(str("a"))), ref(str("b"))));
    expect(shorthandBody('not ("a" or "b")')).toEqual(not(or(ref(str("a")), ref(str("b")))));
    expect(shorthandBody('not not "a"')).toEqual(not(not(ref(str("a")))));
  });

  it("rejects a shorthand rule without a body", () => {
    expectDiagnostic('resource R { "x" if ; }', "P006", ";");
  });
});

describe("rules", () => {
  it("parses a rule with flags, typed parameters and a body", () => {
    expect(only("@debug @other allow(actor: User, _: Doc, action) if f(actor);")).toEqual({
      kind: "rule",
      flags: [id("debug"), id("other")],
      head: head("allow", typed("actor", "User"), typed("_", "Doc"), v("action")),
      body: call("f", v("actor")),
    });
  });

  it("parses a bodiless rule (a fact) with every kind of term", () => {
    const rule = only(
      'p("s", -3, true, false, User{"ada"}, Integer{3}, Boolean{false}, @current_unix_time, _, x);',
    );
    expect(rule).toEqual({
      kind: "rule",
      flags: [],
      head: head(
        "p",
        str("s"),
        int(-3n),
        bool(true),
        bool(false),
        obj("User", str("ada")),
        obj("Integer", int(3n)),
        obj("Boolean", bool(false)),
        { kind: "builtin", name: "current_unix_time" },
        v("_"),
        v("x"),
      ),
      body: null,
    });
  });

  it("parses a rule without parameters", () => {
    expect(only("always() if true;")).toEqual({
      kind: "rule",
      flags: [],
      head: head("always"),
      body: { kind: "bool", value: true },
    });
  });

  it("parses `type` declarations, `declare` and inline queries", () => {
    expect(only("type has_role(actor: Actor, role: String, resource: Resource);")).toEqual({
      kind: "rule_type",
      head: head(
        "has_role",
        typed("actor", "Actor"),
        typed("role", "String"),
        typed("resource", "Resource"),
      ),
    });
    expect(only("declare has_tag(Doc, String);")).toEqual({
      kind: "declare",
      name: id("has_tag"),
      types: [id("Doc"), id("String")],
    });
    expect(only("declare nothing();")).toMatchObject({ types: [] });
    expect(only('?= allow(User{"ada"}, "read", Doc{"d"}) and not f(1);')).toEqual({
      kind: "inline_query",
      expr: and(
        call("allow", obj("User", str("ada")), str("read"), obj("Doc", str("d"))),
        not(call("f", int(1n))),
      ),
    });
  });

  it("accepts contextual keywords wherever a name is expected", () => {
    expect(only("actor(actor, resource) if is_public(resource);")).toMatchObject({
      kind: "rule",
      head: head("actor", v("actor"), v("resource")),
    });
    expect(body("type = 1 and setup = fixture and on != iff")).toEqual(
      and(
        cmp("=", v("type"), int(1n)),
        cmp("=", v("setup"), v("fixture")),
        cmp("!=", v("on"), v("iff")),
      ),
    );
    const names = ["test", "global", "declare", "type", "extends", "assert", "assert_not"];
    for (const name of names) {
      expect(only(`${name}(${name});`)).toMatchObject({ head: head(name, v(name)) });
    }
    expect(only("resource Doc { relations = { on: Doc, type: Doc }; }")).toMatchObject({
      declarations: [{ value: { fields: [{ name: id("on") }, { name: id("type") }] } }],
    });
  });

  it("never accepts reserved words as names", () => {
    for (const word of ["if", "and", "or", "not", "in", "matches"]) {
      expect(parse(`p(${word});`).diagnostics.length).toBeGreaterThan(0);
    }
  });
});

describe("expressions", () => {
  it("parses the six comparison operators", () => {
    for (const op of ["=", "!=", "<", "<=", ">", ">="]) {
      expect(body(`x ${op} 1`)).toEqual(cmp(op, v("x"), int(1n)));
    }
    expect(body("@current_unix_time > expires")).toEqual(
      cmp(">", { kind: "builtin", name: "current_unix_time" }, v("expires")),
    );
  });

  it("parses `in` with a literal list and `matches`", () => {
    expect(body('x in [1, "a", User{"u"}, true]')).toEqual({
      kind: "in",
      element: v("x"),
      list: [int(1n), str("a"), obj("User", str("u")), bool(true)],
    });
    expect(body("x in []")).toEqual({ kind: "in", element: v("x"), list: [] });
    expect(body("x matches User")).toEqual({
      kind: "matches",
      variable: v("x"),
      type: id("User"),
      bang: false,
    });
    expect(body("x matches! User")).toMatchObject({ kind: "matches", bang: true });
  });

  it("parses bare `true` and `false` and comparisons with them", () => {
    expect(body("true")).toEqual({ kind: "bool", value: true });
    expect(body("false or f(x)")).toEqual(or({ kind: "bool", value: false }, call("f", v("x"))));
    expect(body("true = x")).toEqual(cmp("=", bool(true), v("x")));
  });

  it("binds `or` loosest, then `and`, then `not`", () => {
    const [a, b, c] = [
      cmp("=", v("a"), int(1n)),
      cmp("=", v("b"), int(2n)),
      cmp("=", v("c"), int(3n)),
    ];
    expect(body("a = 1 or b = 2 and c = 3")).toEqual(or(a, and(b, c)));
    expect(body("a = 1 and b = 2 or c = 3")).toEqual(or(and(a, b), c));
    expect(body("not a = 1 and b = 2")).toEqual(and(not(a), b));
    expect(body("not (a = 1 and b = 2)")).toEqual(not(and(a, b)));
    expect(body("(a = 1 or b = 2) and c = 3")).toEqual(and(or(a, b), c));
    expect(body("a = 1 and b = 2 and c = 3")).toEqual(and(a, b, c));
    expect(body("a = 1 or (b = 2 or c = 3)")).toEqual(or(a, or(b, c)));
    expect(body("not not f(x)")).toEqual(not(not(call("f", v("x")))));
  });

  it("does not chain comparisons", () => {
    const text = "p(x) if a = b = c;";
    expect(expectDiagnostic(text, "P006", "=")).toBe("unexpected `=`; expected `;`");
    expect(parse(text).diagnostics[0]!.span!.start).toBe(text.lastIndexOf("="));
  });

  it("needs a literal list after `in`", () => {
    expect(expectDiagnostic("p(x) if x in y;", "P303", "y")).toBe("`in` needs a literal list");
    expect(expectDiagnostic('p(x) if x in "abc";', "P303", '"abc"')).toBe(
      "`in` needs a literal list",
    );
  });

  it("needs a variable on the left of `matches`", () => {
    const message = expectDiagnostic('p(x) if "a" matches String;', "P304", '"a"');
    expect(message).toBe("`matches` needs a variable on its left");
    expectDiagnostic('p(x) if User{"a"} matches User;', "P304", 'User{"a"}');
  });

  it("rejects a lone term as a condition", () => {
    expect(expectDiagnostic("p(x) if x;", "P307", "x")).toBe("`x` alone is not a condition");
    expect(expectDiagnostic('p(x) if f(x) and "a";', "P307", '"a"')).toBe(
      '`"a"` alone is not a condition',
    );
    expectDiagnostic("p(x) if 1 or f(x);", "P307", "1");
  });
});

describe("tests and fixtures", () => {
  it("parses a fixture", () => {
    expect(only('test fixture base { has_role(User{"a"}, "r", Org{"o"}); flag(); }')).toEqual({
      kind: "fixture",
      name: id("base"),
      facts: [
        {
          kind: "fact",
          name: id("has_role"),
          args: [obj("User", str("a")), str("r"), obj("Org", str("o"))],
        },
        { kind: "fact", name: id("flag"), args: [] },
      ],
    });
  });

  it("parses a test with setup, fixture references and assertions", () => {
    const test = only(`test "owners can edit" {
      setup {
        fixture base;
        has_role(User{"ada"}, "owner", Doc{"d"});
        fixture more;
      }
      assert allow(User{"ada"}, "edit", Doc{"d"});
      assert_not allow(User{"bo"}, "edit", Doc{"d"});
      assert allow(User{"ada"}, act: String, Doc{"d"}) iff act in ["edit"];
    }`);
    expect(test).toEqual({
      kind: "test",
      name: str("owners can edit"),
      setup: [
        { kind: "fixture_ref", name: id("base") },
        {
          kind: "fact",
          name: id("has_role"),
          args: [obj("User", str("ada")), str("owner"), obj("Doc", str("d"))],
        },
        { kind: "fixture_ref", name: id("more") },
      ],
      assertions: [
        {
          kind: "assertion",
          negated: false,
          query: head("allow", obj("User", str("ada")), str("edit"), obj("Doc", str("d"))),
          iff: null,
        },
        {
          kind: "assertion",
          negated: true,
          query: head("allow", obj("User", str("bo")), str("edit"), obj("Doc", str("d"))),
          iff: null,
        },
        {
          kind: "assertion",
          negated: false,
          query: head(
            "allow",
            obj("User", str("ada")),
            typed("act", "String"),
            obj("Doc", str("d")),
          ),
          iff: { kind: "in", element: v("act"), list: [str("edit")] },
        },
      ],
    });
  });

  it("parses a test without setup and setup facts with variables (the checker rejects them)", () => {
    expect(only('test "t" { assert f(1); }')).toMatchObject({ setup: [], assertions: [{}] });
    expect(only('test "t" { setup { f(x); } }')).toMatchObject({
      setup: [{ kind: "fact", args: [v("x")] }],
      assertions: [],
    });
  });
});

// ---------------------------------------------------------------- spans

describe("spans", () => {
  const text = [
    "resource Doc {",
    '  roles = ["reader"];',
    '  @flag "read" if "reader" on "parent";',
    "};",
    '@debug allow(user: User, "read", doc: Doc, Doc{"d"}) if not f(user) and x = 1 or y in [1];',
    'test "t" { setup { g(1); fixture base; } assert h(x) iff x matches User; }',
  ].join("\n");
  const { ast, diagnostics } = parse(text);
  const spans = spanTexts(text, ast);

  it("parses the sample without diagnostics", () => {
    expect(diagnostics).toEqual([]);
  });

  it("covers whole items and statements", () => {
    expect(ast.span).toEqual({ file: FILE, start: 0, end: text.length });
    expect(spans.get("block")).toEqual([text.slice(0, text.indexOf("};") + 1)]);
    expect(spans.get("shorthand")).toEqual(['@flag "read" if "reader" on "parent";']);
    expect(spans.get("declaration")).toEqual(['roles = ["reader"];']);
    expect(spans.get("rule")).toEqual([text.split("\n")[4]]);
    expect(spans.get("test")).toEqual([text.split("\n")[5]]);
    expect(spans.get("fact")).toEqual(["g(1);"]);
    expect(spans.get("fixture_ref")).toEqual(["fixture base;"]);
    expect(spans.get("assertion")).toEqual(["assert h(x) iff x matches User;"]);
  });

  it("covers literals with their quotes and names without their flag sign", () => {
    expect(spans.get("string")).toContain('"reader"');
    expect(spans.get("ident")).toEqual(
      expect.arrayContaining(["Doc", "roles", "flag", "debug", "allow", "User", "base", "h"]),
    );
    expect(spans.get("object")).toEqual(['Doc{"d"}']);
    expect(spans.get("typed")).toEqual(["user: User", "doc: Doc"]);
    expect(spans.get("shorthand_ref")).toEqual(['"reader" on "parent"']);
  });

  it("covers expressions from their first to their last token", () => {
    expect(spans.get("or")).toEqual(["not f(user) and x = 1 or y in [1]"]);
    expect(spans.get("and")).toEqual(["not f(user) and x = 1"]);
    expect(spans.get("not")).toEqual(["not f(user)"]);
    expect(spans.get("call")).toEqual(["f(user)"]);
    expect(spans.get("compare")).toEqual(["x = 1"]);
    expect(spans.get("in")).toEqual(["y in [1]"]);
    expect(spans.get("matches")).toEqual(["x matches User"]);
    expect(spans.get("head")).toEqual(['allow(user: User, "read", doc: Doc, Doc{"d"})', "h(x)"]);
  });
});

// ---------------------------------------------------------------- syntax errors and recovery

describe("syntax errors", () => {
  it("names the unexpected token and what was expected", () => {
    const text = 'resource A { roles = ["a"] }';
    expect(expectDiagnostic(text, "P006", "}")).toBe("unexpected `}`; expected `;`");
  });

  it("reports the end of input", () => {
    const text = 'resource A { roles = ["a"];';
    const { diagnostics } = parse(text);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: "P007",
      message: "unexpected end of input; expected `}`",
      span: { file: FILE, start: text.length, end: text.length },
    });
  });

  it("describes a missing condition, term or item", () => {
    expect(expectDiagnostic("p(x) if ;", "P006", ";")).toBe("unexpected `;`; expected a condition");
    expect(expectDiagnostic("p(x) if x = ;", "P006", ";")).toBe("unexpected `;`; expected a term");
    expect(expectDiagnostic("actor User {};;", "P006", ";")).toBe(
      "unexpected `;`; expected a rule, a block, a test or a declaration",
    );
  });

  it("reports several errors in one pass and keeps the items that parse", () => {
    const text = [
      "p(x) if x = ;",
      "q(1);",
      "r(x) if (x = 1;",
      'resource A { "a" if "b" "c"; "d" if ; "e" if "f"; }',
      "s(1) if x isa User;",
      "t(2);",
    ].join("\n");
    const { ast, diagnostics } = parse(text);
    expect(diagnostics.map((d) => [d.code, underlined(text, d)])).toEqual([
      ["P006", ";"],
      ["P006", ";"],
      ["P006", '"c"'],
      ["P006", ";"],
      ["P008", "isa"],
    ]);
    const kinds = ast.items.map((item) =>
      item.kind === "rule"
        ? item.head.name.name
        : item.kind === "block"
          ? item.shorthands.length
          : item.kind,
    );
    // `r` lost only a `)`, which recovery inserts.
    expect(kinds).toEqual(["q", "r", 2, "t"]);
  });

  it("recovers at the next block when a `}` is missing", () => {
    const text = 'resource A { roles = ["a"];\nresource B { "x" if "y"; }';
    expect(expectDiagnostic(text, "P006", "resource")).toBe("unexpected `resource`; expected `}`");
    const names = parse(text).ast.items.map((item) => item.kind === "block" && item.name?.name);
    // `A` keeps what it had; the `}` is reported once.
    expect(names).toEqual(["A", "B"]);
  });

  it("recovers at the next item when a `;` is missing, reported at the end of its line", () => {
    const text = 'p(x) if f(x)\ntest "t" { assert p(1); }';
    const [missing] = parse(text).diagnostics;
    expect(missing).toMatchObject({ code: "P006", message: "missing `;` after `)`" });
    expect(missing!.span).toEqual({ file: FILE, start: 12, end: 12 });
    expect(parse(text).ast.items.map((item) => item.kind)).toEqual(["test"]);
  });

  it("inserts a missing closing token and keeps the member", () => {
    const { ast, diagnostics } = parse('resource A { roles = ["a"] }');
    expect(diagnostics).toHaveLength(1);
    expect(ast.items[0]).toMatchObject({ declarations: [{ key: { name: "roles" } }] });
  });

  it("keeps the complete members of a block or test cut short by the end of input", () => {
    const block = parse('resource A { "a" if "b"; roles = [').ast.items[0];
    expect(stripSpans(block)).toMatchObject({ shorthands: [{ head: str("a") }], declarations: [] });
    const test = parse('test "t" { assert f(1); assert g(').ast.items[0];
    expect(stripSpans(test)).toMatchObject({
      kind: "test",
      assertions: [{ query: head("f", int(1n)) }],
    });
  });

  it("leaves out a block member or fact broken beyond repair", () => {
    const { ast } = parse(
      'resource A { "a" if ; "b" if "c"; }\ntest fixture f { a(1); b(2 3 4; c(5); }',
    );
    expect(stripSpans(ast.items)).toMatchObject([
      { shorthands: [{ head: str("b") }] },
      { kind: "fixture", facts: [{ name: id("a") }, { name: id("c") }] },
    ]);
  });

  it("reports a run of stray braces once", () => {
    const text = "}}} p(x);";
    const { ast, diagnostics } = parse(text);
    expect(diagnostics.map((d) => underlined(text, d))).toEqual(["}"]);
    expect(ast.items).toHaveLength(1);
  });

  it(`refuses nesting deeper than ${MAX_NESTING} levels`, () => {
    const parens = (n: number) => `p(x) if ${"(".repeat(n)}x = 1${")".repeat(n)};`;
    expect(items(parens(MAX_NESTING))).toHaveLength(1);
    const text = parens(MAX_NESTING + 1);
    expect(expectDiagnostic(text, "P009", "(")).toBe(`nesting deeper than ${MAX_NESTING} levels`);
    expect(parse(text).diagnostics[0]!.span!.start).toBe("p(x) if ".length + MAX_NESTING);
    const nots = `p(x) if ${"not ".repeat(MAX_NESTING + 1)}f(x);`;
    expectDiagnostic(nots, "P009", "not");
    const flat = `p(x) if ${Array.from({ length: 200 }, () => "not f(x)").join(" and ")};`;
    expect(items(flat)).toHaveLength(1);
  });

  it("orders diagnostics by position", () => {
    const { diagnostics } = parse("p(1.5) if x = %;\nq(x) if x == y;");
    const starts = diagnostics.map((d) => d.span!.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(diagnostics.map((d) => d.code)).toEqual(["P004", "P001", "P006", "P008"]);
  });
});

// ---------------------------------------------------------------- example policies

describe("example policies", () => {
  const folder = new URL("../examples/reference/", import.meta.url);
  const files = readdirSync(folder).filter((name) => name.endsWith(".polar"));

  it("has the six examples of the reference", () => {
    expect(files).toHaveLength(6);
  });

  it.each(files)("parses %s without diagnostics", (name) => {
    const text = readFileSync(new URL(name, folder), "utf8");
    const { ast, diagnostics } = parsePolicy({ name, text });
    if (diagnostics.length > 0) expect.fail(describeAll(text, diagnostics));
    expect(ast.items.some((item) => item.kind === "test")).toBe(true);
    expect(ast.file).toBe(name);
  });

  it.each(files)("gives %s nested spans inside the file", (name) => {
    const text = readFileSync(new URL(name, folder), "utf8");
    const { ast } = parsePolicy({ name, text });
    const check = (value: unknown, outer: { start: number; end: number }): void => {
      if (Array.isArray(value)) {
        for (const inner of value) check(inner, outer);
        return;
      }
      if (!value || typeof value !== "object") return;
      const span = (value as { span?: { file: string; start: number; end: number } }).span;
      if (span) {
        expect(span.file).toBe(name);
        expect(span.start).toBeGreaterThanOrEqual(outer.start);
        expect(span.end).toBeLessThanOrEqual(outer.end);
        expect(span.start).toBeLessThan(span.end);
      }
      for (const [key, inner] of Object.entries(value)) {
        if (key !== "span") check(inner, span ?? outer);
      }
    };
    check(ast.items, ast.span);
  });
});
