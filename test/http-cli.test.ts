/**
 * The `sql` command (one local question compiled from flags or a body file, run on real
 * PostgreSQL) and the argument handling of `serve`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import type { CliIo } from "../src/cli/io.js";
import { runServeCommand, type ServeOptions } from "../src/cli/serve-command.js";
import { runSqlCommand } from "../src/cli/sql-command.js";
import type { ServerHandle } from "../src/http/server.js";
import { createService, type ServiceOptions } from "../src/service/service.js";
import { fakeService } from "./http-fake-service.js";
import { describeEngines } from "./support/databases.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const POLICY = "examples/reference/12-2-nested-relations.polar";
const BINDINGS = `facts:
  "has_role(User:_, String:_, Workspace:_)":
    query: SELECT user_id, role, workspace_id FROM workspace_members
  "has_relation(Project:_, String:workspace, Workspace:_)":
    query: SELECT id, workspace_id FROM projects
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets WHERE project_id IS NOT NULL
sql_types:
  User: integer
  Workspace: integer
  Project: integer
  Ticket: bigint
`;
const SCHEMA = `
  CREATE TABLE workspace_members (user_id integer, role text, workspace_id integer);
  CREATE TABLE projects (id integer PRIMARY KEY, workspace_id integer);
  CREATE TABLE tickets (id bigint PRIMARY KEY, project_id integer);
  INSERT INTO workspace_members VALUES (17, 'member', 1), (18, 'admin', 2);
  INSERT INTO projects VALUES (10, 1), (11, 2);
  INSERT INTO tickets VALUES (101, 10), (102, 11), (103, NULL);
`;

let dir: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "polar-sql-cli-"));
  await writeFile(file("bindings.yaml"), BINDINGS);
  await writeFile(
    file("bad.polar"),
    'actor User {}\nresource Doc { permissions = ["read"]; "read" if "nope"; }\n',
  );
  await writeFile(
    file("facts.json"),
    JSON.stringify([
      {
        predicate: "has_role",
        args: [
          { type: "User", id: "17" },
          { type: "String", id: "admin" },
          { type: "Workspace", id: "2" },
        ],
      },
    ]),
  );
  await writeFile(
    file("evaluate.json"),
    JSON.stringify({
      query: {
        predicate: ["allow", ["var_u", "var_a", "var_t"]],
        calls: [],
        constraints: {
          var_u: { type: "User", ids: ["17"] },
          var_a: { type: "String", ids: ["view"] },
          var_t: { type: "Ticket", ids: null },
        },
        context_facts: [],
      },
      mode: { mode: "select", query_vars_to_output_column_names: { var_t: "ticket_id" } },
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function captureIo() {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    isTTY: false,
  };
  return { io, out };
}

async function run(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false };
  const code = await runSqlCommand(args, io);
  return { code, stdout, stderr };
}

const base = () => ["--policy", POLICY, "--bindings", file("bindings.yaml")];

describeEngines("polar-sql sql on $name", (engine) => {
  beforeAll(async () => {
    await (await engine.db()).exec(SCHEMA);
  });
  const rows = async (sql: string) => (await engine.db()).query(sql);

  it("authorize from flags", async () => {
    const yes = await run([
      "authorize",
      ...base(),
      "--actor",
      "User:17",
      "--action",
      "view",
      "--resource",
      "Ticket:101",
    ]);
    expect(yes.code).toBe(0);
    expect(await rows(yes.stdout)).toEqual([{ allowed: true }]);
    const no = await run([
      "authorize",
      ...base(),
      "--actor",
      "User:17",
      "--action",
      "view",
      "--resource",
      "Ticket:102",
    ]);
    expect(await rows(no.stdout)).toEqual([{ allowed: false }]);
  });

  it("actions from flags", async () => {
    const out = await run(["actions", ...base(), "--actor", "User:17", "--resource", "Ticket:101"]);
    expect(out.code).toBe(0);
    const actions = (await rows(out.stdout)).map((r) => r.actions).sort();
    expect(actions).toEqual(["comment", "view"]);
  });

  it("list from flags, with central facts from --facts", async () => {
    const args = [
      "list",
      ...base(),
      "--actor",
      "User:17",
      "--action",
      "view",
      "--resource-type",
      "Ticket",
      "--column",
      "tickets.id",
    ];
    const plain = await run(args);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^tickets\.id = any\(array\(/);
    const ids = async (fragment: string) =>
      (await rows(`SELECT id FROM tickets WHERE ${fragment} ORDER BY id`)).map((r) => String(r.id));
    expect(await ids(plain.stdout)).toEqual(["101"]);
    const withFacts = await run([...args, "--facts", file("facts.json")]);
    expect(withFacts.code).toBe(0);
    expect(await ids(withFacts.stdout)).toEqual(["101", "102"]);
  });

  it("evaluate from a body file", async () => {
    const out = await run(["evaluate", ...base(), "--body", file("evaluate.json")]);
    expect(out.code).toBe(0);
    expect((await rows(out.stdout)).map((r) => String(r.ticket_id))).toEqual(["101"]);
  });
});

describe("polar-sql sql errors", () => {
  it("--help", async () => {
    const out = await run(["--help"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^usage: polar-sql sql/);
  });

  it.each([
    [[], "no question given"],
    [["grant"], "unknown question `grant`"],
    [
      ["authorize", "--bindings", "x.yaml"],
      "`authorize` needs `--policy`, `--actor`, `--action` and `--resource`",
    ],
    [
      ["authorize", "--policy", POLICY, "--action", "a"],
      "`authorize` needs `--bindings`, `--actor`",
    ],
    [
      [
        "authorize",
        "--policy",
        POLICY,
        "--bindings",
        "BINDINGS",
        "--action",
        "a",
        "--resource",
        "T:1",
        "--actor",
        "User:",
      ],
      "`--actor`: `User:` has no id after the colon",
    ],
    [
      [
        "list",
        "--policy",
        POLICY,
        "--bindings",
        "BINDINGS",
        "--actor",
        "User:1",
        "--action",
        "view",
        "--resource-type",
        "Ticket",
      ],
      "`list` needs `--column`",
    ],
    [
      ["evaluate", "--policy", POLICY, "--bindings", "BINDINGS"],
      "`evaluate` takes its question from `--body <file>`",
    ],
    [["authorize", "--policy", POLICY, "--frobnicate"], "unknown option `--frobnicate`"],
    [["list", "--colunm", "id"], "unknown option `--colunm` (did you mean `--column`?)"],
    [["lsit"], "unknown question `lsit`; did you mean `list`?"],
    [
      [
        "authorize",
        "--policy",
        "missing.polar",
        "--bindings",
        "BINDINGS",
        "--actor",
        "User:1",
        "--action",
        "a",
        "--resource",
        "T:1",
      ],
      "cannot read `missing.polar`: no such file",
    ],
  ])("usage error %j → exit 2", async (args, message) => {
    const out = await run(args.map((a) => (a === "BINDINGS" ? file("bindings.yaml") : a)));
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`error: ${message}`);
    expect(out.stdout).toBe("");
  });

  it("an invalid policy prints diagnostics and exits 1", async () => {
    const out = await run([
      "authorize",
      "--policy",
      file("bad.polar"),
      "--bindings",
      file("bindings.yaml"),
      "--actor",
      "User:1",
      "--action",
      "read",
      "--resource",
      "Doc:1",
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/bad\.polar:2:/);
    expect(out.stderr).toContain("error: the policy has 1 error");
  });

  it("a question the compiler refuses exits 1 with its message", async () => {
    await writeFile(file("bad-bindings.yaml"), "fact:\n  x: 1\n");
    const out = await run([
      "authorize",
      "--policy",
      POLICY,
      "--bindings",
      file("bad-bindings.yaml"),
      "--actor",
      "User:1",
      "--action",
      "view",
      "--resource",
      "Ticket:1",
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error\[P705\]: unknown key `fact`/);
    expect(out.stderr).toContain(` --> ${file("bad-bindings.yaml")}:1:1`);
    expect(out.stderr).toContain("error: the data bindings have 1 error");
  });

  it("a facts file that is not a fact array exits 1", async () => {
    await writeFile(file("bad-facts.json"), '[{"predicate": "has_role", "args": [1]}]');
    const out = await run([
      "authorize",
      ...base(),
      "--facts",
      file("bad-facts.json"),
      "--actor",
      "User:1",
      "--action",
      "view",
      "--resource",
      "Ticket:1",
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("must be a JSON array of facts");
    expect(out.stderr).toContain("at `0.args.0`");
  });
});

// One real service (one PGlite) for the in-process serve runs; `serve` closes what it opened,
// so each run gets a view whose `close` only counts.
let shared: PolarService | undefined;
let closes = 0;
async function sharedService(): Promise<PolarService> {
  shared ??= await createService({ pool: sharedWorkerPool() });
  return { ...shared, close: async () => void closes++ };
}
afterAll(async () => {
  await shared?.close();
});

/** Starts `serve` in-process; resolves once it listens (or with the exit code if it fails). */
async function serve(args: string[], env: Record<string, string> = {}) {
  const { io, out } = captureIo();
  const stop = new AbortController();
  const logged: string[] = [];
  let listening: (server: ServerHandle) => void = () => {};
  const ready = new Promise<ServerHandle>((resolve) => {
    listening = resolve;
  });
  const options: ServeOptions = {
    env,
    stop: stop.signal,
    onListening: listening,
    logDestination: { write: (line) => logged.push(line) },
    openService: sharedService,
  };
  const exit = runServeCommand(args, io, options);
  const first = await Promise.race([ready, exit]);
  return { out, stop, exit, logged, server: typeof first === "number" ? null : first };
}

