/**
 * The policy test runner (reference §10, project rules 10 and 12) and its report formats.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  formatTestReport,
  INLINE_QUERIES_TEST,
  runTests,
  type TestReport,
  testReportJson,
} from "../src/evaluate/index.js";
import { EXAMPLES, policy } from "./evaluate-support.js";

function run(text: string, now?: bigint): TestReport {
  return runTests(policy(text), now === undefined ? {} : { now: () => now });
}

function only(report: TestReport, name: string) {
  const test = report.tests.find((candidate) => candidate.name === name);
  if (!test) expect.fail(`no test named ${name}`);
  return test;
}

const RBAC_HEADER = `actor User {}
resource Workspace {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "invite"];
  "viewer" if "editor";
  "editor" if "owner";
  "read" if "viewer";
  "write" if "editor";
  "invite" if "owner";
}
`;

describe("the example policies", () => {
  it.each(Object.entries(EXAMPLES))("every test of §12 %s passes", (_, text) => {
    const report = run(text);
    expect(report.tests.length).toBeGreaterThan(0);
    for (const test of report.tests) {
      expect(test.failures, test.name).toEqual([]);
      expect(test.passedAssertions).toBe(test.total);
    }
    expect(report.passed).toBe(true);
  });

  const examples = new URL("../examples/", import.meta.url);
  const files = ["", "reference/"].flatMap((folder) =>
    readdirSync(new URL(folder, examples))
      .filter((name) => name.endsWith(".polar"))
      .map((name) => `${folder}${name}`),
  );

  it("finds the example files", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("every test of examples/%s passes", (name) => {
    const report = runTests(policy(readFileSync(new URL(name, examples), "utf8"), name));
    expect(report.tests.length).toBeGreaterThan(0);
    expect(report.tests.filter((test) => !test.passed)).toEqual([]);
  });
});

describe("assertions", () => {
  it("reports a broken assertion with what was expected and what was found", () => {
    const report = run(`${RBAC_HEADER}
test "broken" {
  setup { has_role(User{"bo"}, "viewer", Workspace{"w1"}); }
  assert allow(User{"bo"}, "read", Workspace{"w1"});
  assert allow(User{"bo"}, "write", Workspace{"w1"});
  assert_not allow(User{"bo"}, "read", Workspace{"w1"});
}`);
    const test = only(report, "broken");
    expect(report.passed).toBe(false);
    expect(report.failedTests).toBe(1);
    expect(test).toMatchObject({ passed: false, total: 3, passedAssertions: 1 });
    expect(test.failures).toEqual([
      {
        assertion: 'assert allow(User{"bo"}, "write", Workspace{"w1"});',
        location: "policy.polar:15:3",
        expected: "at least one solution",
        found: "no solution",
        explanation: expect.objectContaining({
          goal: 'allow(User{"bo"}, "write", Workspace{"w1"})',
          holds: false,
        }),
      },
      {
        assertion: 'assert_not allow(User{"bo"}, "read", Workspace{"w1"});',
        location: "policy.polar:16:3",
        expected: "no solution",
        found: "the query holds",
        explanation: expect.objectContaining({
          goal: 'allow(User{"bo"}, "read", Workspace{"w1"})',
          holds: true,
        }),
      },
    ]);
    // The proof of the unexpected allow ends in the test's setup fact.
    const leaves = JSON.stringify(test.failures[1]!.explanation);
    expect(leaves).toContain('"source":"setup"');
  });

  it("runs each test with only its own setup facts", () => {
    const report = run(`${RBAC_HEADER}
test "a" {
  setup { has_role(User{"ada"}, "owner", Workspace{"w1"}); }
  assert allow(User{"ada"}, "invite", Workspace{"w1"});
}
test "b" {
  setup { has_role(User{"bo"}, "viewer", Workspace{"w1"}); }
  assert_not allow(User{"ada"}, "read", Workspace{"w1"});
  assert allow(User{"ada"}, "read", Workspace{"w1"});
}`);
    expect(only(report, "a").passed).toBe(true);
    const b = only(report, "b");
    expect(b.passedAssertions).toBe(1);
    expect(b.failures.map((failure) => failure.assertion)).toEqual([
      'assert allow(User{"ada"}, "read", Workspace{"w1"});',
    ]);
  });

  it("expands fixtures into the setup", () => {
    const report = run(`${RBAC_HEADER}
test fixture owners { has_role(User{"ada"}, "owner", Workspace{"w1"}); }
test "with fixture" {
  setup { fixture owners; has_role(User{"bo"}, "editor", Workspace{"w1"}); }
  assert allow(User{"ada"}, "invite", Workspace{"w1"});
  assert allow(User{"bo"}, "write", Workspace{"w1"});
  assert_not allow(User{"bo"}, "invite", Workspace{"w1"});
}`);
    expect(only(report, "with fixture").passed).toBe(true);
  });

  it("reads `_` and `_`-prefixed arguments as some value", () => {
    const report = run(`${RBAC_HEADER}
test "anonymous" {
  setup { has_role(User{"ada"}, "owner", Workspace{"w1"}); }
  assert has_role(User{"ada"}, _, Workspace{"w1"});
  assert has_role(_who, "viewer", _: Workspace);
  assert_not has_role(User{"bo"}, _, _);
  assert has_role(User{"bo"}, _, _);
}`);
    const test = only(report, "anonymous");
    expect(test.passedAssertions).toBe(3);
    expect(test.failures[0]?.assertion).toBe('assert has_role(User{"bo"}, _, _);');
  });

  it("passes `assert` with a variable when some value works, `assert_not` when none does", () => {
    const report = run(`${RBAC_HEADER}
test "variables" {
  setup { has_role(User{"bo"}, "editor", Workspace{"w1"}); }
  assert allow(User{"bo"}, act: String, Workspace{"w1"});
  assert_not allow(User{"bo"}, act: Integer, Workspace{"w1"});
  assert_not allow(who: User, "invite", Workspace{"w1"});
  assert allow(User{"bo"}, act: Integer, Workspace{"w1"});
  assert_not allow(User{"bo"}, act, Workspace{"w1"});
}`);
    const test = only(report, "variables");
    expect(test.passedAssertions).toBe(3);
    expect(test.failures.map(({ expected, found }) => ({ expected, found }))).toEqual([
      { expected: "at least one solution", found: "no solution" },
      { expected: "no solution", found: 'act = "read", "write"' },
    ]);
  });

  it("reports an evaluation error as a failed assertion", () => {
    const report = run(`actor User {}
candidate(_: User);
guarded(x) if candidate(x) and not blocked(x);
declare blocked(User);
test "unbounded" {
  assert guarded(User{"a"});
  assert guarded(x: User);
}`);
    const test = only(report, "unbounded");
    expect(test.passedAssertions).toBe(1);
    expect(test.failures[0]).toMatchObject({
      error: "policy.polar:3:32: cannot evaluate `not` over an unbounded value of `x`",
      found: "error: policy.polar:3:32: cannot evaluate `not` over an unbounded value of `x`",
    });
  });
});

describe("iff", () => {
  it("compares the query's values with the condition's over the active domain", () => {
    const report = run(`${RBAC_HEADER}
test "exact" {
  setup { has_role(User{"bo"}, "editor", Workspace{"w1"}); }
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read", "write"];
  assert has_role(User{"bo"}, role, Workspace{"w1"}) iff role = "viewer" or role = "editor";
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read"];
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read", "write", "invite"];
}`);
    const test = only(report, "exact");
    expect(test.passedAssertions).toBe(2);
    expect(test.failures).toMatchObject([
      {
        expected: 'act in {"read"}',
        found: 'act in {"read", "write"}',
        queryOnly: ['"write"'],
        conditionOnly: [],
      },
      {
        expected: 'act in {"invite", "read", "write"}',
        found: 'act in {"read", "write"}',
        queryOnly: [],
        conditionOnly: ['"invite"'],
      },
    ]);
  });

  it("lets a wildcard answer cover every candidate of its type", () => {
    const report = run(`actor User {}
resource Team { roles = ["member"]; }
has_permission(actor: User, action: String, _: Team) if is_admin(actor);
declare is_admin(User);
test "wildcard" {
  setup { is_admin(User{"root"}); }
  assert allow(User{"root"}, act: String, Team{"t"}) iff act in ["read", "write", "member"];
  assert allow(User{"root"}, act: String, Team{"t"}) iff act in ["read", "write"];
}`);
    const test = only(report, "wildcard");
    expect(test.passedAssertions).toBe(1);
    expect(test.failures[0]?.queryOnly).toEqual(['"member"']);
  });

  it("filters candidates by the variable's type", () => {
    const report = run(`actor User {}
resource Doc {}
owner(Doc{"d1"}, User{"ada"});
owner(Doc{"d2"}, User{"bo"});
test "typed" {
  assert owner(d: Doc, User{"ada"}) iff d = Doc{"d1"};
  assert owner(d, User{"ada"}) iff d in [Doc{"d1"}, "d1"];
}`);
    const test = only(report, "typed");
    expect(test.passedAssertions).toBe(1);
    expect(test.failures[0]?.conditionOnly).toEqual(['"d1"']);
  });
});

describe("inline queries", () => {
  it("run against the policy alone under a synthetic test", () => {
    const report = run(`actor User {}
level(User{"ada"}, 3);
?= level(User{"ada"}, 3);
?= level(User{"ada"}, n) and n > 2;
?= level(User{"ada"}, 4);
`);
    const test = only(report, INLINE_QUERIES_TEST);
    expect(test).toMatchObject({ total: 3, passedAssertions: 2, passed: false });
    expect(test.failures[0]?.assertion).toBe('?= level(User{"ada"}, 4);');
  });

  it("are absent from the report when the policy has none", () => {
    expect(run(EXAMPLES.rbac).tests.map((test) => test.name)).toEqual([
      "owners inherit every lower role",
    ]);
  });
});

describe("@current_unix_time in tests", () => {
  const text = `actor User {}
fresh(t) if t > @current_unix_time;
test "clock" { assert fresh(2000); }`;

  it("uses the injected clock", () => {
    expect(run(text, 1000n).passed).toBe(true);
    expect(run(text, 3000n).passed).toBe(false);
  });
});

describe("report formats", () => {
  const report = run(`${RBAC_HEADER}
test "good" {
  setup { has_role(User{"ada"}, "owner", Workspace{"w1"}); }
  assert allow(User{"ada"}, "read", Workspace{"w1"});
}
test "bad" {
  setup { has_role(User{"bo"}, "editor", Workspace{"w1"}); }
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read"];
}`);

  it("prints one line per test with failures indented under it", () => {
    expect(formatTestReport(report)).toBe(
      [
        "PASS  good (1/1)",
        "FAIL  bad (0/1)",
        '      assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read"];',
        "        at policy.polar:18:3",
        '        expected: act in {"read"}',
        '        found: act in {"read", "write"}',
        '        values that satisfy the query but not the condition: "write"',
        "",
        "2 tests: 1 passed, 1 failed",
        "",
      ].join("\n"),
    );
  });

  it("colours only when asked", () => {
    expect(formatTestReport(report)).not.toContain("\u001b[");
    expect(formatTestReport(report, { color: true })).toContain("\u001b[32mPASS\u001b[0m");
  });

  it("says so when there are no tests", () => {
    expect(formatTestReport(run("actor User {}"))).toBe("no tests found\n");
  });

  it("gives machines the same data as JSON", () => {
    expect(JSON.parse(testReportJson(report))).toEqual(JSON.parse(JSON.stringify(report)));
    expect(JSON.parse(testReportJson(report)).tests[1].failures[0].queryOnly).toEqual(['"write"']);
  });
});
