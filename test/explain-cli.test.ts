/**
 * `polar-sql explain`: the tree, `--json`, colour only on a terminal without NO_COLOR, context
 * facts, exit codes 0 (any answer), 1 (bad policy), 2 (bad usage); and `polar-sql test`
 * printing the explanation of a failed assertion.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FOLDER_POLICY, folderCase } from "../bench/explain/folder-graphs.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { INDENTED_LEVELS } from "../src/evaluate/explain-format.js";
import type { Explanation } from "../src/evaluate/index.js";

const directory = mkdtempSync(join(tmpdir(), "polar-sql-explain-"));

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function run(args: string[], isTTY = false) {
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
  const code = await main(args, io);
  return { code, stdout, stderr };
}

const POLICY = `actor User {}
resource Repo {
  roles = ["reader", "admin"];
  permissions = ["read", "delete"];
  "reader" if "admin";
  "read" if "reader";
  "delete" if "admin";
}
`;
const policy = file("repo.polar", POLICY);
const wire = (role: string) => [
  {
    predicate: "has_role",
    args: [
      { type: "User", id: "ada" },
      { type: "String", id: role },
      { type: "Repo", id: "r1" },
    ],
  },
];
const facts = file("facts.json", JSON.stringify(wire("reader")));
const context = file("context.json", JSON.stringify(wire("admin")));
const question = (action: string) => [
  "explain",
  "--policy",
  policy,
  "--facts",
  facts,
  "--actor",
  "User:ada",
  "--action",
  action,
  "--resource",
  "Repo:r1",
];

afterEach(() => {
  delete process.env.NO_COLOR;
});

describe("polar-sql explain", () => {
  it("prints the proof of an allowed question as a tree with ✓ and file:line", async () => {
    const { code, stdout, stderr } = await run(question("read"));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe(
      [
        '✓ allow(User{"ada"}, "read", Repo{"r1"})',
        `  ✓ has_permission(User{"ada"}, "read", Repo{"r1"})  ${policy}:6`,
        '    ✓ has_role(User{"ada"}, "reader", Repo{"r1"})  stored fact',
        "",
      ].join("\n"),
    );
  });

  it("prints what was tried for a denied question, and still exits 0", async () => {
    const { code, stdout } = await run(question("delete"));
    expect(code).toBe(0);
    expect(stdout).toContain('✗ allow(User{"ada"}, "delete", Repo{"r1"})');
    expect(stdout).toContain('note: no fact `has_role(User{"ada"}, "admin", Repo{"r1"})`');
  });

  it("uses context facts", async () => {
    const { stdout } = await run([...question("delete"), "--context", context]);
    expect(stdout).toContain('✓ has_role(User{"ada"}, "admin", Repo{"r1"})  context fact');
  });

  it("prints JSON with --json", async () => {
    const { code, stdout } = await run([...question("read"), "--json"]);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as Explanation;
    expect(parsed.allowed).toBe(true);
    expect(parsed.explanation.children[0]?.rule).toEqual({
      file: policy,
      line: 6,
      column: 3,
      text: '"read" if "reader";',
    });
  });

  it("colours only on a terminal, and not with NO_COLOR", async () => {
    expect((await run(question("read"), true)).stdout).toContain("\u001b[32m✓\u001b[0m");
    expect((await run(question("read"), false)).stdout).not.toContain("\u001b[");
    process.env.NO_COLOR = "1";
    expect((await run(question("read"), true)).stdout).not.toContain("\u001b[");
  });

  it("exits 1 for a policy with errors", async () => {
    const broken = file(
      "broken.polar",
      `actor User {}\nresource Repo { permissions = ["read"]; "read" if "nope"; }\n`,
    );
    const args = question("read");
    args[2] = broken;
    const { code, stderr } = await run(args);
    expect(code).toBe(1);
    expect(stderr).toContain("undeclared term `nope`");
  });

  it.each([
    [
      "a missing flag",
      ["explain", "--policy", policy, "--actor", "User:ada", "--action", "read"],
      "`--resource` is required",
    ],
    [
      "a bad Type:id",
      [...question("read").slice(0, -1), "Repo:"],
      "`--resource`: `Repo:` has no id after the colon",
    ],
    [
      "an unknown option",
      [...question("read"), "--frob"],
      "unknown option `--frob`; run `polar-sql explain --help`",
    ],
    [
      "no policy",
      ["explain", "--actor", "User:a", "--action", "x", "--resource", "Repo:1"],
      "no policy files given",
    ],
    [
      "an unreadable facts file",
      [
        ...question("read").slice(0, 3),
        "--facts",
        join(directory, "missing.json"),
        ...question("read").slice(5),
      ],
      "no such file",
    ],
    [
      "facts that are not JSON",
      [
        ...question("read").slice(0, 3),
        "--facts",
        file("bad.json", "[1,"),
        ...question("read").slice(5),
      ],
      "is not valid JSON",
    ],
    [
      "a fact the policy refuses",
      [
        ...question("read"),
        "--context",
        file("refused.json", JSON.stringify([{ predicate: "has_role", args: [] }])),
      ],
      "`--context` fact 0",
    ],
    [
      "an Integer id that is not an integer",
      [
        "explain",
        "--policy",
        policy,
        "--actor",
        "Integer:x",
        "--action",
        "read",
        "--resource",
        "Repo:r1",
      ],
      "is not a 64-bit integer",
    ],
  ])("exits 2 for %s", async (_, args, message) => {
    const { code, stderr } = await run(args as string[]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it("prints help", async () => {
    const { code, stdout } = await run(["explain", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("usage: polar-sql explain");
  });
});

describe("polar-sql explain on a 3,000-deep folder chain", () => {
  const chain = folderCase("deep", 3000);
  const args = [
    "explain",
    "--policy",
    file("folders.polar", FOLDER_POLICY),
    "--facts",
    file("chain.json", JSON.stringify(chain.facts)),
    "--actor",
    "User:alice",
    "--action",
    "read",
    "--resource",
    "Document:plan.md",
  ];

  it("prints the whole proof, deep lines marked with their level", async () => {
    const { code, stdout, stderr } = await run(args);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(9003);
    expect(lines.at(-1)).toBe(
      `${"  ".repeat(INDENTED_LEVELS)}[3002] ✓ has_role(User{"alice"}, "viewer", Folder{"f2999"})  stored fact`,
    );
  });

  it("prints the whole proof as JSON with --json", async () => {
    const { code, stdout, stderr } = await run([...args, "--json"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    let tree = (JSON.parse(stdout) as Explanation).explanation;
    let depth = 1;
    while (tree.children.length > 0) {
      tree = tree.children.at(-1)!;
      depth++;
    }
    expect(depth).toBe(3003);
  });

  it.each([
    [["--max-explain-nodes", "9002"], "over the limit of 9002 nodes", "`--max-explain-nodes`"],
    [
      ["--json", "--max-explain-bytes", "100000"],
      "over the limit of 100000 bytes",
      "`--max-explain-bytes`",
    ],
  ])("refuses a proof over %j, naming the limit, exit 1", async (flags, limit, flag) => {
    const { code, stdout, stderr } = await run([...args, ...flags]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toContain(limit);
    expect(stderr).toContain(flag);
    expect(stderr).not.toContain("    at ");
  });

  it("exits 2 for a limit that is not a positive whole number", async () => {
    const { code, stderr } = await run([...args, "--max-explain-nodes", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("`--max-explain-nodes` must be a positive whole number");
  });
});

describe("polar-sql test", () => {
  it("prints why a failing assertion failed", async () => {
    const failing = file(
      "failing.polar",
      `${POLICY}
test "admins" {
  setup { has_role(User{"ada"}, "reader", Repo{"r1"}); }
  assert allow(User{"ada"}, "delete", Repo{"r1"});
  assert_not allow(User{"ada"}, "read", Repo{"r1"});
}
`,
    );
    const { code, stdout } = await run(["test", failing]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      [
        "        why:",
        '          ✗ allow(User{"ada"}, "delete", Repo{"r1"})',
        `            ✗ has_permission(User{"ada"}, "delete", Repo{"r1"})  ${failing}:7`,
        '              ✗ has_role(User{"ada"}, "admin", Repo{"r1"})',
        '                note: no fact `has_role(User{"ada"}, "admin", Repo{"r1"})`',
      ].join("\n"),
    );
    expect(stdout).toContain(
      '              ✓ has_role(User{"ada"}, "reader", Repo{"r1"})  setup fact',
    );
  });
});
