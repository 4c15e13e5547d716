/**
 * The command line's manners: `--version`, short errors with a did-you-mean for unknown
 * commands and options, every missing required option named at once, exit codes in every help.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CommandSpec,
  listOf,
  parseCommandArgs,
  requireOptions,
  UsageError,
} from "../src/cli/args.js";
import type { CliIo } from "../src/cli/io.js";
import { COMMAND_NAMES, commandSpec, main } from "../src/cli/main.js";
import { closestName, didYouMean, editDistance } from "../src/source/suggest.js";

async function run(args: string[], env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    isTTY: false,
    env,
  };
  const code = await main(args, io);
  return { code, ...out };
}

describe("--version", () => {
  it("prints the package version", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const out = await run([flag]);
      expect(out).toEqual({ code: 0, stdout: `polar-sql ${version}\n`, stderr: "" });
    }
  });
});

describe("unknown commands and options", () => {
  it.each([
    [["chek", "a.polar"], "unknown command `chek` (did you mean `check`?); run `polar-sql --help`"],
    [
      ["--verison"],
      "unknown option `--verison` (did you mean `--version`?); run `polar-sql --help`",
    ],
    [["frobnicate"], "unknown command `frobnicate`; run `polar-sql --help`"],
    [
      ["check", "--jsn", "a.polar"],
      "unknown option `--jsn` (did you mean `--json`?); run `polar-sql check --help`",
    ],
    [["check", "--zzz", "a.polar"], "unknown option `--zzz`; run `polar-sql check --help`"],
    [
      ["test", "--jsn", "a.polar"],
      "unknown option `--jsn` (did you mean `--json`?); run `polar-sql test --help`",
    ],
    [
      ["serve", "--prot", "80"],
      "unknown option `--prot` (did you mean `--port`?); run `polar-sql serve --help`",
    ],
    [
      ["sql", "autorize"],
      "unknown subcommand `sql autorize` (did you mean `sql authorize`?); run `polar-sql sql --help`",
    ],
    [
      ["sql", "--policy", "p.polar", "autorize"],
      "unknown subcommand `sql autorize` (did you mean `sql authorize`?); run `polar-sql sql --help`",
    ],
    [
      ["facts", "gte"],
      "unknown subcommand `facts gte` (did you mean `facts get`?); run `polar-sql facts --help`",
    ],
    [
      ["bindings", "chek"],
      "unknown subcommand `bindings chek` (did you mean `bindings check`?); run `polar-sql bindings --help`",
    ],
    [
      ["explain", "--polcy", "p.polar"],
      "unknown option `--polcy` (did you mean `--policy`?); run `polar-sql explain --help`",
    ],
    [
      ["bindings", "init", "--schem", "public"],
      "unknown option `--schem` (did you mean `--schema`?); run `polar-sql bindings init --help`",
    ],
    [
      ["facts", "sync", "--confg", "sync.yaml"],
      "unknown option `--confg` (did you mean `--config`?); run `polar-sql facts sync --help`",
    ],
    [
      ["facts", "import", "--bach-size", "5"],
      "unknown option `--bach-size` (did you mean `--batch-size`?); run `polar-sql facts import --help`",
    ],
  ])("%j → exit 2 with one line", async (args, line) => {
    const out = await run(args);
    expect(out).toEqual({ code: 2, stdout: "", stderr: `error: ${line}\n` });
  });

  it("an option needing a value says so", async () => {
    const out = await run(["serve", "--policy", "p.polar", "--port"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: `--port` needs a value\n/);
  });

  it("a flag taking no value says so", async () => {
    const out = await run(["test", "--json=yes", "p.polar"]);
    expect(out.stderr).toMatch(/^error: `--json` takes no value\n/);
  });
});

/** Every command and subcommand the parser declares, with its options (its own and inherited). */
async function declaredCommands(): Promise<{ path: string[]; spec: CommandSpec }[]> {
  const found: { path: string[]; spec: CommandSpec }[] = [];
  const walk = (path: string[], spec: CommandSpec) => {
    found.push({ path, spec });
    for (const [name, sub] of Object.entries(spec.subcommands ?? {})) {
      walk([...path, name], { ...sub, options: { ...spec.options, ...sub.options } });
    }
  };
  for (const name of COMMAND_NAMES) walk([name], await commandSpec(name));
  return found;
}

describe("every declared command, subcommand and option", () => {
  it("a misspelt name gets one line, a did-you-mean and where the help is; exit 2", async () => {
    const commands = await declaredCommands();
    // The declarations are the parser's: facts, policy, sql and bindings have subcommands.
    expect(commands.map((c) => c.path.join(" "))).toEqual(
      expect.arrayContaining([
        "facts import",
        "facts sync",
        "policy push",
        "sql list",
        "bindings init",
      ]),
    );
    let checked = 0;
    for (const { path, spec } of commands) {
      const help = `run \`polar-sql ${path.join(" ")} --help\``;
      for (const option of Object.keys(spec.options)) {
        const out = await run([...path, `--${option}x`]);
        expect(out, `${path.join(" ")} --${option}x`).toEqual({
          code: 2,
          stdout: "",
          stderr: `error: unknown option \`--${option}x\` (did you mean \`--${option}\`?); ${help}\n`,
        });
        checked++;
      }
      const far = await run([...path, "--zzqqzz"]);
      expect(far).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: unknown option \`--zzqqzz\`; ${help}\n`,
      });
      const parent = path.slice(0, -1);
      const name = path[path.length - 1]!;
      const typo = await run([...parent, `${name}x`]);
      const where = parent.length === 0 ? "" : `${parent.join(" ")} `;
      const kind = parent.length === 0 ? "command" : "subcommand";
      const parentHelp = `run \`polar-sql ${parent.length === 0 ? "" : `${parent.join(" ")} `}--help\``;
      expect(typo, `${path.join(" ")}x`).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: unknown ${kind} \`${where}${name}x\` (did you mean \`${where}${name}\`?); ${parentHelp}\n`,
      });
    }
    expect(checked).toBeGreaterThan(60);
  });
});

