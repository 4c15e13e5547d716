/**
 * `polar-sql test <files...>`: output, exit codes, `--json`, colour only on a terminal.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { runTestCommand } from "../src/cli/test-command.js";
import { EXAMPLES } from "./evaluate-support.js";

const directory = mkdtempSync(join(tmpdir(), "polar-sql-test-command-"));

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function runCommand(args: string[], isTTY = false) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    isTTY,
  };
  const code = await runTestCommand(args, io);
  return { code, stdout, stderr };
}

const passing = file("rbac.polar", EXAMPLES.rbac);
const broken = file(
  "broken.polar",
  `${EXAMPLES.rbac}
test "broken" {
  setup { has_role(User{"bo"}, "viewer", Workspace{"w1"}); }
  assert allow(User{"bo"}, "write", Workspace{"w1"});
}
`,
);

describe("polar-sql test", () => {
  it("prints one line per test and exits 0 when all pass", async () => {
    const result = await runCommand([passing]);
    expect(result).toEqual({
      code: 0,
      stdout: "PASS  owners inherit every lower role (4/4)\n\n1 test: 1 passed, 0 failed\n",
      stderr: "",
    });
  });

  it("reports a failing assertion with expected and found, and exits 1", async () => {
    const result = await runCommand([broken]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL  broken (0/1)");
    expect(result.stdout).toContain('assert allow(User{"bo"}, "write", Workspace{"w1"});');
    expect(result.stdout).toContain(`at ${broken}:25:3`);
    expect(result.stdout).toContain("expected: at least one solution");
    expect(result.stdout).toContain("found: no solution");
  });

  it("treats several files as one policy", async () => {
    const types = file("types.polar", 'actor User {}\nresource Doc { permissions = ["read"]; }\n');
    const tests = file(
      "tests.polar",
      'has_permission(_: User, "read", _: Doc);\ntest "t" { assert allow(User{"a"}, "read", Doc{"d"}); }\n',
    );
    const result = await runCommand([types, tests]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("PASS  t (1/1)");
  });

  it("prints JSON with --json", async () => {
    const result = await runCommand(["--json", broken]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.passed).toBe(false);
    expect(report.tests.map((test: { name: string }) => test.name)).toEqual([
      "owners inherit every lower role",
      "broken",
    ]);
    expect(report.tests[1].failures[0].found).toBe("no solution");
  });

  it("colours output only on a terminal", async () => {
    expect((await runCommand([passing], false)).stdout).not.toContain("\u001b[");
    expect((await runCommand([passing], true)).stdout).toContain("\u001b[32mPASS");
  });

  it("prints diagnostics with code frames and exits 1 for an invalid policy", async () => {
    const invalid = file("invalid.polar", 'actor User {}\nresource Doc { "read" if "viewer"; }\n');
    const result = await runCommand([invalid]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("undeclared term `read` in `Doc`");
    expect(result.stderr).toContain(`--> ${invalid}:2:16`);
    const json = await runCommand(["--json", invalid]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: false, tests: [] });
  });

  it("exits 2 for an unreadable file, a bad option or no files", async () => {
    const missing = await runCommand([join(directory, "missing.polar")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read");
    expect(missing.stderr).toContain("no such file");
    expect((await runCommand(["--fast", passing])).code).toBe(2);
    const none = await runCommand([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no policy files given");
  });

  it("prints help", async () => {
    const help = await runCommand(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: polar-sql test");
  });
});
