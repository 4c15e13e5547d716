import { describe, expect, it } from "vitest";
import { check, checkOk, expectError, underlined } from "./check-support.js";

const header = `actor User {}
resource Doc { roles = ["owner"]; permissions = ["edit"]; "edit" if "owner"; }
declare has_tag(User, String);
`;

describe("test blocks (§10)", () => {
  it("expands fixtures into ground facts, in setup order, canonical", () => {
    const program = checkOk(`${header}
      test fixture base {
        has_role(User{"ada"}, "owner", Doc{"d1"});
      }
      test "owners can edit" {
        setup {
          has_tag(User{"bo"}, "x");
          fixture base;
          level(User{"bo"}, 007);
        }
        assert allow(User{"ada"}, "edit", Doc{"d1"});
        assert_not allow(User{"bo"}, "edit", Doc{"d1"});
      }
      level(u: User, n: Integer) if has_tag(u, "x") and n = 7;
    `);
    expect(program.tests).toHaveLength(1);
    const test = program.tests[0]!;
    expect(test.name).toBe("owners can edit");
    expect(test.facts).toEqual([
      {
        predicate: "has_tag",
        args: [
          { type: "User", id: "bo" },
          { type: "String", id: "x" },
        ],
      },
      {
        predicate: "has_role",
        args: [
          { type: "User", id: "ada" },
          { type: "String", id: "owner" },
          { type: "Doc", id: "d1" },
        ],
      },
      {
        predicate: "level",
        args: [
          { type: "User", id: "bo" },
          { type: "Integer", id: "7" },
        ],
      },
    ]);
    expect(test.assertions.map((a) => a.negated)).toEqual([false, true]);
  });
  it("P401: unknown fixture", () => {
    expectError(
      `${header}test "owners can edit" { setup { fixture base; } assert f(1); }\nf(1);`,
      "P401",
      "base",
      "unknown fixture `base` in test `owners can edit`",
    );
  });
  it("P402: duplicate test name", () => {
    const policy = `f(1);\ntest "owners can edit" { assert f(1); }\ntest "owners can edit" { assert f(1); }`;
    expectError(policy, "P402", `"owners can edit"`, "duplicate test name `owners can edit`");
    const result = check(policy);
    const found = result.diagnostics.find((d) => d.code === "P402")!;
    expect(found.span?.start).toBe(policy.lastIndexOf(`"owners`));
  });
  it("P403: duplicate fixture name", () => {
    expectError(
      `f(1);\ntest fixture base { f(1); }\ntest fixture base { f(1); }`,
      "P403",
      "base",
      "duplicate fixture name `base`",
    );
  });
  it("P404: at most one named variable per assertion", () => {
    expectError(
      `f(1, 2);\ntest "t" { assert f(a, b); }`,
      "P404",
      "f(a, b)",
      "assertion has more than one variable: `a`, `b`",
    );
    expectError(
      `${header}test "t" { assert f(a: User, b: Doc); }\nf(_, _);`,
      "P404",
      "f(a: User, b: Doc)",
    );
  });
  it("anonymous variables and repeated names do not count", () => {
    checkOk(`f(1, 2, 3);\ntest "t" { assert f(a, _, _b); assert f(a, a, _); assert f(_, _, _); }`);
  });
  it("P405: assert_not cannot be combined with iff", () => {
    const message = expectError(
      `f(1);\ntest "t" { assert_not f(x) iff x = 1; }`,
      "P405",
      "assert_not f(x) iff x = 1;",
    );
    expect(message).toBe("`assert_not` cannot be combined with `iff`");
  });
  it("P406: setup facts must be ground", () => {
    expectError(
      `f(1);\ntest "t" { setup { f(x); } assert f(1); }`,
      "P406",
      "x",
      "setup facts must be ground; found variable `x`",
    );
    expectError(`f(1);\ntest fixture base { f(_); }`, "P406", "_");
  });
  it("P406: a builtin in a setup fact is read per question, not a value", () => {
    expectError(
      `f(1);\ntest "t" { setup { f(@current_unix_time); } assert f(1); }`,
      "P406",
      "@current_unix_time",
      "setup facts must be ground; found `@current_unix_time`",
    );
  });
  it("P407: iff needs a variable", () => {
    const message = expectError(`f(1);\ntest "t" { assert f(1) iff true; }`, "P407", "true");
    expect(message).toBe("`iff` needs a variable in the query");
  });
  it("P408: the iff condition may mention only the assertion's variable", () => {
    expectError(
      `f(1);\ntest "t" { assert f(x) iff x = y; }`,
      "P408",
      "y",
      "the `iff` condition may mention only `x`, not `y`",
    );
  });
  it("a valid iff assertion", () => {
    checkOk(`f(1);\ntest "t" { assert f(x: Integer) iff x in [1] and not x = _other; }`);
  });
  it("setup facts are checked against fact signatures", () => {
    expectError(
      `${header}test "t" { setup { unknown_pred(1); } assert f(1); }\nf(1);`,
      "P501",
      "unknown_pred",
      "unknown predicate `unknown_pred/1`",
    );
    expectError(
      `${header}resource Team {}\ntest "t" { setup { has_tag(Team{"t"}, "x"); } assert has_tag(User{"a"}, "x"); }`,
      "P502",
      `Team{"t"}`,
      "argument 1 of `has_tag` must be `User`, got `Team`",
    );
  });
  it("setup facts need non-empty ids of at most 384 bytes", () => {
    expectError(
      `f("a");\ntest "t" { setup { f(""); } assert f("a"); }`,
      "P503",
      `""`,
      "fact arguments need a non-empty type and id",
    );
    const long = `"${"x".repeat(385)}"`;
    expectError(
      `f("a");\ntest "t" { setup { f(${long}); } assert f("a"); }`,
      "P504",
      long,
      "fact argument exceeds 384 bytes",
    );
  });
  it("fixture facts are checked too", () => {
    expectError(`f(1);\ntest fixture base { g(1); }`, "P501", "g");
  });
  it("malformed object literals in setup facts are reported once", () => {
    const result = check(`f(1);\ntest "t" { setup { has_role(Actor{"a"}, "x"); } assert f(1); }`);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["P112"]);
    expect(underlined(result, result.diagnostics[0]!)).toBe(`Actor{"a"}`);
  });
});
