/**
 * The command-line client against a real server started in this process (PGlite store):
 * questions, facts (wildcards, hostile ids, export through pages, import with line-numbered
 * errors and progress), the policy, and failures (refused key, unreachable server).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { formatFact, formatValue } from "../src/client/values.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { hostileId } from "./support/hostile-ids.js";
import { propertyRuns } from "./support/runs.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const POLICY_FILE = "examples/quickstart/policy.polar";
const KEY = "cli-test-key";

let service: PolarService;
let server: ServerHandle;
let dir: string;
let policySrc: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "polar-sql-client-"));
  policySrc = await readFile(POLICY_FILE, "utf8");
  service = await createService({ pool: sharedWorkerPool() });
  await service.postPolicy({ src: policySrc, filename: "policy.polar" }, {});
  const facts = JSON.parse(await readFile("examples/quickstart/facts.json", "utf8"));
  await service.batch([{ inserts: facts }]);
  server = await startServer({
    app: createApp({ service, apiKeys: [KEY], logger: silentLogger }),
    port: 0,
    host: "127.0.0.1",
  });
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: readonly string[], options: { tty?: boolean; env?: object } = {}) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    isTTY: false,
    stderrIsTTY: options.tty ?? false,
    env: { POLAR_SQL_URL: server.url, POLAR_SQL_API_KEY: KEY, ...options.env },
  };
  const code = await main(args, io);
  return { code, ...out } as Ran;
}

const ok = (ran: Ran) => {
  expect(ran.stderr).toBe("");
  expect(ran.code).toBe(0);
  return ran.stdout;
};

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

describe("questions", () => {
  it("authorize prints allowed or denied, or JSON", async () => {
    expect(ok(await cli(["authorize", "User:alice", "delete", "Repository:1"]))).toBe("allowed\n");
    expect(ok(await cli(["authorize", "User:bob", "delete", "Repository:1"]))).toBe("denied\n");
    expect(ok(await cli(["authorize", "User:bob", "read", "Repository:1", "--json"]))).toBe(
      '{"allowed":true}\n',
    );
  });

  it("list prints one id per line, or a JSON array", async () => {
    expect(ok(await cli(["list", "User:bob", "read", "Repository"]))).toBe("1\n2\n3\n");
    expect(ok(await cli(["list", "User:nobody", "push", "Repository", "--json"]))).toBe("[]\n");
  });

  it("actions prints the actions, sorted", async () => {
    expect(ok(await cli(["actions", "User:alice", "Repository:1"]))).toBe("delete\npush\nread\n");
    expect(ok(await cli(["actions", "User:carol", "Repository:3", "--json"]))).toBe('["read"]\n');
  });

  it("a bad value is a usage error naming the argument", async () => {
    const ran = await cli(["authorize", "User:", "read", "Repository:1"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.split("\n")[0]).toBe("error: <actor>: `User:` has no id after the colon");
  });
});

describe("facts", () => {
  it("runs the shapes of Oso's CLI scripts: bare words are Strings, `_` and `Type:_` wildcards", async () => {
    // oso-cloud tell has_role User:paula owner CardAccount:1, on this policy's types.
    expect(
      ok(await cli(["facts", "insert", "has_role", "User:paula", "owner", "Organization:acme"])),
    ).toBe("inserted has_role User:paula String:owner Organization:acme\n");
    expect(
      ok(await cli(["authorize", "User:paula", "create_repository", "Organization:acme"])),
    ).toBe("allowed\n");
    // oso-cloud get has_role User:_ _ _ and friends.
    expect(lines(ok(await cli(["facts", "get", "has_role", "User:paula", "_", "_"])))).toEqual([
      "has_role User:paula String:owner Organization:acme",
    ]);
    const owners = lines(ok(await cli(["facts", "get", "has_role", "User:_", "owner", "_"])));
    expect(owners).toContain("has_role User:paula String:owner Organization:acme");
    expect(owners.every((line) => line.includes(" String:owner "))).toBe(true);
    expect(
      lines(ok(await cli(["facts", "get", "has_role", "_", "owner", "Organization:acme"]))),
    ).toEqual(expect.arrayContaining(["has_role User:paula String:owner Organization:acme"]));
    // oso-cloud delete has_role User:paula owner Organization:acme
    ok(await cli(["facts", "delete", "has_role", "User:paula", "owner", "Organization:acme"]));
    expect(ok(await cli(["facts", "get", "has_role", "User:paula", "_", "_"]))).toBe("");
  });

  it("refuses a wildcard where a value is needed, and empty ids, sending nothing", async () => {
    for (const [value, message] of [
      ["_", '`_` is a wildcard; write `"_"` or `String:"_"` for the string _'],
      ["String:_", '`String:_` is a wildcard; write `String:"_"` for the id _'],
      ['""', '`""` has an empty string'],
      ["", "an empty argument is not a value"],
    ]) {
      const ran = await cli([
        "facts",
        "insert",
        "has_role",
        "User:zoe",
        value!,
        "Organization:acme",
      ]);
      expect(ran.code, value).toBe(2);
      expect(ran.stderr.split("\n")[0]).toBe(`error: value 2: ${message}`);
    }
    const empty = await cli(["facts", "insert", "has_role", "User:", "owner", "Organization:acme"]);
    expect(empty.stderr.split("\n")[0]).toBe("error: value 1: `User:` has no id after the colon");
    expect(ok(await cli(["facts", "get", "has_role", "User:zoe", "_", "_"]))).toBe("");
  });

  it("insert, get with wildcards, delete every match", async () => {
    for (const org of ["acme", "globex", "initech"]) {
      const ran = await cli([
        "facts",
        "insert",
        "has_role",
        "User:dave",
        "String:member",
        `Organization:${org}`,
      ]);
      expect(ok(ran)).toBe(`inserted has_role User:dave String:member Organization:${org}\n`);
    }
    const all = ok(await cli(["facts", "get", "has_role", "User:dave", "_", "_"]));
    expect(lines(all)).toEqual([
      "has_role User:dave String:member Organization:acme",
      "has_role User:dave String:member Organization:globex",
      "has_role User:dave String:member Organization:initech",
    ]);
    const one = ok(await cli(["facts", "get", "has_role", "_", "_", "Organization:initech"]));
    expect(lines(one)).toEqual(["has_role User:dave String:member Organization:initech"]);
    // With values, only facts of that arity match.
    expect(ok(await cli(["facts", "get", "has_role", "User:dave", "_"]))).toBe("");
    expect(
      ok(
        await cli(["facts", "delete", "has_role", "User:dave", "String:member", "Organization:_"]),
      ),
    ).toBe("deleted every fact matching has_role User:dave String:member Organization:_\n");
    expect(ok(await cli(["facts", "get", "has_role", "User:dave", "_", "_"]))).toBe("");
  });

  it("a fact the policy does not allow is refused with the server's message", async () => {
    const ran = await cli([
      "facts",
      "insert",
      "has_rol",
      "User:a",
      "String:member",
      "Organization:x",
    ]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^error: unknown predicate `has_rol\/3`: .*\(request id [^)]+\)\n$/);
  });

  it("ids with quotes, colons, commas, spaces, tabs, backslashes and non-ASCII round-trip", async () => {
    await fc.assert(
      fc.asyncProperty(hostileId, hostileId, async (user, org) => {
        // The store keeps text: no NUL, no lone surrogates.
        fc.pre([user, org].every((id) => !/[\u0000\uD800-\uDFFF]/u.test(id)));
        const args = [
          formatValue({ type: "User", id: user }),
          "String:member",
          formatValue({ type: "Organization", id: org }),
        ];
        const fact = {
          predicate: "has_role",
          args: [
            { type: "User", id: user },
            { type: "String", id: "member" },
            { type: "Organization", id: org },
          ],
        };
        ok(await cli(["facts", "insert", "has_role", ...args]));
        const json = ok(await cli(["facts", "get", "has_role", args[0]!, "_", args[2]!, "--json"]));
        expect(lines(json).map((line) => JSON.parse(line))).toEqual([fact]);
        const plain = ok(await cli(["facts", "get", "has_role", args[0]!, "_", args[2]!]));
        expect(plain).toBe(`${formatFact(fact)}\n`);
        ok(await cli(["facts", "delete", "has_role", ...args]));
        expect(ok(await cli(["facts", "get", "has_role", args[0]!, "_", "_"]))).toBe("");
      }),
      { numRuns: propertyRuns(15, 150) },
    );
  });

  it("export prints every fact exactly once, across pages", async () => {
    const inserted = Array.from({ length: 23 }, (_, i) => ({
      predicate: "has_role",
      args: [
        { type: "User", id: `export-${i}` },
        { type: "String", id: "member" },
        { type: "Organization", id: "acme" },
      ],
    }));
    await service.batch([{ inserts: inserted }]);
    const exported = lines(ok(await cli(["facts", "export", "--page-size", "4"])));
    const stored = [
      ...((await service.getFacts(new Map([["predicate", "has_role"]]))).body as object[]),
      ...((await service.getFacts(new Map([["predicate", "has_relation"]]))).body as object[]),
      ...((await service.getFacts(new Map([["predicate", "is_public"]]))).body as object[]),
    ].map((fact) => JSON.stringify(fact));
    expect(new Set(exported).size).toBe(exported.length);
    expect([...exported].sort()).toEqual([...stored].sort());
    for (const fact of inserted) expect(exported).toContain(JSON.stringify(fact));
    await service.batch([{ deletes: inserted }]);
  });

  it("export refuses a page size out of range", async () => {
    const ran = await cli(["facts", "export", "--page-size", "0"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^error: `--page-size` must be a number from 1 to 10000, got `0`/);
  });
});

const role = (user: string, org = "acme") => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user },
    { type: "String", id: "member" },
    { type: "Organization", id: org },
  ],
});

async function storedUsers(prefix: string): Promise<string[]> {
  const facts = (await service.getFacts(new Map([["predicate", "has_role"]]))).body as {
    args: { id: string }[];
  }[];
  return facts
    .map((f) => f.args[0]!.id)
    .filter((id) => id.startsWith(prefix))
    .sort();
}

describe("facts import", () => {
  it("reads JSON lines and JSON arrays, in batches, with plain progress lines", async () => {
    const records = ["i1", "i2", "i3", "i4", "i5"].map((id) => role(id));
    await writeFile(join(dir, "a.jsonl"), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const ran = await cli(["facts", "import", join(dir, "a.jsonl"), "--batch-size", "2"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`imported 5 facts from ${join(dir, "a.jsonl")}\n`);
    expect(ran.stderr).toBe(
      "imported 2 of 5 facts\nimported 4 of 5 facts\nimported 5 of 5 facts\n",
    );
    expect(await storedUsers("i")).toEqual(["i1", "i2", "i3", "i4", "i5"]);

    const array = ["j1", "j2"].map((id) => role(id));
    await writeFile(join(dir, "b.json"), JSON.stringify(array, null, 2));
    const tty = await cli(["facts", "import", join(dir, "b.json")], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toBe("\rimported 2 of 2 facts\n");
    expect(await storedUsers("j")).toEqual(["j1", "j2"]);
  });

  it("exported facts import back unchanged", async () => {
    const exported = ok(await cli(["facts", "export"]));
    await writeFile(join(dir, "all.jsonl"), exported);
    await service.clearData();
    expect(ok(await cli(["facts", "export"]))).toBe("");
    const ran = await cli(["facts", "import", join(dir, "all.jsonl")]);
    expect(ran.code).toBe(0);
    expect(lines(ok(await cli(["facts", "export"]))).sort()).toEqual(lines(exported).sort());
  });

  it("every bad record is named by its line before anything is sent", async () => {
    const text = [
      JSON.stringify(role("k1")),
      "",
      JSON.stringify({ predicate: "has_role", args: [{ type: "User" }] }),
      JSON.stringify(role("k\u0000nul")),
      JSON.stringify(role("k".repeat(400))),
      JSON.stringify({ predicate: "has_role", args: [{ type: "User", id: "k3" }] }),
      JSON.stringify(role("k2")),
    ].join("\n");
    await writeFile(join(dir, "bad.jsonl"), text);
    const ran = await cli(["facts", "import", join(dir, "bad.jsonl")]);
    expect(ran.code).toBe(1);
    const file = join(dir, "bad.jsonl");
    expect(ran.stderr.split("\n")).toEqual([
      `error: ${file} line 3: \`args.0.id\`: invalid input: expected string, received undefined; expected {"predicate": "…", "args": [{"type": "…", "id": "…"}]}`,
      expect.stringMatching(
        new RegExp(`^error: ${file} line 4: facts cannot contain NUL characters: `),
      ),
      expect.stringMatching(
        new RegExp(`^error: ${file} line 5: fact argument exceeds 384 bytes: `),
      ),
      `error: ${file} line 6: unknown predicate \`has_role/1\`: \`has_role(User{"k3"})\``,
      "nothing was imported",
      "",
    ]);
    expect(await storedUsers("k")).toEqual([]);
    await writeFile(
      join(dir, "broken.json"),
      `[\n${JSON.stringify(role("b1"))},\n{"predicate" "x"}\n]`,
    );
    const broken = await cli(["facts", "import", join(dir, "broken.json")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^error: .*broken\.json line 3: not valid JSON: /);
  });

  it("a fact the server's policy refuses is found before anything is sent", async () => {
    const records = [
      role("m1"),
      role("m2"),
      role("m3"),
      role("m4"),
      { predicate: "has_rol", args: [{ type: "User", id: "m5" }] },
      role("m6"),
    ];
    await writeFile(join(dir, "refused.jsonl"), records.map((r) => JSON.stringify(r)).join("\n"));
    const ran = await cli(["facts", "import", join(dir, "refused.jsonl"), "--batch-size", "3"]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /^error: .*refused\.jsonl line 5: unknown predicate `has_rol\/1`: `has_rol\(User\{"m5"\}\)`\nnothing was imported\n$/,
    );
    expect(await storedUsers("m")).toEqual([]);
  });

  it("a batch the server refuses anyway undoes the import, keeping facts stored before", async () => {
    // A proxy in front of the server that refuses every insert of `User:p5`, which the
    // server's policy allows: a refusal the first pass cannot foresee.
    await service.batch([{ inserts: [role("p2")] }]);
    const proxy = createHttpServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      if (request.url === "/api/batch" && body.includes('"inserts"') && body.includes('"p5"')) {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: "the store is read-only for a moment" }));
        return;
      }
      const forwarded = await fetch(`${server.url}${request.url}`, {
        method: request.method ?? "GET",
        headers: request.headers as Record<string, string>,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
      response.writeHead(forwarded.status, { "content-type": "application/json" });
      response.end(await forwarded.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const records = ["p1", "p2", "p3", "p4", "p5", "p6", "p7"].map((id) => role(id));
      await writeFile(join(dir, "undone.jsonl"), records.map((r) => JSON.stringify(r)).join("\n"));
      const ran = await cli(["facts", "import", join(dir, "undone.jsonl"), "--batch-size", "2"], {
        env: { POLAR_SQL_URL: url },
      });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(
        /\nerror: .*undone\.jsonl line 5: the store is read-only for a moment; nothing was imported \(the 3 facts stored before it were deleted again\)\n$/,
      );
      // p2 was stored before the import: it stays; nothing else of the file does.
      expect(await storedUsers("p")).toEqual(["p2"]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("a line longer than 1 MiB, or /dev/zero, is refused cleanly", async () => {
    await writeFile(
      join(dir, "long.jsonl"),
      `${JSON.stringify(role("q1"))}\n${"x".repeat(1 << 21)}\n`,
    );
    const long = await cli(["facts", "import", join(dir, "long.jsonl")]);
    expect(long.code).toBe(1);
    expect(long.stderr).toBe(
      `error: ${join(dir, "long.jsonl")} line 2: line 2 is longer than 1048576 characters\nnothing was imported\n`,
    );
    expect(await storedUsers("q")).toEqual([]);
    const zero = await cli(["facts", "import", "/dev/zero"]);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe(
      "error: /dev/zero line 1: line 1 is longer than 1048576 characters\nnothing was imported\n",
    );
  });

  it("a missing file is a usage error", async () => {
    const ran = await cli(["facts", "import", join(dir, "nope.jsonl")]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.split("\n")[0]).toBe(
      `error: cannot read \`${join(dir, "nope.jsonl")}\`: no such file`,
    );
  });
});

describe("policy", () => {
  it("get prints the active policy", async () => {
    expect(ok(await cli(["policy", "get"]))).toBe(policySrc);
    const json = JSON.parse(ok(await cli(["policy", "get", "--json"])));
    expect(json).toEqual({ filename: "policy.polar", src: policySrc });
  });

  it("push checks locally first, then replaces the policy; the server runs the tests", async () => {
    await writeFile(
      join(dir, "bad.polar"),
      'actor User {}\nresource R { permissions = ["r"]; "r" if "x"; }\n',
    );
    const bad = await cli(["policy", "push", join(dir, "bad.polar")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("error[P201]: undeclared term `x` in `R`");
    expect(bad.stderr).toContain("error: the policy has errors; nothing was sent\n");

    await writeFile(
      join(dir, "failing.polar"),
      'actor User {}\nresource R { permissions = ["r"]; }\ntest "t" { assert allow(User{"a"}, "r", R{"1"}); }\n',
    );
    const failing = await cli(["policy", "push", join(dir, "failing.polar")]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/^error: test `t` failed: /);
    expect(ok(await cli(["policy", "get"]))).toBe(policySrc);

    await writeFile(
      join(dir, "extra.polar"),
      'has_role(User{"zed"}, "owner", Organization{"acme"});\n',
    );
    const pushed = await cli(["policy", "push", POLICY_FILE, join(dir, "extra.polar")]);
    expect(pushed).toEqual({ code: 0, stdout: "policy updated\n", stderr: "" });
    expect(ok(await cli(["authorize", "User:zed", "delete", "Repository:1"]))).toBe("allowed\n");
    const again = await cli(["policy", "push", POLICY_FILE]);
    expect(again.stdout).toBe("policy updated\n");
  });
});

describe("failures", () => {
  it("a wrong API key exits 1 with the server's message", async () => {
    const ran = await cli(["list", "User:bob", "read", "Repository", "--api-key", "wrong"]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^error: invalid API key \(request id .+\)\n$/);
  });

  it("an unreachable server exits 1 naming the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const ran = await cli(["policy", "get"], { env: { POLAR_SQL_URL: url } });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`error: cannot reach \`${url}\`: ECONNREFUSED\n`);
  });
});
