/**
 * `bindings init --policy` drafts only what the policy reads, named with its types and
 * relations, and the draft passes `bindings check --strict` against that policy and the same
 * database (no error, no warning). The schema is test/fixtures/bindings' with a view
 * `open_issues`, which stands for no type of the policy: on a SQLite file and on PostgreSQL
 * (PGlite through the library, the server through the CLI when DATABASE_URL is set).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { draftBindings } from "../src/bindings/draft.js";
import { checkBindingsWithDatabase } from "../src/bindings/verify.js";
import { main } from "../src/cli/main.js";
import { postgresSession } from "../src/dialects/postgres/catalog.js";
import { checked } from "./local-support.js";
import { openTestPglite } from "./support/pglite.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "bindings");
const POLICY_PATH = join(FIXTURES, "policy.polar");
const program = checked(readFileSync(POLICY_PATH, "utf8"));
const VIEW =
  "CREATE VIEW open_issues AS SELECT id, repo_id, creator_id, assignee_id FROM issues WHERE NOT locked";
const databaseUrl = process.env.DATABASE_URL;

async function run(args: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => err.push(t),
    isTTY: false,
  };
  const code = await main(args, io);
  return { code, out: out.join(""), err: err.join("") };
}

/** What the policy-named draft must say, whatever the engine. */
function expectPolicyDraft(draft: string): void {
  const bindings = draft.split("\n").filter((line) => /^ {2}"/.test(line));
  expect(bindings).toEqual([
    '  "has_relation(Issue:_, subscriber, User:_)":',
    '  "has_relation(Issue:_, assignee, User:_)":',
    '  "has_relation(Issue:_, creator, User:_)":',
    '  "has_relation(Issue:_, repository, Repository:_)":',
    '  "is_locked(Issue:_)":',
    '  "has_role(User:_, String:_, Organization:_)":',
    '  "has_relation(Repository:_, organization, Organization:_)":',
    '  "is_public(Repository:_)":',
    '  "has_role(User:_, maintainer, Repository:_)":',
    '  "is_admin(User:_)":',
    '  "Issue": "integer"',
    '  "User": "text"',
    '  "Repository": "integer"',
    '  "Organization": "text"',
    '  "issues": "id"',
    '  "org_memberships": ["org_id","user_id"]',
    '  "repositories": "id"',
    '  "repository_maintainers": ["repo_id","user_id"]',
    '  "users": "id"',
  ]);
  // The view and the table that stand for no type of the policy are only named.
  expect(draft).toContain(
    "# Tables and views that stand for no type of the policy: open_issues, subscriptions.",
  );
  expect(draft).not.toMatch(/OpenIssue|Subscription|FROM open_issues/);
}

describe("bindings init --policy on a SQLite file", () => {
  it("drafts what the policy reads; the draft checks with no error and no warning", async () => {
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-init-"));
    const file = join(dir, "app.db");
    const db = new Database(file);
    db.exec(readFileSync(join(FIXTURES, "schema-sqlite.sql"), "utf8"));
    db.exec(VIEW);
    db.close();
    const url = `sqlite:${file}`;
    const drafted = await run(["bindings", "init", "--database-url", url, "--policy", POLICY_PATH]);
    expect(drafted.code).toBe(0);
    expectPolicyDraft(drafted.out);
    const draft = join(dir, "bindings.yaml");
    await writeFile(draft, drafted.out);
    const check = ["bindings", "check", "--database-url", url, "--policy", POLICY_PATH];
    const checkedDraft = await run([...check, "--bindings", draft, "--strict"]);
    expect(checkedDraft.err).toBe("");
    expect(checkedDraft.code).toBe(0);
    // Without --policy, as before: the view is a type of its own, which this policy lacks.
    const plain = await run(["bindings", "init", "--database-url", url]);
    expect(plain.out).toContain('"has_relation(OpenIssue:_, repo, Repository:_)"');
    await writeFile(draft, plain.out);
    const strict = await run([...check, "--bindings", draft, "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain("warning[W010]: type `OpenIssue`");
    const lenient = await run([...check, "--bindings", draft]);
    expect(lenient.code).toBe(0);
  });
});

describe("bindings init --policy on PostgreSQL", () => {
  const schemaSql = readFileSync(join(FIXTURES, "schema.sql"), "utf8");

  it("PGlite: the library's draft checks with no diagnostic", async () => {
    const lite = await openTestPglite();
    try {
      await lite.exec(`${schemaSql}\n${VIEW};`);
      const session = postgresSession(async (text, params) => {
        const result = await lite.query<Record<string, unknown>>(text, [...params]);
        return { rows: result.rows, fields: result.fields };
      });
      const draft = draftBindings(await session.catalog(), {
        identifier: session.identifier,
        family: session.family,
        program,
      });
      expectPolicyDraft(draft);
      const result = await checkBindingsWithDatabase(program, draft, session);
      expect(result.diagnostics).toEqual([]);
    } finally {
      await lite.close();
    }
  });

  describe.skipIf(!databaseUrl)("the server", () => {
    const schema = `init_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    afterAll(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });

    it("the CLI's draft passes `bindings check --strict`", async () => {
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; ${schemaSql}`);
      await admin.query(VIEW);
      const url = new URL(databaseUrl!);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const at = ["--database-url", url.toString(), "--policy", POLICY_PATH];
      const drafted = await run(["bindings", "init", ...at]);
      expect(drafted.code).toBe(0);
      expectPolicyDraft(drafted.out);
      const dir = await mkdtemp(join(tmpdir(), "polar-sql-init-"));
      const draft = join(dir, "bindings.yaml");
      await writeFile(draft, drafted.out);
      const result = await run(["bindings", "check", ...at, "--bindings", draft, "--strict"]);
      expect(result.err).toBe("");
      expect(result.code).toBe(0);
    });
  });
});
