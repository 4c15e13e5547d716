/**
 * Data bindings against MariaDB and SQLite (issue 17), as test/bindings-database.test.ts does
 * on PostgreSQL: `bindings init` drafts bindings from `test/fixtures/bindings` in the engine's
 * types (foreign keys, a nullable one, composite keys, booleans, a view), the draft passes
 * `bindings check`, and the local SQL of the matching dialect answers every question on the
 * engine as the reference evaluator does over the same rows. Each database-found mistake is
 * reported at its line; the checks change nothing. MariaDB runs on the server MARIADB_URL
 * names, in a database of this file's own (skipped without the variable,
 * test/support/mariadb.ts); SQLite in a temp file.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import { draftBindings } from "../src/bindings/draft.js";
import { tableName } from "../src/bindings/query.js";
import type { DataBindings } from "../src/bindings/types.js";
import { checkBindingsWithDatabase } from "../src/bindings/verify.js";
import { main } from "../src/cli/main.js";
import type { GroundFact } from "../src/core/value.js";
import { dialectOfUrl, openDatabase } from "../src/database/open.js";
import type { DatabaseSession } from "../src/database/types.js";
import { mysqlFamily, mysqlIdentifier } from "../src/dialects/mysql/catalog.js";
import { DEFAULT_DIALECT, DIALECT_NAMES, DIALECTS } from "../src/dialects/registry.js";
import { sqliteFamily, sqliteIdentifier, sqlitePath } from "../src/dialects/sqlite/catalog.js";
import { authorize, list } from "../src/evaluate/index.js";
import type { Diagnostic } from "../src/source/diagnostic.js";
import { positionOf } from "../src/source/source.js";
import { checked } from "./local-support.js";
import { MARIADB, type MariadbServer, mariadbUrl } from "./support/mariadb.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "bindings");
const POLICY_PATH = join(FIXTURES, "policy.polar");
const program = checked(readFileSync(POLICY_PATH, "utf8"));
/** The policy plus a rule that reads `is_public` with a Boolean, so such a binding is read. */
const readsBoolean = checked(
  `${readFileSync(POLICY_PATH, "utf8")}\nhas_permission(_: User, "push", r: Repository) if is_public(r, true);\n`,
);

interface Engine {
  readonly name: "mariadb" | "sqlite";
  readonly dialect: "mysql" | "sqlite";
  /** The connection URL `--database-url` takes. */
  readonly url: string;
  /** Rows as arrays of values, over a connection of the test's own. */
  rows(sql: string): Promise<unknown[][]>;
  /** Runs statements that write (the sessions cannot). */
  exec(sql: string): Promise<void>;
  /** An id column as text. */
  text(column: string): string;
  /** What the database holds, to compare before and after a check. */
  fingerprint(): Promise<string>;
  session(): DatabaseSession;
  close(): Promise<void>;
}

const TABLES = [
  "organizations",
  "users",
  "repositories",
  "issues",
  "org_memberships",
  "repository_maintainers",
  "subscriptions",
  "audit",
];

