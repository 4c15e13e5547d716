/**
 * The package as another project sees it: `npm pack`, installed into a fresh project beside its
 * own kysely and pg, the consumer's code (test/consumer/app.ts) type-checked by strict `tsc`
 * against the published declarations, a wrong request refused by the compiler
 * (test/consumer/wrong.ts), and the composed queries run on PostgreSQL. A build, an install
 * and two compilations take a minute or two, so it runs with the long runs (POLAR_SQL_LONG=1,
 * as CI does) and is listed as skipped otherwise.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG } from "./support/runs.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** Runs a command; resolves with its exit code and output whether it succeeds or not. */
async function attempt(command: string, args: string[], cwd: string, env = process.env) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

const versionOf = (name: string): string => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return manifest.dependencies?.[name] ?? manifest.devDependencies[name];
};

describe.skipIf(!LONG)("a consumer project", () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "polar-sql-consumer-"));
    // `npm pack` runs `prepare`, which builds dist/ from the sources.
    const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT });
    // `prepack` (the playground build) prints before npm's JSON.
    const json = packed.stdout.slice(packed.stdout.search(/^\[/m));
    const [{ filename }] = JSON.parse(json) as [{ filename: string }];
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "polar-sql-consumer",
        private: true,
        type: "module",
        dependencies: {
          "polar-sql": `file:./${filename}`,
          kysely: versionOf("kysely"),
          pg: versionOf("pg"),
          "@types/pg": versionOf("@types/pg"),
          "@types/node": versionOf("@types/node"),
        },
      }),
    );
    for (const file of ["app.ts", "wrong.ts", "tsconfig.json"]) {
      copyFileSync(join(ROOT, "test", "consumer", file), join(dir, file));
    }
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
      { cwd: dir },
    );
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("type-checks its queries against the published declarations with strict tsc", async () => {
    const result = await attempt(process.execPath, [TSC, "-p", "tsconfig.json"], dir);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("does not compile a request without its action or with a column that is not a string", async () => {
    const result = await attempt(
      process.execPath,
      [
        TSC,
        "--noEmit",
        "--strict",
        "--module",
        "NodeNext",
        "--moduleResolution",
        "NodeNext",
        "wrong.ts",
      ],
      dir,
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/wrong\.ts\(6,[\s\S]*'action'/);
    expect(result.stdout).toMatch(/wrong\.ts\(12,[\s\S]*not assignable to type 'string'/);
  });

  const databaseUrl = process.env.DATABASE_URL;
  it.skipIf(!databaseUrl)("runs the composed queries on PostgreSQL", async () => {
    const env = { ...process.env, DATABASE_URL: databaseUrl };
    const result = await attempt(process.execPath, [join(dir, "dist", "app.js")], dir, env);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      readable: [
        { id: 1, title: "plan" },
        { id: 3, title: "notes" },
      ],
      allowed: false,
      actions: ["delete", "read"],
    });
  });
});
