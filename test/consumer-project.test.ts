/**
 * The package as another project sees it: `npm pack`, installed into a fresh project beside its
 * own kysely and pg, the consumer's code (test/consumer/app.ts) type-checked by strict `tsc`
 * against the published declarations, a wrong request refused by the compiler
 * (test/consumer/wrong.ts), and the composed queries run on PostgreSQL. A build, an install
 * and two compilations take a minute or two, so it runs with the long runs (POLAR_SQL_LONG=1,
 * as CI does) and is listed as skipped otherwise.
 *
 * And a clean install of this repository: every dependency with an install script is approved
 * in package.json's `allowScripts`, pinned to the locked version as `npm install-scripts
 * approve` writes it, so that `npm install` runs them (the native SQLite module, esbuild's
 * binary) and leaves no "not yet covered by allowScripts" warning to act on.
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

interface Lockfile {
  readonly packages: Readonly<
    Record<
      string,
      {
        version?: string;
        resolved?: string;
        hasInstallScript?: boolean;
        name?: string;
        link?: boolean;
      }
    >
  >;
}

describe("a clean install of this repository", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    allowScripts?: Record<string, boolean>;
  };
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as Lockfile;

  it("approves exactly the locked packages that have install scripts, pinned", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && entry.hasInstallScript)
      .map(
        ([path, entry]) =>
          `${entry.name ?? path.slice(path.lastIndexOf("node_modules/") + 13)}@${entry.version}`,
      );
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(manifest.allowScripts ?? {}).sort()).toEqual(
      [...new Set(withScripts)].sort(),
    );
    expect(Object.values(manifest.allowScripts ?? {}).every((allowed) => allowed === true)).toBe(
      true,
    );
  });

  it("locks where each package came from, which a pinned approval needs", () => {
    // Without `resolved`, npm cannot tell the locked version and a pinned approval never matches.
    const unresolved = Object.entries(lock.packages).filter(
      ([path, entry]) =>
        path !== "" && entry.version !== undefined && !entry.link && !entry.resolved,
    );
    expect(unresolved.map(([path]) => path)).toEqual([]);
    expect(readFileSync(join(ROOT, ".npmrc"), "utf8")).toMatch(
      /^omit-lockfile-registry-resolved=false$/m,
    );
  });

  it.skipIf(!LONG)(
    "leaves no install script unreviewed after `npm ci`",
    async () => {
      const fresh = mkdtempSync(join(tmpdir(), "polar-sql-install-"));
      try {
        for (const file of ["package.json", "package-lock.json", ".npmrc"]) {
          copyFileSync(join(ROOT, file), join(fresh, file));
        }
        // Scripts are skipped here only to keep the test short; `ls` reads what would run.
        await run(
          "npm",
          ["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"],
          {
            cwd: fresh,
          },
        );
        const listed = await attempt("npm", ["install-scripts", "ls"], fresh);
        expect(listed.stdout + listed.stderr).toMatch(
          /No packages with unreviewed install scripts/,
        );
        expect(listed.code).toBe(0);
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
    600_000,
  );
});

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