async function mariadbEngine(server: MariadbServer): Promise<Engine> {
  const admin = await mysql.createConnection({ ...server, multipleStatements: true });
  const name = `b17_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(`CREATE DATABASE ${name}; USE ${name}`);
  await admin.query(readFileSync(join(FIXTURES, "schema-mysql.sql"), "utf8"));
  // A function that writes: a binding query calling it must change nothing.
  await admin.query(`CREATE TABLE audit (n int);
    CREATE FUNCTION bump() RETURNS int MODIFIES SQL DATA BEGIN INSERT INTO audit VALUES (1); RETURN 1; END`);
  const url = mariadbUrl(server, name);
  const session = await openDatabase(url, { dialect: "mysql" });
  const rows = async (sql: string) =>
    (await admin.query({ sql, rowsAsArray: true }))[0] as unknown[][];
  return {
    name: "mariadb",
    dialect: "mysql",
    url,
    rows,
    async exec(sql) {
      await admin.query(sql);
    },
    text: (column) => `CAST(${column} AS CHAR)`,
    async fingerprint() {
      const sums = await rows(`CHECKSUM TABLE ${TABLES.join(", ")} EXTENDED`);
      const counts = await rows(TABLES.map((t) => `SELECT count(*) FROM ${t}`).join(" UNION ALL "));
      return JSON.stringify([sums, counts]);
    },
    session: () => session,
    async close() {
      await session.close();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    },
  };
}

async function sqliteEngine(): Promise<Engine> {
  const dir = await mkdtemp(join(tmpdir(), "polar-b17-"));
  const file = join(dir, "app.db");
  const writer = new Database(file);
  writer.exec(readFileSync(join(FIXTURES, "schema-sqlite.sql"), "utf8"));
  writer.exec("CREATE TABLE audit (n integer)");
  writer.close();
  const reader = new Database(file, { readonly: true });
  const url = `sqlite:${file}`;
  const session = await openDatabase(url, { dialect: "sqlite" });
  return {
    name: "sqlite",
    dialect: "sqlite",
    url,
    async rows(sql) {
      return reader.prepare(sql).raw().all() as unknown[][];
    },
    async exec(sql) {
      const writer = new Database(file);
      writer.exec(sql);
      writer.close();
    },
    text: (column) => `CAST(${column} AS TEXT)`,
    async fingerprint() {
      return createHash("sha256").update(readFileSync(file)).digest("hex");
    },
    session: () => session,
    async close() {
      await session.close();
      reader.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const engines = new Map<string, Engine>();
beforeAll(async () => {
  engines.set("sqlite", await sqliteEngine());
  if (MARIADB) engines.set("mariadb", await mariadbEngine(MARIADB));
});
afterAll(async () => {
  for (const engine of engines.values()) await engine.close();
});

/** The engine; MariaDB's tests are marked skipped without MARIADB_URL. */
function engineFor(name: string, t: { skip(note?: string): void }): Engine {
  if (name === "mariadb" && !MARIADB) t.skip("MARIADB_URL is not set");
  const engine = engines.get(name);
  if (!engine) throw new Error(`the ${name} engine did not open`);
  return engine;
}

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

describe.each(["mariadb", "sqlite"])("%s", (name) => {
  it("reads the catalog: keys, nullable foreign keys, booleans and the view", async (t) => {
    const e = engineFor(name, t);
    const catalog = await e.session().catalog();
    const table = (n: string) => catalog.tables.find((x) => x.name === n)!;
    expect(catalog.tables.map((x) => x.name)).toEqual(
      [...TABLES.slice(0, -1), "audit", "issue_subscribers"].sort(),
    );
    const issues = table("issues");
    expect(issues.primaryKey).toEqual(["id"]);
    expect(issues.columns.find((c) => c.name === "assignee_id")!.nullable).toBe(true);
    expect(issues.columns.find((c) => c.name === "creator_id")!.nullable).toBe(false);
    expect(e.session().family(issues.columns.find((c) => c.name === "locked")!.type)).toBe(
      "boolean",
    );
    expect(
      issues.foreignKeys
        .map((k) => `${k.columns}->${k.references.name}(${k.referencedColumns})`)
        .sort(),
    ).toEqual(["assignee_id->users(id)", "creator_id->users(id)", "repo_id->repositories(id)"]);
    expect(table("org_memberships").primaryKey).toEqual(["org_id", "user_id"]);
    expect(table("users").uniqueKeys).toEqual([["email"]]);
    expect(table("issue_subscribers").kind).toBe("view");
    expect(table("repositories").kind).toBe("table");
    expect(await e.session().table(["nothere"])).toBeNull();
  });

  it("describes a query's columns without running it, repeated names and views included", async (t) => {
    const e = engineFor(name, t);
    const session = e.session();
    const join = await session.describe(
      "SELECT i.id, u.id FROM issues AS i JOIN users AS u ON u.id = i.creator_id",
    );
    expect(join).toEqual({
      kind: "columns",
      columns:
        e.name === "mariadb"
          ? [
              { name: "id", type: "int(11)" },
              { name: "id", type: "varchar(64)" },
            ]
          : [
              { name: "id", type: "INTEGER" },
              { name: "id", type: "TEXT" },
            ],
    });
    const marks = await session.describe("SELECT id FROM users WHERE email <> 'a?b'");
    expect(marks.kind === "columns" && marks.columns.map((c) => c.name)).toEqual(["id"]);
    const view = await session.describe("SELECT issue_id, user_id FROM issue_subscribers");
    expect(view.kind === "columns" && view.columns.map((c) => session.family(c.type))).toEqual([
      "integer",
      "text",
    ]);
    const flags = await session.describe("SELECT locked, is_public FROM issues, repositories");
    expect(flags.kind === "columns" && flags.columns.map((c) => session.family(c.type))).toEqual([
      "boolean",
      "boolean",
    ]);
    const yaml = `facts:
  "has_relation(Issue:_, creator, User:_)":
    query: SELECT i.id, u.id FROM issues AS i JOIN users AS u ON u.id = i.creator_id
sql_types:
  Issue: integer
`;
    const result = await checkBindingsWithDatabase(program, yaml, session, { syntax: e.dialect });
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("init drafts bindings that check clean against the same database", async (t) => {
    const e = engineFor(name, t);
    const yaml = await draft(e);
    expect(yaml).toContain(`from schema`);
    expect(yaml).toContain(`(${e.dialect}).`);
    expect(yaml).toContain('"has_relation(Issue:_, assignee, User:_)":');
    expect(yaml).toContain(
      'query: "SELECT id, assignee_id FROM issues WHERE assignee_id IS NOT NULL"',
    );
    expect(yaml).toContain('"has_role(User:_, String:_, Organization:_)":');
    expect(yaml).toContain('"has_role(User:_, maintainer, Repository:_)":');
    expect(yaml).toContain('"has_relation(Issue:_, subscriber, User:_)":'); // from the view
    expect(yaml).toContain('query: "SELECT id FROM repositories WHERE is_public"');
    expect(yaml).toContain('"is_locked(Issue:_)":');
    expect(yaml).toContain('  # "is_archived(Repository:_)":'); // not read by the policy
    expect(yaml).toContain('  "org_memberships": ["org_id","user_id"]');
    expect(yaml).toMatch(/ {2}"Repository": "(int\(11\)|int|integer)"/);
    const result = await checkBindingsWithDatabase(program, yaml, e.session(), {
      fileName: "b.yaml",
      syntax: e.dialect,
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("the drafted bindings answer every question on the engine as the reference evaluator does", async (t) => {
    const e = engineFor(name, t);
    const yaml = await draft(e);
    const bindings = (
      await checkBindingsWithDatabase(program, yaml, e.session(), { syntax: e.dialect })
    ).bindings!;
    const facts = await factsOf(e, bindings);
    const users = ["alice", "bob", "carol", "dave", "root", "nobody"];
    const actions = ["read", "push", "close", "comment"];
    const resources = [
      ...["1", "2", "3"].map((id) => ({ type: "Repository", id })),
      ...["10", "11", "12", "13"].map((id) => ({ type: "Issue", id })),
      { type: "Organization", id: "acme" },
    ];
    const options = { dialect: e.dialect };
    let allowedSomewhere = 0;
    for (const user of users) {
      const actor = { type: "User", id: user };
      for (const action of actions) {
        for (const resource of resources) {
          const { sql } = authorizeQuery(
            program,
            {
              query: {
                actor_type: "User",
                actor_id: user,
                action,
                resource_type: resource.type,
                resource_id: resource.id,
              },
              data_bindings: yaml,
            },
            options,
          );
          const [[allowed]] = (await e.rows(sql)) as [[unknown]];
          const expected = authorize(program, facts, actor, action, resource);
          expect(
            Boolean(Number(allowed)),
            `${user} ${action} ${resource.type}:${resource.id}`,
          ).toBe(expected);
          if (expected) allowedSomewhere++;
        }
        for (const [type, table] of [
          ["Repository", "repositories"],
          ["Issue", "issues"],
        ] as const) {
          const { sql } = listQuery(
            program,
            {
              query: { actor_type: "User", actor_id: user, action, resource_type: type },
              column: `${table}.id`,
              data_bindings: yaml,
            },
            options,
          );
          const rows = await e.rows(`SELECT ${e.text("id")} FROM ${table} WHERE ${sql}`);
          const all = (await e.rows(`SELECT ${e.text("id")} FROM ${table}`)).map((row) => row[0]);
          const listed = list(program, facts, actor, action, type);
          const expected = listed.includes("*") ? all : listed;
          expect(rows.map((row) => row[0]).sort(), `list ${user} ${action} ${type}`).toEqual(
            [...expected].sort(),
          );
        }
      }
    }
    expect(allowedSomewhere).toBeGreaterThan(20);
    expect(allowedSomewhere).toBeLessThan(users.length * actions.length * resources.length);
  });

  it("reports what the database finds at its line", async (t) => {
    const e = engineFor(name, t);
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
  "has_relation(Issue:_, assignee, User:_)":
    query: SELECT id, FROM issues
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
      syntax: e.dialect,
    });
    expect(result.ok).toBe(false);
    const found = located(yaml, result.diagnostics).filter((d) => !d.startsWith("W00"));
    expect(found).toEqual([
      "P708 3:12 SELECT * FROM issues",
      "P709 5:39 issuez",
      "P710 7:19 id",
      "P710 7:23 name",
      "P710 9:19 id",
      "P709 15:23 FROM",
      "P711 20:3 repositories",
      "P711 22:3 nothere",
      "P711 23:3 issues",
    ]);
    const messages = (code: string) =>
      result.diagnostics.filter((d) => d.code === code).map((d) => d.message);
    expect(messages("P709")[0]).toMatch(
      /^the database rejects the query of binding `has_relation\(Issue:_, String:creator, User:_\)`: (Table '\w+\.issuez' doesn't exist|no such table: issuez)$/,
    );
    expect(messages("P711")).toEqual([
      "key `(org_id)` of table `repositories` is not unique: 1 value occurs in more than one row",
      "table `nothere` of `keys` does not exist in the database",
      "table `issues` has no column `nope`",
    ]);
    expect(messages("P710")).toEqual([
      expect.stringMatching(
        /^column 1 of binding `is_public\(Repository:_, Boolean:_\)` is `(int|INTEGER)`, but `sql_types` gives `Repository` the type `text`$/,
      ),
      expect.stringMatching(
        /^column 2 of binding `is_public\(Repository:_, Boolean:_\)` is `(text|TEXT)`, not a type for `Boolean` values$/,
      ),
      expect.stringMatching(/^column 1 of binding `has_relation\(Repository:_, /),
    ]);
    // Unique in today's data, but no constraint says so.
    expect(
      located(
        yaml,
        result.diagnostics.filter((d) => d.code === "W007"),
      ),
    ).toEqual(["W007 21:3 org_memberships"]);
  });

  it("computed columns: warned where the engine cannot say their type, refused where it can", async (t) => {
    const e = engineFor(name, t);
    const yaml = `facts:
  "flag(Repository:_, Boolean:_)":
    query: SELECT id, is_public AND archived FROM repositories
  "shown(Repository:_)":
    query: SELECT id + 0 FROM repositories
  "named(Repository:_, Boolean:_)":
    query: SELECT id, name FROM repositories
sql_types:
  Repository: integer
`;
    const result = await checkBindingsWithDatabase(null, yaml, e.session(), { syntax: e.dialect });
    const found = result.diagnostics.map((d) => `${d.code} ${d.message}`);
    if (e.name === "mariadb") {
      // MySQL computes booleans as integers; `id + 0` is a bigint, an integer.
      expect(found).toEqual([
        "W008 column 2 of binding `flag(Repository:_, Boolean:_)` is `int`, not a type for `Boolean` values; comparisons with `Boolean` values may fail",
        "P710 column 2 of binding `named(Repository:_, Boolean:_)` is `text`, not a type for `Boolean` values",
      ]);
    } else {
      expect(found).toEqual([
        "W008 column 2 of binding `flag(Repository:_, Boolean:_)` has no declared type (SQLite types computed columns by their values); comparisons with `Boolean` values may fail",
        "W008 column 1 of binding `shown(Repository:_)` has no declared type (SQLite types computed columns by their values); comparisons with `Repository` values may fail",
        "P710 column 2 of binding `named(Repository:_, Boolean:_)` is `TEXT`, not a type for `Boolean` values",
      ]);
    }
  });

  it("reads only: writing queries are refused and the database is unchanged", async (t) => {
    const e = engineFor(name, t);
    const before = await e.fingerprint();
    const writes =
      e.name === "mariadb"
        ? ["SELECT bump() AS id", "SELECT id FROM users WHERE bump() = 1"]
        : // A WITH clause gets past the static check that a query is SELECT-like.
          [
            "WITH x AS (SELECT 1) DELETE FROM users RETURNING id",
            "WITH x AS (SELECT 1) INSERT INTO audit SELECT 1 RETURNING n",
          ];
    const yaml = `facts:
  "is_admin(User:_)":
    query: ${writes[0]}
  "has_relation(Issue:_, creator, User:_)":
    query: SELECT id, creator_id FROM issues WHERE 1 = 1
  "is_public(Repository:_)":
    query: ${writes[1]}
keys:
  org_memberships: user_id
`;
    const result = await checkBindingsWithDatabase(program, yaml, e.session(), {
      syntax: e.dialect,
    });
    // MariaDB runs the function, and the read-only transaction refuses its INSERT; SQLite
    // sees from the prepared statement that it writes.
    const refusal =
      e.name === "mariadb"
        ? "Cannot execute statement in a READ ONLY transaction"
        : "the statement writes to the database";
    expect(result.diagnostics.filter((d) => d.code === "P709").map((d) => d.message)).toEqual([
      `the database rejects the query of binding \`is_admin(User:_)\`: ${refusal}`,
      `the database rejects the query of binding \`is_public(Repository:_)\`: ${refusal}`,
    ]);
    expect(await e.fingerprint()).toBe(before);
    expect(await e.rows("SELECT count(*) FROM audit")).toEqual([[0]]);
    // The session's connection itself cannot write.
    const session = e.session();
    const described = await session.describe(
      e.name === "mariadb" ? "SELECT bump()" : "UPDATE users SET email = 'x' RETURNING id",
    );
    expect(await e.fingerprint()).toBe(before);
    expect(described).toEqual({ kind: "error", message: refusal, offset: null });
  });
});

