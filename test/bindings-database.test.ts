/**
 * Data bindings against a live database (issue 17), on PGlite and on the PostgreSQL server
 * when DATABASE_URL is set: `bindings init` drafts bindings from the schema of
 * `test/fixtures/bindings` (foreign keys, a nullable one, composite keys, booleans, a view),
 * the draft passes `bindings check`, and the local SQL it gives answers every question as the
 * reference evaluator does over the same rows. Each database-found mistake is reported at its
 * line; the checks write nothing.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import { draftBindings } from "../src/bindings/draft.js";
import type { DataBindings } from "../src/bindings/types.js";
import { checkBindingsWithDatabase } from "../src/bindings/verify.js";
import { main } from "../src/cli/main.js";
import type { GroundFact } from "../src/core/value.js";
import type { DatabaseSession } from "../src/database/types.js";
import { openPostgres, postgresSession } from "../src/dialects/postgres/catalog.js";
import { authorize, list } from "../src/evaluate/index.js";
import type { Diagnostic } from "../src/source/diagnostic.js";
import { positionOf } from "../src/source/source.js";
import { checked } from "./local-support.js";
import { openTestPglite } from "./support/pglite.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "bindings");
const SCHEMA = readFileSync(join(FIXTURES, "schema.sql"), "utf8");
const POLICY_PATH = join(FIXTURES, "policy.polar");
const program = checked(readFileSync(POLICY_PATH, "utf8"));
/** The policy plus a rule that reads `is_public` with a Boolean, so such a binding is read. */
const readsBoolean = checked(
  `${readFileSync(POLICY_PATH, "utf8")}\nhas_permission(_: User, "push", r: Repository) if is_public(r, true);\n`,
);
const databaseUrl = process.env.DATABASE_URL;

interface Engine {
  readonly name: string;
  /** Rows as arrays of values. */
  rows(sql: string): Promise<unknown[][]>;
  session(): DatabaseSession;
  /** A connection URL for the CLI, where there is one. */
  readonly url: string | null;
}

async function pgliteEngine(): Promise<Engine & { close(): Promise<void> }> {
  const lite = await openTestPglite();
  await lite.exec(SCHEMA);
  return {
    name: "pglite",
    url: null,
    async rows(sql) {
      return (await lite.query<unknown[]>(sql, [], { rowMode: "array" })).rows;
    },
    session: () =>
      postgresSession(async (text, params) => {
        const result = await lite.query<Record<string, unknown>>(text, [...params]);
        return { rows: result.rows, fields: result.fields };
      }),
    close: () => lite.close(),
  };
}

