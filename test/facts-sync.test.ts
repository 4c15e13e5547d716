/**
 * `polar-sql facts sync` round trips on PostgreSQL: the application's tables in one schema, the
 * fact store in another (written directly with --database-url, or through a server with
 * --url). Needs DATABASE_URL; skipped with a notice otherwise.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { runFactsCommand } from "../src/cli/facts-command.js";
import { FACTS_SYNC_HELP, runFactsSync } from "../src/cli/facts-sync-command.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import type { GroundFact } from "../src/core/value.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { parseSyncConfig, SyncConfigError } from "../src/sync/config.js";
import { applySync, batches } from "../src/sync/sync.js";
import type { FactTarget } from "../src/sync/target.js";
import { serverSchema } from "./support/central-services.js";

// Skipped without DATABASE_URL, with one notice for the run (test/support/global-setup.ts).
const databaseUrl = process.env.DATABASE_URL;

const POLICY = `actor User {}
resource Company {
  roles = ["admin", "member"];
  permissions = ["manage", "read"];
  "member" if "admin";
  "manage" if "admin";
  "read" if "member";
}
resource Team { roles = ["lead"]; relations = { parent_team: Team }; "lead" if "lead" on "parent_team"; }
resource Issue { permissions = ["reopen"]; }
has_permission(_: User, "reopen", issue: Issue) if is_closed(issue, true);
`;

const SYNC = `version: 1
source: postgres
facts:
  has_role(User:_, admin, Company:_):
    db: app-db
    query: |-
      SELECT user_id, company_id FROM users WHERE is_admin
  has_relation(Team:_, String:parent_team, Team:_):
    db: app-db
    query: SELECT team_id, parent_team_id FROM teams WHERE parent_team_id IS NOT NULL;
  is_closed(Issue:_, Boolean:_):
    db: app-db
    query: SELECT id, closed FROM issues

dbs:
  app-db:
    connection_string: \${SYNC_SOURCE_URL}
`;

const APP_SCHEMA = `
  CREATE TABLE users (user_id integer, company_id bigint, is_admin boolean);
  CREATE TABLE teams (team_id integer, parent_team_id integer);
  CREATE TABLE issues (id uuid, closed boolean);
  INSERT INTO users VALUES (1, 10, true), (2, 10, false), (3, 11, true);
  INSERT INTO teams VALUES (100, NULL), (101, 100), (102, 101);
  INSERT INTO issues VALUES ('6b8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a01', true),
                            ('6b8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a02', false);
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!databaseUrl)("facts sync on PostgreSQL", () => {
  let app: { url: string; drop(): Promise<void> };
  let store: { url: string; drop(): Promise<void> };
  let client: pg.Client;
  let service: PolarService;
  let server: ServerHandle;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    app = await serverSchema(databaseUrl!, "sync_app");
    store = await serverSchema(databaseUrl!, "sync_store");
    client = new pg.Client({ connectionString: app.url });
    await client.connect();
    await client.query(APP_SCHEMA);
    service = await createService({ databaseUrl: store.url });
    await service.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
    server = await startServer({
      app: createApp({ service, apiKeys: ["sync-key"], logger: silentLogger }),
      port: 0,
      host: "127.0.0.1",
    });
    dir = await mkdtemp(join(tmpdir(), "polar-sql-sync-"));
    await writeFile(join(dir, "sync.yaml"), SYNC);
    env = { SYNC_SOURCE_URL: app.url };
  });

  afterAll(async () => {
    await server?.close();
    await service?.close();
    await client?.end();
    await app?.drop();
    await store?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function sync(args: string[], options: { tty?: boolean; file?: string } = {}) {
    const run: Run = { code: 0, stdout: "", stderr: "" };
    const io: CliIo = {
      stdout: (t) => (run.stdout += t),
      stderr: (t) => (run.stderr += t),
      isTTY: options.tty ?? false,
    };
    const config = join(dir, options.file ?? "sync.yaml");
    run.code = await runFactsSync(["--config", config, ...args], io, { env });
    return run;
  }
  const direct = () => ["--database-url", store.url];
  const viaServer = () => ["--url", server.url, "--api-key", "sync-key"];

  async function stored(predicate: string) {
    const reply = await service.getFacts(new Map([["predicate", predicate]]));
    return (reply.body as { args: { type: string; id: string }[] }[])
      .map((fact) => fact.args.map((a) => `${a.type}:${a.id}`).join(" "))
      .sort();
  }

  it("--dry-run counts per signature and writes nothing", async () => {
    const run = await sync([...direct(), "--dry-run"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "has_role(User:_, String:admin, Company:_): 2 to insert, 0 to delete, 0 unchanged",
        "has_relation(Team:_, String:parent_team, Team:_): 2 to insert, 0 to delete, 0 unchanged",
        "is_closed(Issue:_, Boolean:_): 2 to insert, 0 to delete, 0 unchanged",
        "dry run: 6 to insert, 0 to delete, 0 unchanged; nothing written",
        "",
      ].join("\n"),
    );
    expect(await stored("has_role")).toEqual([]);
  });

  it("inserts what is missing, leaves other facts alone, and a second run changes nothing", async () => {
    // A fact outside every signature (a member, not an admin) must survive the sync.
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: "9" },
              { type: "String", id: "member" },
              { type: "Company", id: "10" },
            ],
          },
        ],
      },
    ]);
    const first = await sync(direct(), { tty: true });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("\r"); // progress on a terminal
    expect(first.stdout).toContain("synced: 6 inserted, 0 deleted, 0 unchanged\n");
    expect(await stored("has_role")).toEqual([
      "User:1 String:admin Company:10",
      "User:3 String:admin Company:11",
      "User:9 String:member Company:10",
    ]);
    expect(await stored("is_closed")).toEqual([
      "Issue:6b8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a01 Boolean:true",
      "Issue:6b8f9f52-3c2e-4d4e-9a59-0c7f0e0f1a02 Boolean:false",
    ]);
    const allowed = await service.authorize({
      actor_type: "User",
      actor_id: "1",
      action: "manage",
      resource_type: "Company",
      resource_id: "10",
    });
    expect(allowed.body).toEqual({ allowed: true });
    const second = await sync(direct());
    expect(second.stdout).toContain("synced: 0 inserted, 0 deleted, 6 unchanged\n");
  });

  it("deletes what is stale and inserts what is new, through a server too", async () => {
    await client.query("UPDATE users SET is_admin = false WHERE user_id = 3");
    await client.query("INSERT INTO users VALUES (4, 12, true)");
    await client.query("UPDATE issues SET closed = true");
    const run = await sync(viaServer());
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "has_role(User:_, String:admin, Company:_): 1 inserted, 1 deleted, 1 unchanged",
        "has_relation(Team:_, String:parent_team, Team:_): 0 inserted, 0 deleted, 2 unchanged",
        "is_closed(Issue:_, Boolean:_): 1 inserted, 1 deleted, 1 unchanged",
        "synced: 2 inserted, 2 deleted, 4 unchanged",
        "",
      ].join("\n"),
    );
    expect(await stored("has_role")).toEqual([
      "User:1 String:admin Company:10",
      "User:4 String:admin Company:12",
      "User:9 String:member Company:10",
    ]);
    expect((await sync(viaServer())).stdout).toContain(
      "synced: 0 inserted, 0 deleted, 6 unchanged",
    );
  });

  it("--only syncs one signature, in any spelling of it", async () => {
    await client.query("INSERT INTO teams VALUES (103, 100)");
    await client.query("INSERT INTO users VALUES (5, 10, true)");
    const run = await sync([...direct(), "--only", "has_relation(Team:_, parent_team, Team:_)"]);
    expect(run.stdout).toBe(
      [
        "has_relation(Team:_, String:parent_team, Team:_): 1 inserted, 0 deleted, 2 unchanged",
        "synced: 1 inserted, 0 deleted, 2 unchanged",
        "",
      ].join("\n"),
    );
    expect(await stored("has_role")).not.toContain("User:5 String:admin Company:10");
    const unknown = await sync([...direct(), "--only", "has_role(User:_, owner, Company:_)"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^error: `has_role\(User:_, owner, Company:_\)` is not a signature of .*sync\.yaml; it lists `has_role/,
    );
  });

  it("a query that fails, or yields a fact the store refuses, writes nothing and names the line", async () => {
    await writeFile(
      join(dir, "broken.yaml"),
      `facts:
  has_role(User:_, admin, Company:_):
    db: app-db
    query: SELECT user_id, company_id FROM users WHERE is_admin
  has_role(User:_, String:_, Company:_):
    db: app-db
    query: SELECT user_id, 'owner' FROM users
dbs:
  app-db:
    connection_string: $SYNC_SOURCE_URL
`,
    );
    await client.query("INSERT INTO users VALUES (6, 10, true)");
    const wrongColumns = await sync(direct(), { file: "broken.yaml" });
    expect(wrongColumns.code).toBe(1);
    expect(wrongColumns.stderr).toBe(
      `error: ${join(dir, "broken.yaml")}:5: the query of \`has_role(User:_, String:_, Company:_)\` returns 2 columns; its signature has 3 \`_\`\n`,
    );
    await writeFile(
      join(dir, "broken.yaml"),
      `facts:
  has_role(User:_, admin, Company:_):
    db: app-db
    query: SELECT user_id, company_id FROM users WHERE is_admin
  has_role(User:_, owner, Company:_):
    db: app-db
    query: SELECT user_id, nope FROM users
  is_open(Issue:_):
    db: app-db
    query: SELECT id FROM issues
dbs:
  app-db:
    connection_string: $SYNC_SOURCE_URL
`,
    );
    const failing = await sync(direct(), { file: "broken.yaml" });
    expect(failing.stderr).toMatch(
      /^error: .*broken\.yaml:5: the query of `has_role\(User:_, String:owner, Company:_\)` failed: column "nope" does not exist\n$/,
    );
    const refused = await sync([...direct(), "--only", "is_open(Issue:_)"], {
      file: "broken.yaml",
    });
    expect(refused.stderr).toMatch(
      /^error: .*broken\.yaml:8: the query of `is_open\(Issue:_\)` yields `is_open\(Issue\{"6b8f9f52-[0-9a-f-]+"\}\)`, which the store refuses: unknown predicate `is_open\/1`\n$/,
    );
    expect(await stored("has_role")).not.toContain("User:6 String:admin Company:10");
  });

  it("a NULL in a row is refused with its row number", async () => {
    await writeFile(
      join(dir, "nulls.yaml"),
      `facts:
  has_relation(Team:_, parent_team, Team:_):
    db: app-db
    query: SELECT team_id, parent_team_id FROM teams ORDER BY team_id
dbs:
  app-db:
    connection_string: $SYNC_SOURCE_URL
`,
    );
    const run = await sync(direct(), { file: "nulls.yaml" });
    expect(run.stderr).toMatch(/nulls\.yaml:2: row 1 of the query of .* has NULL in column 2/);
  });

  it("connection failures never print the connection string or its password", async () => {
    const parsed = new URL(app.url);
    parsed.password = "s3cr3t-pw";
    parsed.username = "no_such_user_x";
    await writeFile(
      join(dir, "badconn.yaml"),
      `facts:\n  has_role(User:_, admin, Company:_):\n    db: app-db\n    query: SELECT 1, 2\ndbs:\n  app-db:\n    connection_string: $BAD_URL\n`,
    );
    const run = await (async () => {
      const saved = env;
      env = { BAD_URL: parsed.toString() };
      try {
        return await sync(direct(), { file: "badconn.yaml" });
      } finally {
        env = saved;
      }
    })();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/badconn\.yaml:6: cannot connect to db `app-db`: /);
    expect(run.stderr).not.toContain("s3cr3t-pw");
    expect(run.stderr).not.toContain(parsed.toString());
  });
});

describe("the facts command", () => {
  const capture = () => {
    const out = { stdout: "", stderr: "" };
    const io: CliIo = {
      stdout: (t) => (out.stdout += t),
      stderr: (t) => (out.stderr += t),
      isTTY: false,
    };
    return { io, out };
  };
  it("is in the command table, with its help", async () => {
    const { io, out } = capture();
    expect(await main(["facts", "sync", "--help"], io)).toBe(0);
    expect(out.stdout).toBe(FACTS_SYNC_HELP);
    expect(FACTS_SYNC_HELP).toContain("--dry-run");
  });
  it("refuses wrong arguments with exit code 2", async () => {
    const cases: [string[], RegExp][] = [
      [["sync"], /no sync file given/],
      [["sync", "--config", "x.yaml"], /`--url <server>` or `--database-url <store>`/],
      [["sync", "--config", "x.yaml", "--url", "http://h"], /needs an API key/],
      [
        ["sync", "--config", "x.yaml", "--url", "http://h", "--database-url", "postgres://h"],
        /either/,
      ],
      [
        ["sync", "--config", "/nonexistent/x.yaml", "--database-url", "postgres://h"],
        /cannot read .*no such file/,
      ],
      [["push"], /unknown subcommand `facts push`/],
      [["sync", "--bogus"], /unknown option/i],
    ];
    for (const [args, message] of cases) {
      const { io, out } = capture();
      const [first, ...rest] = args;
      const code =
        first === "sync"
          ? await runFactsSync(rest, io, { env: {} })
          : await runFactsCommand(args, io);
      expect(code, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(message);
    }
  });
});

describe("applying a plan", () => {
  const fact = (i: number, width = 1): GroundFact => ({
    predicate: "f",
    args: Array.from({ length: width }, (_, j) => ({
      type: "User",
      id: `${i}-${j}-${"x".repeat(370)}`,
    })),
  });
  it("writes in batches bounded by count and by size, inserts before deletes", async () => {
    const calls: [number, number][] = [];
    const target: FactTarget = {
      program: async () => null,
      stored: async () => [],
      apply: async (inserts, deletes) => void calls.push([inserts.length, deletes.length]),
      close: async () => {},
    };
    const signature = parseSyncConfig(
      "facts:\n  f(User:_):\n    db: d\n    query: q\ndbs:\n  d:\n    connection_string: postgres://h/d\n",
      "s.yaml",
      {},
    ).facts[0]!;
    const progress: number[] = [];
    await applySync(
      [
        {
          signature,
          inserts: Array.from({ length: 4500 }, (_, i) => fact(i)),
          deletes: [fact(-1)],
          unchanged: 0,
        },
      ],
      target,
      (_, done) => progress.push(done),
    );
    expect(calls).toEqual([
      [2000, 0],
      [2000, 0],
      [500, 0],
      [0, 1],
    ]);
    expect(progress).toEqual([0, 2000, 4000, 4500, 4501]);
    const wide = Array.from({ length: 2000 }, (_, i) => fact(i, 8));
    const sizes = [...batches(wide)].map((b) => JSON.stringify(b).length);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(4.1 * 1024 * 1024);
  });
});

describe("the sync file", () => {
  const env = { DB: "postgres://u:pw@h/db" };
  const parse = (text: string) => parseSyncConfig(text, "sync.yaml", env);
  const refusal = (text: string) => {
    try {
      parse(text);
    } catch (error) {
      if (error instanceof SyncConfigError) return error.message;
      throw error;
    }
    throw new Error("accepted");
  };
  const db = "dbs:\n  d:\n    connection_string: $DB\n";

  it("reads the samples' format: bare and typed constants, $NAME and the braced form", () => {
    const config = parse(
      `facts:\n  has_role(User:_, Admin, Company:_):\n    db: d\n    query: |-\n      SELECT 1, 2;\n${db}`,
    );
    expect(config.facts).toEqual([
      {
        signature: "has_role(User:_, String:Admin, Company:_)",
        predicate: "has_role",
        slots: [
          { kind: "column", type: "User" },
          { kind: "constant", type: "String", value: "Admin" },
          { kind: "column", type: "Company" },
        ],
        db: "d",
        query: "SELECT 1, 2",
        where: "sync.yaml:2",
      },
    ]);
    expect(config.dbs.get("d")?.connectionString).toBe("postgres://u:pw@h/db");
    const braced = parse(
      `facts: {}\ndbs:\n  d:\n    connection_string: "\${DB}?sslmode=require"\n`,
    );
    expect(braced.dbs.get("d")?.connectionString).toBe("postgres://u:pw@h/db?sslmode=require");
  });

  it("names the file and line of every problem, and never the connection string", () => {
    expect(refusal(`facts:\n  has_role(User:_:\n    db: d\n    query: x\n${db}`)).toBe(
      "sync.yaml:2: invalid fact signature `has_role(User:_`",
    );
    expect(refusal(`facts:\n  f(User:_):\n    db: other\n    query: x\n${db}`)).toBe(
      "sync.yaml:2: `f(User:_)` names db `other`, which `dbs` does not list",
    );
    expect(refusal(`facts:\n  f(User:_):\n    db: d\n${db}`)).toBe(
      "sync.yaml:2: `f(User:_)` has no `query`",
    );
    expect(refusal(`facts:\n  f(User:_):\n    db: d\n    query: x\n    mode: y\n${db}`)).toBe(
      "sync.yaml:5: unknown key `mode` in `f(User:_)`; expected `db` and `query`",
    );
    expect(refusal(`facts: {}\ndbs:\n  d:\n    connection_string: $MISSING\n`)).toBe(
      "sync.yaml:4: environment variable `MISSING` (in the connection string of db `d`) is not set",
    );
    expect(refusal(`facts: {}\ndbs:\n  d:\n    connection_string:\n`)).toBe(
      "sync.yaml:3: db `d` has no `connection_string`",
    );
    const mysql = refusal(`facts: {}\ndbs:\n  d:\n    connection_string: mysql://u:pw@h/db\n`);
    expect(mysql).toBe(
      "sync.yaml:4: db `d`: only PostgreSQL connection strings (`postgres://…`) are supported",
    );
    expect(refusal(`source: mongodb\nfacts: {}\n${db}`)).toBe(
      "sync.yaml:1: `source` must be `postgres` (the only source supported)",
    );
    expect(refusal(`facts: {}\n${db}extra: 1\n`)).toMatch(/^sync\.yaml:5: unknown key `extra`/);
    expect(refusal(`facts:\n  - x\n${db}`)).toMatch(/^sync\.yaml:1: `facts` must map/);
    expect(refusal(`facts: [\n`)).toMatch(/^sync\.yaml:\d+: invalid YAML/);
  });
});