describe.each(["mariadb", "sqlite"])("%s: names in other cases", (name) => {
  it("keys name tables and columns as the engine compares them, whatever their case", async (t) => {
    const e = engineFor(name, t);
    await e.exec(
      "CREATE TABLE Teams (TeamId int NOT NULL PRIMARY KEY, OrgId varchar(64) NOT NULL); INSERT INTO Teams VALUES (1, 'acme'), (2, 'acme')",
    );
    try {
      const check = async (keys: string) => {
        const yaml = `facts:
  "has_relation(Team:_, organization, Organization:_)":
    query: SELECT TeamId, OrgId FROM Teams
sql_types:
  Team: int
keys:
  ${keys}
`;
        const result = await checkBindingsWithDatabase(null, yaml, e.session(), {
          syntax: e.dialect,
        });
        return result.diagnostics.map((d) => `${d.code} ${d.message}`);
      };
      // Unquoted, both are read as `teams` and `teamid`: the primary key.
      expect(await check("Teams: TeamId")).toEqual([]);
      expect(await check("TEAMS: [orgid]")).toEqual([
        "P711 key `(OrgId)` of table `teams` is not unique: 1 value occurs in more than one row",
      ]);
      expect(await check("Teamz: TeamId")).toContain(
        "P711 table `teamz` of `keys` does not exist in the database",
      );
    } finally {
      await e.exec("DROP TABLE Teams");
    }
  });
});

