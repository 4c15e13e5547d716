/**
 * Friendly policy diagnostics, checked as the exact code frames `polar-sql check` prints: a
 * missing `;` at the end of its line, did-you-mean for undeclared terms, and a warning for test
 * assertions naming an action or role that the resource does not declare.
 */
import { describe, expect, it } from "vitest";
import { checkPolicy } from "../src/check/check.js";
import { formatDiagnostic } from "../src/source/format.js";

/** Every diagnostic of a one-file policy as `check` prints it (no colour). */
function frames(text: string): string {
  const sources = [{ name: "app.polar", text }];
  return checkPolicy(sources)
    .diagnostics.map((d) => formatDiagnostic(d, sources))
    .join("\n\n");
}

const frame = (lines: readonly string[]) => lines.join("\n");

describe("a missing `;`", () => {
  it("is reported at the end of the line where it is missing", () => {
    const text = [
      "actor User {}",
      "resource Repo {",
      '  roles = ["reader", "writer"]',
      '  permissions = ["read"];',
      "}",
    ].join("\n");
    expect(frames(text)).toBe(
      frame([
        "error[P006]: missing `;` after `]`",
        " --> app.polar:3:31",
        "  |",
        '3 |   roles = ["reader", "writer"]',
        "  |                               ^",
      ]),
    );
  });

  it("after a rule followed by another item", () => {
    const text = 'actor User {}\nf(User{"a"})\ng(x) if f(x);';
    expect(frames(text)).toBe(
      frame([
        "error[P006]: missing `;` after `)`",
        " --> app.polar:2:13",
        "  |",
        '2 | f(User{"a"})',
        "  |             ^",
      ]),
    );
  });

  it("at the end of the file", () => {
    const text = 'actor User {}\nf(User{"a"});\ng(x) if f(x)';
    expect(frames(text)).toBe(
      frame([
        "error[P006]: missing `;` after `)`",
        " --> app.polar:3:13",
        "  |",
        "3 | g(x) if f(x)",
        "  |             ^",
      ]),
    );
  });

  it("after a shorthand rule whose line is followed by a comment", () => {
    const text =
      'actor User {}\nresource R {\n  roles = ["a"];\n  permissions = ["r"];\n  "r" if "a" # why\n}';
    expect(frames(text)).toBe(
      frame([
        'error[P006]: missing `;` after `"a"`',
        " --> app.polar:5:13",
        "  |",
        '5 |   "r" if "a" # why',
        "  |             ^",
      ]),
    );
  });

  it("on the same line, the next token is reported as before", () => {
    const text = 'actor User {}\nf(User{"a"}) f(User{"b"});';
    expect(frames(text)).toBe(
      frame([
        "error[P006]: unexpected `f`; expected `;`",
        " --> app.polar:2:14",
        "  |",
        '2 | f(User{"a"}) f(User{"b"});',
        "  |              ^",
      ]),
    );
  });
});

const BLOCKS = [
  "actor User {}",
  'global { roles = ["admin"]; }',
  'resource Org { roles = ["owner", "member"]; }',
  "resource Repo {",
  '  roles = ["reader", "writer"];',
  '  permissions = ["read", "push"];',
  "  relations = { organization: Org };",
];

describe("undeclared terms", () => {
  it.each([
    [
      '  "read" if "reeder";',
      "error[P201]: undeclared term `reeder` in `Repo`; declare it as a role, permission or relation",
      "  |             ^^^^^^^^",
      "did you mean `reader`?",
    ],
    [
      '  "read" if "membr" on "organization";',
      "error[P204]: `membr` is not declared in `Org` (reached through `organization` of `Repo`)",
      "  |             ^^^^^^^",
      "did you mean `member`?",
    ],
    [
      '  "read" if "member" on "organisation";',
      "error[P203]: `organisation` is not a relation of `Repo`",
      "  |                         ^^^^^^^^^^^^^^",
      "did you mean `organization`?",
    ],
    [
      '  "read" if global "admn";',
      "error[P205]: `admn` is not declared in the `global` block",
      "  |                    ^^^^^^",
      "did you mean `admin`?",
    ],
    [
      '  "raed" if "reader";',
      "error[P201]: undeclared term `raed` in `Repo`; declare it as a role, permission or relation",
      "  |   ^^^^^^",
      "did you mean `read`?",
    ],
  ])("%s gets a did-you-mean", (line, first, carets, help) => {
    const text = [...BLOCKS, line, "}"].join("\n");
    expect(frames(text)).toBe(
      frame([
        first,
        " --> app.polar:8:" + (carets.indexOf("^") - 3),
        "  |",
        `8 | ${line}`,
        carets,
        `  = help: ${help}`,
      ]),
    );
  });

  it("gets no suggestion when nothing declared is close", () => {
    const text = [...BLOCKS, '  "read" if "zzzzzz";', "}"].join("\n");
    expect(frames(text)).not.toContain("help:");
  });
});

describe("assertions naming undeclared actions and roles", () => {
  const policy = (assertions: string, extra = "") =>
    [
      ...BLOCKS,
      '  "read" if "reader";',
      "}",
      extra,
      'test "t" {',
      '  setup { has_role(User{"a"}, "reader", Repo{"r"}); }',
      assertions,
      "}",
    ].join("\n");

  it("warn, naming the action or role, with a did-you-mean", () => {
    const text = policy(
      [
        '  assert_not allow(User{"a"}, "raed", Repo{"r"});',
        '  assert has_role(User{"a"}, "readr", Repo{"r"});',
        '  assert_not has_permission(User{"a"}, "pusj", Repo{"r"});',
      ].join("\n"),
    );
    const result = checkPolicy([{ name: "app.polar", text }]);
    expect(result.ok).toBe(true);
    expect(frames(text)).toBe(
      frame([
        "warning[W009]: `raed` is not an action of `Repo`",
        "  --> app.polar:13:31",
        "   |",
        '13 |   assert_not allow(User{"a"}, "raed", Repo{"r"});',
        "   |                               ^^^^^^",
        "   = help: did you mean `read`?",
        "",
        "warning[W009]: `readr` is not a role of `Repo`",
        "  --> app.polar:14:30",
        "   |",
        '14 |   assert has_role(User{"a"}, "readr", Repo{"r"});',
        "   |                              ^^^^^^^",
        "   = help: did you mean `reader`?",
        "",
        "warning[W009]: `pusj` is not a permission of `Repo`",
        "  --> app.polar:15:40",
        "   |",
        '15 |   assert_not has_permission(User{"a"}, "pusj", Repo{"r"});',
        "   |                                        ^^^^^^",
        "   = help: did you mean `push`?",
      ]),
    );
  });

  it("do not warn for declared names, names granted by a rule head, or other shapes", () => {
    const text = policy(
      [
        '  assert allow(User{"a"}, "read", Repo{"r"});',
        '  assert_not allow(User{"a"}, "push", Repo{"r"});',
        '  assert has_role(User{"a"}, "reader", Repo{"r"});',
        '  assert allow(User{"a"}, "audit", Repo{"r"});',
        '  assert_not allow(User{"a"}, x, Repo{"r"});',
        '  assert_not allow(User{"a"}, "anything", User{"b"});',
        '  assert_not allow(User{"a"}, "export", Repo{"r"});',
      ].join("\n"),
      'allow(_: User, "audit", _: Repo);\nallow(_: User, action, _: Repo) if action in ["export"];',
    );
    const result = checkPolicy([{ name: "app.polar", text }]);
    expect(result.diagnostics).toEqual([]);
  });
});
