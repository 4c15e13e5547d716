/**
 * The command line's manners: `--version`, short errors with a did-you-mean for unknown
 * commands and options, every missing required option named at once, exit codes in every help.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listOf, parseCommandArgs, requireOptions, UsageError } from "../src/cli/args.js";
import type { CliIo } from "../src/cli/io.js";
import { COMMAND_NAMES, main } from "../src/cli/main.js";
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
    [["chek", "a.polar"], "error: unknown command `chek`; did you mean `check`?"],
    [["--verison"], "error: unknown option `--verison`; did you mean `--version`?"],
    [["frobnicate"], "error: unknown command `frobnicate`"],
    [["check", "--jsn", "a.polar"], "error: unknown option `--jsn`"],
    [["test", "--jsn", "a.polar"], "error: unknown option `--jsn`; did you mean `--json`?"],
    [["serve", "--prot", "80"], "error: unknown option `--prot`; did you mean `--port`?"],
    [["sql", "autorize"], "error: unknown question `autorize`; did you mean `authorize`?"],
    [["facts", "gte"], "error: unknown command `facts gte`; did you mean `get`?"],
    [["policy", "psuh"], "error: unknown command `policy psuh`; did you mean `push`?"],
    [["list", "--jsno"], "error: unknown option `--jsno`; did you mean `--json`?"],
    [
      ["facts", "import", "--bach-size", "5"],
      "error: unknown option `--bach-size`; did you mean `--batch-size`?",
    ],
  ])("%j → exit 2 with a short error", async (args, first) => {
    const out = await run(args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    const lines = out.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(first);
    // A few lines, never the whole help.
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(out.stderr).toMatch(/--help/);
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