describe("dialect details", () => {
  it("quoted identifiers read back as the same name in the dialect's bindings syntax", () => {
    const name = fc
      .string({ minLength: 1, maxLength: 12, unit: "grapheme" })
      .filter((n) => !n.includes("\u0000"));
    fc.assert(
      fc.property(name, (n) => {
        expect(tableName(mysqlIdentifier(n), "mysql")).toBe(JSON.stringify([n]));
        expect(tableName(sqliteIdentifier(n), "sqlite")).toBe(JSON.stringify([n]));
      }),
    );
    expect(mysqlIdentifier("order")).toBe("`order`");
    expect(sqliteIdentifier("Group")).toBe('"Group"');
    expect(mysqlIdentifier("org_id")).toBe("org_id");
  });

  it("each dialect's example catalog URL names it; a URL no dialect claims is the default's", () => {
    for (const name of DIALECT_NAMES) {
      expect(dialectOfUrl(DIALECTS[name].catalog.urlExample), name).toBe(name);
    }
    expect(dialectOfUrl("oracle://db/app")).toBe(DEFAULT_DIALECT);
  });

  it("maps MySQL types", () => {
    expect(
      ["tinyint(1)", "boolean", "BOOL", "tinyint", "int(11) unsigned", "bigint", "varchar(64)"].map(
        mysqlFamily,
      ),
    ).toEqual(["boolean", "boolean", "boolean", "integer", "integer", "integer", "text"]);
    expect(
      ["char(36)", "text", "uuid", "decimal(10,2)", "datetime", "json"].map(mysqlFamily),
    ).toEqual(["text", "text", "uuid", "decimal", "other", "other"]);
  });

  it("maps SQLite declared types by affinity", () => {
    expect(
      [
        "INTEGER",
        "boolean",
        "bigint",
        "VARCHAR(64)",
        "TEXT",
        "uuid",
        "NUMERIC(10,2)",
        "REAL",
        "any",
      ].map(sqliteFamily),
    ).toEqual([
      "integer",
      "boolean",
      "integer",
      "text",
      "text",
      "uuid",
      "decimal",
      "other",
      "other",
    ]);
  });

  it("a URL's scheme names its dialect", () => {
    expect(
      [
        "mysql://root@db:3306/app",
        "MariaDB://root@db/app",
        "sqlite:app.db",
        "postgres://app@db/app",
        "postgresql://db/app",
      ].map(dialectOfUrl),
    ).toEqual(["mysql", "mysql", "sqlite", "postgres", "postgres"]);
  });

  it("reads a SQLite URL as sqlite:<path> only", () => {
    expect(sqlitePath("sqlite:app.db")).toBe("app.db");
    expect(sqlitePath("sqlite:/var/lib/app.db")).toBe("/var/lib/app.db");
    expect(() => sqlitePath("/var/lib/app.db")).toThrow(
      "a SQLite database is named `sqlite:<path>`",
    );
  });
});