describe("check --json", () => {
  it("prints the diagnostics with where they start, and exits 1 on errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-sql-check-"));
    try {
      const bad = join(dir, "bad.polar");
      writeFileSync(
        bad,
        'actor User {}\nresource Doc {\n  roles = ["viewer"];\n  "read" if "viewr";\n}\n',
      );
      const failed = await run(["check", "--json", bad]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toBe("");
      const report = JSON.parse(failed.stdout) as { ok: boolean; diagnostics: object[] };
      expect(report.ok).toBe(false);
      expect(report.diagnostics).toContainEqual(
        expect.objectContaining({
          code: "P201",
          severity: "error",
          file: bad,
          line: 4,
          column: 13,
        }),
      );
      const passed = await run(["check", "--json", "examples/quickstart/policy.polar"]);
      expect(passed).toEqual({
        code: 0,
        stdout: '{\n  "ok": true,\n  "diagnostics": []\n}\n',
        stderr: "",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("missing required arguments", () => {
  it("names every missing option of `sql` in one message", async () => {
    const out = await run(["sql", "list"]);
    expect(out.code).toBe(2);
    expect(out.stderr.split("\n")[0]).toBe(
      "error: `list` needs `--policy`, `--bindings`, `--actor`, `--action`, `--resource-type` and `--column`",
    );
  });

  it("names every missing argument of a client command in one message", async () => {
    const out = await run(["authorize", "User:bob"]);
    expect(out.code).toBe(2);
    expect(out.stderr.split("\n")[0]).toBe(
      "error: `authorize` needs `<action>`, `<resource>`, `--url` (or `POLAR_SQL_URL`) and `--api-key` (or `POLAR_SQL_API_KEY`)",
    );
  });

  it("takes the connection from the environment", async () => {
    const out = await run(["authorize", "User:bob"], {
      POLAR_SQL_URL: "http://127.0.0.1:9",
      POLAR_SQL_API_KEY: "k",
    });
    expect(out.stderr.split("\n")[0]).toBe("error: `authorize` needs `<action>` and `<resource>`");
  });

  it("refuses extra arguments", async () => {
    const out = await run(["actions", "User:a", "Doc:1", "Doc:2", "--url", "u", "--api-key", "k"]);
    expect(out.stderr.split("\n")[0]).toBe("error: unexpected argument `Doc:2`");
  });

  it("requireOptions lists what is missing, or nothing", () => {
    expect(() => requireOptions({ a: "1" }, ["a"])).not.toThrow();
    expect(() => requireOptions({}, ["a", "b"])).toThrow(
      new UsageError("missing required options `--a` and `--b`"),
    );
    expect(() => requireOptions({}, ["a"])).toThrow("missing required option `--a`");
    expect(listOf(["x", "y", "z"])).toBe("x, y and z");
  });

  it("parseCommandArgs keeps positionals and values", () => {
    const spec = {
      name: "t",
      usage: "t",
      options: { json: { type: "boolean" }, page: { type: "string" } },
    } as const;
    expect(parseCommandArgs(spec, ["a", "--json", "--page", "3", "b"])).toEqual({
      values: { json: true, page: "3" },
      positionals: ["a", "b"],
    });
  });
});

describe("help", () => {
  const commands = [
    ...COMMAND_NAMES.map((name) => [name]),
    ...["get", "insert", "delete", "export", "import"].map((name) => ["facts", name]),
    ...["get", "push"].map((name) => ["policy", name]),
    [],
  ];

  it.each(commands)("`%s %s --help` documents its exit codes", async (...command) => {
    const out = await run([...command, "--help"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^usage: polar-sql/);
    expect(out.stdout).toMatch(/\nexit codes:\n {2}0 {2}\S.*\n {2}1 {2}\S[\s\S]*\n {2}2 {2}\S/);
  });

  it("no arguments prints the help and exits 2", async () => {
    const out = await run([]);
    expect(out.code).toBe(2);
    for (const name of COMMAND_NAMES) expect(out.stdout).toContain(`  ${name} `);
    for (const group of ["facts", "policy"]) {
      const bare = await run([group]);
      expect(bare.code).toBe(2);
      expect(bare.stdout).toMatch(new RegExp(`^usage: polar-sql ${group} <`));
    }
  });
});

describe("did you mean", () => {
  it("measures edits, transpositions included", () => {
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("raed", "read")).toBe(1);
    expect(editDistance("reeder", "reader")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("日本", "日本語")).toBe(1);
  });

  it("suggests only close names, case-insensitively, the earlier on ties", () => {
    expect(closestName("chek", ["check", "test"])).toBe("check");
    expect(closestName("CHECK", ["check"])).toBe("check");
    expect(closestName("ad", ["admin"])).toBeNull();
    // An abbreviation of three or more letters always qualifies.
    expect(closestName("adm", ["admin"])).toBe("admin");
    expect(closestName("abc", ["abd", "abe"])).toBe("abd");
    expect(closestName("check", ["check"])).toBeNull();
    expect(didYouMean("reeder", ["reader", "writer"])).toBe("did you mean `reader`?");
    expect(didYouMean("zzz", ["reader"])).toBeUndefined();
  });
});