async function postgresEngine(url: string): Promise<Engine & { close(): Promise<void> }> {
  const schema = `b17_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; ${SCHEMA}`);
  const inSchema = new URL(url);
  inSchema.searchParams.set("options", `-c search_path=${schema}`);
  const sessions: DatabaseSession[] = [];
  const opened = await openPostgres(inSchema.toString());
  sessions.push(opened);
  return {
    name: "postgres",
    url: inSchema.toString(),
    async rows(sql) {
      return (await admin.query({ text: sql, rowMode: "array" })).rows;
    },
    session: () => opened,
    async close() {
      for (const session of sessions) await session.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

const engines: (Engine & { close(): Promise<void> })[] = [];
beforeAll(async () => {
  engines.push(await pgliteEngine());
  if (databaseUrl) engines.push(await postgresEngine(databaseUrl));
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
});

const names = databaseUrl ? ["pglite", "postgres"] : ["pglite"];
const engine = (name: string) => engines.find((e) => e.name === name)!;

async function draft(e: Engine): Promise<string> {
  const session = e.session();
  return draftBindings(await session.catalog(), {
    identifier: session.identifier,
    family: session.family,
    program,
  });
}

/** The facts the bindings' queries give, as the reference evaluator reads them. */
async function factsOf(e: Engine, bindings: DataBindings): Promise<GroundFact[]> {
  const facts: GroundFact[] = [];
  for (const binding of bindings.bindings) {
    for (const row of await e.rows(binding.query)) {
      let next = 0;
      const args = binding.slots.map((slot) =>
        slot.kind === "constant"
          ? { type: slot.type, id: slot.value }
          : { type: slot.type, id: String(row[next++]) },
      );
      facts.push({ predicate: binding.predicate, args });
    }
  }
  return facts;
}

function located(text: string, diagnostics: readonly Diagnostic[]): string[] {
  const source = { name: "b.yaml", text };
  return diagnostics.map((d) => {
    const { line, column } = positionOf(source, d.span!.start);
    return `${d.code} ${line}:${column} ${text.slice(d.span!.start, d.span!.end)}`;
  });
}

describe.each(names)("%s", (name) => {
  it("init drafts bindings that check clean against the same database", async () => {
    const e = engine(name);
    const yaml = await draft(e);
    expect(yaml).toContain('"has_relation(Issue:_, assignee, User:_)":');
    expect(yaml).toContain(
      'query: "SELECT id, assignee_id FROM issues WHERE assignee_id IS NOT NULL"',
    );
    expect(yaml).toContain('"has_role(User:_, String:_, Organization:_)":');
    expect(yaml).toContain('"has_role(User:_, maintainer, Repository:_)":');
    expect(yaml).toContain('"has_relation(Repository:_, organization, Organization:_)":');
    expect(yaml).toContain('"has_relation(Issue:_, subscriber, User:_)":'); // from the view
    expect(yaml).toContain('"is_public(Repository:_)":');
    expect(yaml).toContain('"is_locked(Issue:_)":');
    expect(yaml).toContain('  # "is_archived(Repository:_)":'); // not read by the policy
    expect(yaml).toContain('  "org_memberships": ["org_id","user_id"]');
    expect(yaml).toContain('  "Repository": "integer"');
    const result = await checkBindingsWithDatabase(program, yaml, e.session(), {
      fileName: "b.yaml",
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("the drafted bindings answer every question as the reference evaluator does", async () => {
    const e = engine(name);
    const yaml = await draft(e);
    const bindings = (await checkBindingsWithDatabase(program, yaml, e.session())).bindings!;
    const facts = await factsOf(e, bindings);
    const users = ["alice", "bob", "carol", "dave", "root", "nobody"];
    const actions = ["read", "push", "close", "comment"];
    const resources = [
      ...["1", "2", "3"].map((id) => ({ type: "Repository", id })),
      ...["10", "11", "12", "13"].map((id) => ({ type: "Issue", id })),
      { type: "Organization", id: "acme" },
    ];
    let allowedSomewhere = 0;
    for (const user of users) {
      const actor = { type: "User", id: user };
      for (const action of actions) {
        for (const resource of resources) {
          const { sql } = authorizeQuery(program, {
            query: {
              actor_type: "User",
              actor_id: user,
              action,
              resource_type: resource.type,
              resource_id: resource.id,
            },
            data_bindings: yaml,
          });
          const [[allowed]] = (await e.rows(sql)) as [[boolean]];
          const expected = authorize(program, facts, actor, action, resource);
          expect(allowed, `${user} ${action} ${resource.type}:${resource.id}`).toBe(expected);
          if (expected) allowedSomewhere++;
        }
        for (const [type, table] of [
          ["Repository", "repositories"],
          ["Issue", "issues"],
        ] as const) {
          const { sql } = listQuery(program, {
            query: { actor_type: "User", actor_id: user, action, resource_type: type },
            column: `${table}.id`,
            data_bindings: yaml,
          });
          const rows = await e.rows(`SELECT id::text FROM ${table} WHERE ${sql} ORDER BY 1`);
          const all = (await e.rows(`SELECT id::text FROM ${table}`)).map((row) => row[0]);
          // `*`: every resource of the type (an unbounded answer).
          const listed = list(program, facts, actor, action, type);
          const expected = listed.includes("*") ? all : listed;
          expect(rows.map((row) => row[0]).sort(), `list ${user} ${action} ${type}`).toEqual(
            [...expected].sort(),
          );
        }
      }
    }
    // The questions are not all answered the same way.
    expect(allowedSomewhere).toBeGreaterThan(20);
    expect(allowedSomewhere).toBeLessThan(users.length * actions.length * resources.length);
  });

  it("reports what the database finds at its line", async () => {
    const e = engine(name);
    const yaml = `facts:
  "has_relation(Issue:_, repository, Repository:_)":
    query: SELECT * FROM issues
  "has_relation(Issue:_, creator, User:_)":
    query: SELECT id, creator_id FROM issuez
  "is_public(Repository:_, Boolean:_)":
    query: SELECT id, name FROM repositories
  "has_relation(Repository:_, organization, Organization:_)":
    query: SELECT id, org_id FROM repositories
  "has_role(User:_, String:_, Organization:_)":
    query: SELECT user_id, role, org_id FROM org_memberships
  "is_locked(Issue:_)":
    query: SELECT id FROM issues WHERE locked
sql_types:
  Repository: text
  Issue: integer
keys:
  repositories: org_id
  org_memberships: user_id
  nothere: id
  issues: [id, nope]
`;
    const result = await checkBindingsWithDatabase(readsBoolean, yaml, e.session(), {
      fileName: "b.yaml",
    });
    expect(result.ok).toBe(false);
    const found = located(yaml, result.diagnostics).filter((d) => !d.startsWith("W00"));
    expect(found).toEqual([
      "P708 3:12 SELECT * FROM issues",
      "P709 5:39 issuez",
      "P710 7:19 id",
      "P710 7:23 name",
      "P710 9:19 id",
      "P711 18:3 repositories",
      "P711 20:3 nothere",
      "P711 21:3 issues",
    ]);
    const message = (code: string) => result.diagnostics.find((d) => d.code === code)!.message;
    expect(message("P709")).toBe(
      'the database rejects the query of binding `has_relation(Issue:_, String:creator, User:_)`: relation "issuez" does not exist',
    );
    expect(message("P711")).toBe(
      "key `(org_id)` of table `repositories` is not unique: 1 value occurs in more than one row",
    );
    // Unique in today's data, but no constraint says so.
    expect(
      located(
        yaml,
        result.diagnostics.filter((d) => d.code === "W007"),
      ),
    ).toEqual(["W007 19:3 org_memberships"]);
    expect(result.diagnostics.filter((d) => d.code === "P710").map((d) => d.message)).toEqual([
      "column 1 of binding `is_public(Repository:_, Boolean:_)` is `integer`, but `sql_types` gives `Repository` the type `text`",
      "column 2 of binding `is_public(Repository:_, Boolean:_)` is `text`, not a type for `Boolean` values",
      "column 1 of binding `has_relation(Repository:_, String:organization, Organization:_)` is `integer`, but `sql_types` gives `Repository` the type `text`",
    ]);
  });

  it("names the sql_types entry an integer or uuid id column lacks", async () => {
    const e = engine(name);
    await e.rows(`CREATE TABLE IF NOT EXISTS typed_memberships (
      user_id integer NOT NULL, role text NOT NULL, org_id uuid NOT NULL)`);
    const yaml = `facts:
  "has_role(User:_, String:_, Organization:_)":
    query: SELECT user_id, role, org_id FROM typed_memberships
`;
    const result = await checkBindingsWithDatabase(program, yaml, e.session(), {
      fileName: "b.yaml",
    });
    expect(result.ok).toBe(true);
    const untyped = result.diagnostics.filter((d) => d.code === "W008");
    expect(untyped.map((d) => d.help)).toEqual([
      "add `User: integer` to `sql_types`",
      "add `Organization: uuid` to `sql_types`",
    ]);
    expect(untyped.map((d) => d.message)).toEqual([
      'column 1 of binding `has_role(User:_, String:_, Organization:_)` is `integer`, but `sql_types` gives no type for `User`, so ids that look like uuids make PostgreSQL raise an error (`invalid input syntax for type integer`), and other ids that are not 32-bit integers are compared with the column\'s text, where its index cannot serve (docs/local-authorization.md, "Ids without sql_types")',
      'column 3 of binding `has_role(User:_, String:_, Organization:_)` is `uuid`, but `sql_types` gives no type for `Organization`, so ids that look like integers make PostgreSQL raise an error (`invalid input syntax for type uuid`), and other ids that are not lowercase uuids are compared with the column\'s text, where its index cannot serve (docs/local-authorization.md, "Ids without sql_types")',
    ]);
    await e.rows(`CREATE TABLE IF NOT EXISTS small_memberships (
      user_id smallint NOT NULL, role text NOT NULL, org_id text NOT NULL)`);
    const small = await checkBindingsWithDatabase(
      program,
      `facts:\n  "has_role(User:_, String:_, Organization:_)":\n    query: SELECT user_id, role, org_id FROM small_memberships\n`,
      e.session(),
    );
    const smallWarning = small.diagnostics.find((d) => d.code === "W008")!;
    expect(smallWarning.help).toBe("add `User: smallint` to `sql_types`");
    expect(smallWarning.message).toContain(
      "32-bit integers outside -32768..32767 make PostgreSQL raise an error",
    );
    // With the entries, nothing to report; with a wrong one, an error at the column.
    const typed = await checkBindingsWithDatabase(
      program,
      `${yaml}sql_types:\n  User: integer\n  Organization: uuid\n`,
      e.session(),
    );
    expect(typed.diagnostics.filter((d) => d.code === "W008" || d.code === "P710")).toEqual([]);
    const wrong = await checkBindingsWithDatabase(
      program,
      `${yaml}sql_types:\n  User: integer\n  Organization: bigint\n`,
      e.session(),
    );
    const wrongColumns = wrong.diagnostics.filter((d) => d.code === "W008" || d.code === "P710");
    expect(wrongColumns.map((d) => [d.code, d.message])).toEqual([
      [
        "P710",
        "column 3 of binding `has_role(User:_, String:_, Organization:_)` is `uuid`, but `sql_types` gives `Organization` the type `bigint`",
      ],
    ]);
  });

  it("reads only: data-modifying queries are refused and nothing changes", async () => {
    const e = engine(name);
    const before = await e.rows("SELECT count(*)::int FROM users");
    const yaml = `facts:
  "is_admin(User:_)":
    query: WITH d AS (DELETE FROM users RETURNING id) SELECT id FROM d
  "has_relation(Issue:_, creator, User:_)":
    query: SELECT id, creator_id FROM issues WHERE (SELECT count(*) FROM (SELECT setval('subscriptions_id_seq', 999)) s) > 0
`;
    const sequence = await e.rows("SELECT last_value FROM subscriptions_id_seq");
    const result = await checkBindingsWithDatabase(program, yaml, e.session());
    expect(result.diagnostics.filter((d) => d.code === "P709").length).toBeGreaterThanOrEqual(1);
    expect(await e.rows("SELECT count(*)::int FROM users")).toEqual(before);
    expect(await e.rows("SELECT last_value FROM subscriptions_id_seq")).toEqual(sequence);
  });
});

describe.skipIf(!databaseUrl)("the bindings command on the PostgreSQL server", () => {
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      isTTY: false,
    };
    const code = await main(args, io);
    return { code, out: out.join(""), err: err.join("") };
  };

  it("init prints a draft that check accepts (exit 0)", async () => {
    const url = engine("postgres").url!;
    const init = await run(["bindings", "init", "--database-url", url, "--policy", POLICY_PATH]);
    expect(init.code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-init-"));
    const file = join(dir, "bindings.yaml");
    await writeFile(file, init.out);
    const check = await run([
      "bindings",
      "check",
      "--policy",
      POLICY_PATH,
      "--bindings",
      file,
      "--database-url",
      url,
    ]);
    expect(check).toEqual({
      code: 0,
      out: `ok: \`${file}\` checked against the database\n`,
      err: "",
    });
  });

  it("init --schema writes qualified names, which check accepts from another search path", async () => {
    const url = new URL(engine("postgres").url!);
    const schema = url.searchParams.get("options")!.replace("-c search_path=", "");
    url.searchParams.delete("options");
    const init = await run([
      "bindings",
      "init",
      "--database-url",
      url.toString(),
      "--schema",
      schema,
      "--policy",
      POLICY_PATH,
    ]);
    expect(init.code).toBe(0);
    expect(init.out).toContain(`FROM ${schema}.issues WHERE assignee_id IS NOT NULL`);
    expect(init.out).toContain(`  "${schema}.org_memberships": ["org_id","user_id"]`);
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-init-"));
    const file = join(dir, "bindings.yaml");
    await writeFile(file, init.out);
    const args = ["bindings", "check", "--policy", POLICY_PATH, "--bindings", file];
    const check = await run([...args, "--database-url", url.toString(), "--json"]);
    expect(check).toEqual({ code: 0, out: "[]\n", err: "" });
  });

  it("check exits 1 on errors, naming the file and line; --json gives the array", async () => {
    const url = engine("postgres").url!;
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-check-"));
    const file = join(dir, "bad.yaml");
    await writeFile(
      file,
      "facts:\n  is_public(Repository:_):\n    query: SELECT id FROM nowhere\n",
    );
    const args = ["bindings", "check", "--policy", POLICY_PATH, "--bindings", file];
    const text = await run([...args, "--database-url", url]);
    expect(text.code).toBe(1);
    expect(text.err).toContain(`error[P709]: the database rejects the query of binding`);
    expect(text.err).toContain(` --> ${file}:3:27`);
    const json = await run([...args, "--database-url", url, "--json"]);
    expect(json.code).toBe(1);
    const diagnostics = JSON.parse(json.out) as { code: string; file: string; line: number }[];
    expect(diagnostics.every((d) => d.file === file && d.line >= 1)).toBe(true);
    expect(diagnostics.find((d) => d.code === "P709")).toMatchObject({ line: 3, column: 27 });
  });

  it("exits 2 on bad usage and an unreachable database", async () => {
    expect((await run(["bindings", "check", "--policy", POLICY_PATH])).code).toBe(2);
    const dialect = await run(["bindings", "init", "--database-url", "x", "--dialect", "oracle"]);
    expect(dialect.code).toBe(2);
    expect(dialect.err).toContain("unknown dialect `oracle`; use one of `postgres`");
    expect(dialect.err).toContain("use one of `postgres`, `mysql`, `sqlite`");
    // MariaDB and SQLite: test/bindings-database-dialects.test.ts.
    const sqlite = await run(["bindings", "init", "--database-url", "x", "--dialect", "sqlite"]);
    expect(sqlite.code).toBe(2);
    expect(sqlite.err).toContain("a SQLite database is named `sqlite:<path>`");
    const down = await run([
      "bindings",
      "init",
      "--database-url",
      "postgres://postgres@127.0.0.1:9/x",
    ]);
    expect(down.code).toBe(2);
    expect(down.err).toContain("error: cannot connect to the database");
    expect((await run(["bindings", "frobnicate"])).code).toBe(2);
  });
});