describe("the bindings command on MariaDB and SQLite", () => {
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

  it.for(["mariadb", "sqlite"])(
    "%s: init prints a draft that check accepts (exit 0); a mistake exits 1 at its line",
    async (name, t) => {
      const e = engineFor(name, t);
      const connection = ["--database-url", e.url, "--dialect", e.dialect];
      const init = await run(["bindings", "init", ...connection, "--policy", POLICY_PATH]);
      expect(init.code).toBe(0);
      const dir = await mkdtemp(join(tmpdir(), "polar-b17-init-"));
      const file = join(dir, "bindings.yaml");
      await writeFile(file, init.out);
      const args = ["bindings", "check", "--policy", POLICY_PATH, "--bindings", file];
      expect(await run([...args, ...connection])).toEqual({
        code: 0,
        out: `ok: \`${file}\` checked against the database\n`,
        err: "",
      });
      // Without --dialect, the URL's scheme names the engine.
      expect((await run([...args, "--database-url", e.url])).code).toBe(0);
      await writeFile(
        file,
        "facts:\n  is_public(Repository:_):\n    query: SELECT id FROM nowhere\n",
      );
      const json = await run([...args, ...connection, "--json"]);
      expect(json.code).toBe(1);
      const diagnostics = JSON.parse(json.out) as { code: string; line: number; column: number }[];
      expect(diagnostics.find((d) => d.code === "P709")).toMatchObject({ line: 3, column: 27 });
      await rm(dir, { recursive: true, force: true });
    },
  );

  it("MariaDB: init --schema writes qualified names, which check accepts with no default database", async (t) => {
    const e = engineFor("mariadb", t);
    const url = new URL(e.url);
    const schema = url.pathname.slice(1);
    url.pathname = "";
    const connection = ["--database-url", url.toString(), "--dialect", "mysql"];
    const init = await run([
      "bindings",
      "init",
      ...connection,
      "--schema",
      schema,
      "--policy",
      POLICY_PATH,
    ]);
    expect(init.code).toBe(0);
    expect(init.out).toContain(`FROM ${schema}.issues WHERE assignee_id IS NOT NULL`);
    expect(init.out).toContain(`  "${schema}.org_memberships": ["org_id","user_id"]`);
    const dir = await mkdtemp(join(tmpdir(), "polar-b17-schema-"));
    const file = join(dir, "bindings.yaml");
    await writeFile(file, init.out);
    const args = ["bindings", "check", "--policy", POLICY_PATH, "--bindings", file];
    expect(await run([...args, ...connection, "--json"])).toEqual({
      code: 0,
      out: "[]\n",
      err: "",
    });
    // Without --schema there is no database to read.
    const bare = await run(["bindings", "init", ...connection]);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain("the connection has no current database; name one in the URL");
    await rm(dir, { recursive: true, force: true });
  });

  it("the bindings are read in the dialect's syntax: MySQL backticks and # comments", async (t) => {
    const e = engineFor("mariadb", t);
    const dir = await mkdtemp(join(tmpdir(), "polar-b17-syntax-"));
    const file = join(dir, "bindings.yaml");
    await writeFile(
      file,
      "facts:\n  is_public(Repository:_):\n    query: SELECT `id` FROM repositories WHERE is_public # public ones\n",
    );
    const args = ["bindings", "check", "--bindings", file, "--database-url", e.url];
    expect((await run([...args, "--dialect", "mysql"])).code).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it.for(["mariadb", "sqlite"])(
    "%s: the example's hand-written bindings check clean on its schema",
    async (name, t) => {
      engineFor(name, t);
      const example = join(
        import.meta.dirname,
        "..",
        "examples",
        name === "mariadb" ? "mysql" : "sqlite",
      );
      const schema = readFileSync(join(example, "schema.sql"), "utf8");
      const dir = await mkdtemp(join(tmpdir(), "polar-b17-example-"));
      let url: string;
      let drop = async () => {};
      if (name === "sqlite") {
        const file = join(dir, "example.db");
        const db = new Database(file);
        db.exec(schema);
        db.close();
        url = `sqlite:${file}`;
      } else {
        const database = `b17x_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
        const server = MARIADB!;
        const admin = await mysql.createConnection({ ...server, multipleStatements: true });
        await admin.query(`CREATE DATABASE ${database}; USE ${database}; ${schema}`);
        url = mariadbUrl(server, database);
        drop = async () => {
          await admin.query(`DROP DATABASE ${database}`);
          await admin.end();
        };
      }
      try {
        const dialect = name === "mariadb" ? "mysql" : "sqlite";
        const check = await run([
          "bindings",
          "check",
          "--policy",
          join(example, "policy.polar"),
          "--bindings",
          join(example, "bindings.yaml"),
          "--database-url",
          url,
          "--dialect",
          dialect,
        ]);
        expect(check).toMatchObject({ code: 0, err: "" });
        expect(check.out).toContain("checked against the database");
      } finally {
        await drop();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it("exits 2 on a malformed URL, a missing SQLite file and an unreachable server", async () => {
    const path = await run([
      "bindings",
      "init",
      "--database-url",
      "/tmp/app.db",
      "--dialect",
      "sqlite",
    ]);
    expect(path.code).toBe(2);
    expect(path.err).toContain(
      "error: cannot connect to the database: a SQLite database is named `sqlite:<path>`",
    );
    const missing = await run([
      "bindings",
      "init",
      "--database-url",
      "sqlite:/nonexistent/polar-b17.db",
      "--dialect",
      "sqlite",
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("error: cannot connect to the database");
    const down = await run([
      "bindings",
      "init",
      "--database-url",
      "mysql://root@127.0.0.1:9/x",
      "--dialect",
      "mysql",
    ]);
    expect(down.code).toBe(2);
    expect(down.err).toContain("error: cannot connect to the database");
    const scheme = await run([
      "bindings",
      "init",
      "--database-url",
      "postgres://root@127.0.0.1:3306/x",
      "--dialect",
      "mysql",
    ]);
    expect(scheme.code).toBe(2);
    expect(scheme.err).toContain("a MySQL URL starts with `mysql://`");
  });
});

describe("MariaDB statement timeout", () => {
  it("a statement that runs past statementTimeout is interrupted", async (t) => {
    const e = engineFor("mariadb", t);
    // 625 rows at 10 ms each: far past the 300 ms allowed.
    await e.exec(
      "CREATE VIEW slow AS SELECT a.id FROM users a, users b, users c, users d WHERE SLEEP(0.01) = 0",
    );
    const session = await openDatabase(e.url, { dialect: "mysql", statementTimeout: 300 });
    try {
      const slow = await session.table(["slow"]);
      await expect(session.duplicateKeys(slow!, ["id"])).rejects.toThrow(/max_statement_time/);
    } finally {
      await session.close();
      await e.exec("DROP VIEW slow");
    }
  });
});
