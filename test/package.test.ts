/**
 * What `npm pack` ships: every file the README points to (examples, docs), the binary and the
 * docs folder. Asked of npm itself (`npm pack --dry-run --json`, scripts skipped).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

async function packedFiles(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--dry-run", "--json", "--ignore-scripts"],
    { encoding: "utf8" },
  );
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return pack!.files.map((file) => file.path);
}

/** Repository paths a markdown text mentions: `examples/…` and `docs/…` files. */
function mentionedFiles(markdown: string): string[] {
  const found = markdown.match(/\b(?:examples|docs)\/[\w./-]*\w\.\w+/g) ?? [];
  return [...new Set(found)].filter((path) => existsSync(path));
}

describe("npm pack", () => {
  it("ships the files the README points to, the docs and the binary", async () => {
    const files = await packedFiles();
    const mentioned = mentionedFiles(readFileSync("README.md", "utf8"));
    expect(mentioned).toContain("examples/quickstart/policy.polar");
    expect(mentioned).toContain("docs/getting-started.md");
    for (const path of mentioned) expect(files, path).toContain(path);
    for (const path of ["bin/polar-sql.js", "package.json", "README.md", "docs/cli.md"]) {
      expect(files).toContain(path);
    }
    // Tests and benchmarks stay out.
    expect(files.some((path) => path.startsWith("test/") || path.startsWith("bench/"))).toBe(false);
  });
});