describe("polar-sql serve", () => {
  it("serves the policy and facts with the configured key, logs requests, stops cleanly", async () => {
    await writeFile(
      file("serve-facts.json"),
      JSON.stringify([
        {
          predicate: "has_role",
          args: [
            { type: "User", id: "ada" },
            { type: "String", id: "member" },
            { type: "Workspace", id: "w" },
          ],
        },
        {
          predicate: "has_relation",
          args: [
            { type: "Project", id: "p" },
            { type: "String", id: "workspace" },
            { type: "Workspace", id: "w" },
          ],
        },
      ]),
    );
    await writeFile(file("keys.txt"), "# keys\nfile-key\n\n");
    const run = await serve(
      [
        "--policy",
        POLICY,
        "--port",
        "0",
        "--facts",
        file("serve-facts.json"),
        "--api-key-file",
        file("keys.txt"),
      ],
      { POLAR_SQL_API_KEYS: "env-key-1, env-key-2" },
    );
    expect(run.server).not.toBeNull();
    const url = run.server!.url;
    expect(run.out.stdout).toBe(`polar-sql listening on ${url}\n`);
    const ask = (key: string) =>
      fetch(`${url}/api/authorize`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          actor_type: "User",
          actor_id: "ada",
          action: "view",
          resource_type: "Project",
          resource_id: "p",
        }),
      });
    for (const key of ["env-key-1", "env-key-2", "file-key"]) {
      const res = await ask(key);
      expect(res.status, key).toBe(200);
      expect(await res.json()).toEqual({ allowed: true });
    }
    expect((await ask("nope")).status).toBe(401);
    const lines = run.logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l.route === "POST /api/authorize").map((l) => l.status)).toEqual([
      200, 200, 200, 401,
    ]);
    expect(lines.at(-1)).toMatchObject({ method: "POST", status: 401, reqId: expect.any(String) });
    const closed = closes;
    run.stop.abort();
    expect(await run.exit).toBe(0);
    expect(closes).toBe(closed + 1);
    expect(run.out.stdout).toContain("shutting down");
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("generates and prints a key when none is configured", async () => {
    const run = await serve(["--policy", POLICY, "--port", "0", "--log-level", "silent"]);
    const key = /API key \(generated, shown once\): (psk_[A-Za-z0-9_-]{43})\n/.exec(
      run.out.stdout,
    )?.[1];
    expect(key).toBeDefined();
    expect(run.out.stdout).toContain(
      `curl -s -H "Authorization: Bearer ${key}" ${run.server!.url}/api/policy_metadata`,
    );
    const unauthenticated = await fetch(`${run.server!.url}/api/policy_metadata`);
    expect(unauthenticated.status).toBe(401);
    const res = await fetch(`${run.server!.url}/api/policy_metadata`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    run.stop.abort();
    expect(await run.exit).toBe(0);
  });

  it("a policy whose tests fail is refused with exit 1", async () => {
    await writeFile(
      file("failing.polar"),
      'actor User {}\nresource Doc { permissions = ["read"]; }\ntest "nobody reads" { assert allow(User{"a"}, "read", Doc{"d"}); }\n',
    );
    const run = await serve(["--policy", file("failing.polar"), "--port", "0"], {
      POLAR_SQL_API_KEYS: "k",
    });
    expect(await run.exit).toBe(1);
    expect(run.server).toBeNull();
    expect(run.out.stderr).toMatch(/^error: .*nobody reads/);
  });

  it("an invalid policy prints diagnostics and exits 1 before opening a store", async () => {
    const run = await serve(["--policy", file("bad.polar")], { POLAR_SQL_API_KEYS: "k" });
    expect(await run.exit).toBe(1);
    expect(run.out.stderr).toMatch(/bad\.polar:2:/);
  });

  it.each([
    [[], "no policy files given"],
    [
      ["--policy", POLICY, "--port", "http"],
      "`--port` must be a number from 0 to 65535, got `http`",
    ],
    [["--policy", POLICY, "--port", "70000"], "`--port` must be a number from 0 to 65535"],
    [
      ["--policy", POLICY, "--data", "d", "--database-url", "postgres://x"],
      "give either `--data` or `--database-url`, not both",
    ],
    [["--policy", POLICY, "--log-level", "loud"], "`--log-level` must be one of"],
    [["--policy", POLICY, "--what"], "unknown option `--what`"],
    [["--policy", POLICY, "--prot", "1"], "unknown option `--prot` (did you mean `--port`?)"],
    [["--policy", "missing.polar"], "cannot read `missing.polar`: no such file"],
    [
      ["--policy", POLICY, "--api-key-file", "missing-keys.txt"],
      "cannot read API key file `missing-keys.txt`: no such file",
    ],
    [
      ["--policy", POLICY, "--replica-url", "postgres://standby/db"],
      "`--replica-url` needs `--database-url` (the primary)",
    ],
    [["--policy", POLICY, "--replica-wait-ms", "50"], "`--replica-wait-ms` needs `--replica-url`"],
    [
      [
        "--policy",
        POLICY,
        "--database-url",
        "postgres://primary/db",
        "--replica-url",
        "postgres://standby/db",
        "--replica-max-lag-ms",
        "soon",
      ],
      "`--replica-max-lag-ms` must be a whole number of ms, got `soon`",
    ],
  ])("usage error %j → exit 2", async (args, message) => {
    const run = await serve(args, {});
    expect(await run.exit).toBe(2);
    expect(run.out.stderr).toContain(`error: ${message}`);
  });

  it("hands --replica-url (repeated) and its settings to the service as read replicas", async () => {
    const { io } = captureIo();
    const stop = new AbortController();
    let opened: ServiceOptions | undefined;
    const exit = runServeCommand(
      [
        ...["--policy", POLICY, "--port", "0", "--log-level", "silent"],
        ...["--database-url", "postgres://primary/db"],
        ...["--replica-url", "postgres://standby-1/db", "--replica-url", "postgres://standby-2/db"],
        ...["--replica-wait-ms", "250", "--replica-max-lag-ms", "2000"],
      ],
      io,
      {
        env: { POLAR_SQL_API_KEYS: "k" },
        stop: stop.signal,
        openService: async (options) => {
          opened = options;
          return fakeService();
        },
        onListening: () => stop.abort(),
      },
    );
    expect(await exit).toBe(0);
    expect(opened?.databaseUrl).toBe("postgres://primary/db");
    expect(opened?.replicas).toEqual({
      urls: ["postgres://standby-1/db", "postgres://standby-2/db"],
      waitMs: 250,
      maxLagMs: 2000,
    });
  });

  it("gives up on in-flight work after the shutdown deadline and exits 1", async () => {
    const { io, out } = captureIo();
    const stop = new AbortController();
    const stuck = fakeService();
    let received: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    const service: PolarService = {
      ...stuck,
      authorize: () => {
        received();
        return new Promise(() => {});
      },
    };
    let url = "";
    const exit = runServeCommand(["--policy", POLICY, "--port", "0", "--log-level", "silent"], io, {
      env: { POLAR_SQL_API_KEYS: "k" },
      stop: stop.signal,
      shutdownMs: 300,
      openService: async () => service,
      onListening: (server) => {
        url = server.url;
      },
    });
    while (!url) await new Promise((resolve) => setTimeout(resolve, 10));
    const client = new AbortController();
    const request = fetch(`${url}/api/authorize`, {
      method: "POST",
      headers: { Authorization: "Bearer k", "Content-Type": "application/json" },
      body: "{}",
      signal: client.signal,
    }).catch(() => "aborted");
    await arrived;
    stop.abort();
    expect(await exit).toBe(1);
    expect(out.stderr).toContain("error: in-flight work did not finish within 0.3 s");
    client.abort();
    expect(await request).toBe("aborted");
  });

  it("a real SIGTERM finishes the shutdown and exits 0", async () => {
    const entry = [
      'import { runServeCommand } from "./src/cli/serve-command.ts";',
      'import { processIo } from "./src/cli/io.ts";',
      'import { fakeService } from "./test/http-fake-service.ts";',
      // The fake service keeps the child light; the signal path does not depend on the store.
      "const openService = async () => fakeService();",
      "process.exitCode = await runServeCommand(process.argv.slice(1), processIo, { openService });",
    ].join(" ");
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        entry,
        "--",
        "--policy",
        POLICY,
        "--port",
        "0",
        "--log-level",
        "silent",
      ],
      { env: { ...process.env, POLAR_SQL_API_KEYS: "k" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => resolve(code)),
    );
    while (!/listening on (\S+)\n/.test(output)) {
      if (child.exitCode !== null) throw new Error(output);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /listening on (\S+)\n/.exec(output)![1]!;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output).toContain("shutting down: finishing in-flight requests");
  });

  it("--help", async () => {
    const { io, out } = captureIo();
    expect(await runServeCommand(["--help"], io)).toBe(0);
    expect(out.stdout).toMatch(/^usage: polar-sql serve --policy <files...>/);
  });
});
