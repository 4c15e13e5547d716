/**
 * Scoped API keys: which routes write, the keys file of `serve --keys` and its errors,
 * `key_sha256` entries, `serve` with environments across a restart, and the official
 * `oso-cloud` client with a read-only key.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Oso } from "oso-cloud";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { runServeCommand } from "../src/cli/serve-command.js";
import { createApp } from "../src/http/app.js";
import { createKeyCheck, keySha256 } from "../src/http/auth.js";
import { parseKeysFile } from "../src/http/keys-file.js";
import { silentLogger } from "../src/http/logger.js";
import { ROUTES } from "../src/http/routes.js";
import type { ServerHandle } from "../src/http/server.js";
import { startServer } from "../src/http/server.js";
import { type Environments, openEnvironments } from "../src/service/environments.js";

const POLICY = `actor User {}
resource Doc { roles = ["reader"]; permissions = ["read"]; "read" if "reader"; }`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "polar-sql-keys-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the routes that write", () => {
  it("are exactly those the issue lists: facts, batch, the 1.x bulk routes, policy, clear_data", () => {
    const writing = ROUTES.filter((route) => route.writes).map((r) => `${r.method} ${r.path}`);
    expect(writing.sort()).toEqual(
      [
        "POST /facts",
        "DELETE /facts",
        "POST /batch",
        "POST /bulk_load",
        "POST /bulk_delete",
        "POST /bulk",
        "POST /policy",
        "POST /clear_data",
      ].sort(),
    );
  });
});

describe("the keys file", () => {
  const entry = (fields: string) =>
    `keys:\n  - key: first-key\n    environment: production\n    access: read-write\n  - ${fields}`;

  it("gives each key its environment and access; key_sha256 entries keep the digest only", () => {
    const text = entry(
      `key_sha256: ${keySha256("second-key").toUpperCase()}\n    environment: staging\n    access: read-only\n`,
    );
    expect(parseKeysFile(text, "keys.yaml")).toEqual([
      { key: "first-key", environment: "production", access: "read-write" },
      { keySha256: keySha256("second-key"), environment: "staging", access: "read-only" },
    ]);
  });

  it.each([
    ["bad YAML", "keys: [\n  - key: a\n", /^keys\.yaml:\d+:\d+: invalid YAML: /],
    ["not a mapping", "- key: a\n", /^keys\.yaml:1:1: expected a mapping with a `keys` list$/],
    [
      "a missing field",
      entry("key: b\n    environment: staging\n"),
      /^keys\.yaml:5:5: `access`: missing; expected `read-write` or `read-only`$/,
    ],
    [
      "both key and key_sha256",
      entry(
        `key: b\n    key_sha256: ${"a".repeat(64)}\n    environment: staging\n    access: read-only\n`,
      ),
      /^keys\.yaml:6:17: `key_sha256`: give `key` or `key_sha256`, not both$/,
    ],
    [
      "neither key nor key_sha256",
      entry("environment: staging\n    access: read-only\n"),
      /^keys\.yaml:5:5: missing `key` \(or `key_sha256`\)$/,
    ],
    [
      "bad hex",
      entry(`key_sha256: ${"g".repeat(64)}\n    environment: staging\n    access: read-only\n`),
      /^keys\.yaml:5:17: `key_sha256`: expected 64 hexadecimal digits/,
    ],
    [
      "a bad environment name",
      entry("key: b\n    environment: Staging-1\n    access: read-only\n"),
      /^keys\.yaml:6:18: `environment`: invalid environment name "Staging-1"/,
    ],
    [
      "a bad access",
      entry("key: b\n    environment: staging\n    access: admin\n"),
      /^keys\.yaml:7:13: `access`: expected `read-write` or `read-only`$/,
    ],
    [
      "one key in two environments",
      entry(
        `key_sha256: ${keySha256("first-key")}\n    environment: staging\n    access: read-write\n`,
      ),
      /^keys\.yaml:5:5: this key is listed already \(entry 1\) with environment `production`/,
    ],
  ])("refuses %s, naming file, line and column", (_, text, message) => {
    expect(() => parseKeysFile(text, "keys.yaml")).toThrow(message);
  });

  it("a key_sha256 entry authenticates the key whose digest it is, and no other", () => {
    const check = createKeyCheck([
      { keySha256: keySha256("hashed-key"), environment: "staging", access: "read-only" },
      { key: "plain-key", environment: "default", access: "read-write" },
    ]);
    expect(check("Bearer hashed-key")).toEqual({
      kind: "ok",
      environment: "staging",
      access: "read-only",
    });
    expect(check("Bearer plain-key")).toMatchObject({ environment: "default" });
    expect(check(`Bearer ${keySha256("hashed-key")}`)).toEqual({
      kind: "refused",
      message: "invalid API key",
    });
  });

  it("an app refuses a key of an environment it does not serve", () => {
    expect(() =>
      createApp({
        environments: new Map(),
        keys: [{ key: "k", environment: "staging", access: "read-only" }],
        logger: silentLogger,
      }),
    ).toThrow("an API key names the environment `staging`, which is not served");
  });
});

describe("polar-sql serve --keys", () => {
  const captured = () => {
    const out = { stdout: "", stderr: "" };
    const io: CliIo = {
      stdout: (t) => {
        out.stdout += t;
      },
      stderr: (t) => {
        out.stderr += t;
      },
      isTTY: false,
    };
    return { io, out };
  };

  /** Runs `serve` with `args`; `use` gets the URL, then the server stops. */
  async function serve(args: string[], use: (url: string) => Promise<void>) {
    const { io, out } = captured();
    const stop = new AbortController();
    let url = "";
    const exit = runServeCommand([...args, "--port", "0", "--log-level", "silent"], io, {
      env: { POLAR_SQL_API_KEYS: "default-key" },
      stop: stop.signal,
      onListening: (server) => {
        url = server.url;
      },
    });
    while (!url) {
      const done = await Promise.race([exit, new Promise((r) => setTimeout(r, 10))]);
      if (typeof done === "number") throw new Error(`serve exited ${done}: ${out.stderr}`);
    }
    try {
      await use(url);
    } finally {
      stop.abort();
      expect(await exit).toBe(0);
    }
  }

  const call = (url: string, key: string, path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    });

  it("exits 2 on a bad keys file, naming file, line and column", async () => {
    const file = join(dir, "bad-keys.yaml");
    await writeFile(file, "keys:\n  - key: k\n    environment: production\n    access: write\n");
    await writeFile(join(dir, "policy.polar"), POLICY);
    const { io, out } = captured();
    const code = await runServeCommand(
      ["--policy", join(dir, "policy.polar"), "--keys", file, "--port", "0"],
      io,
      { env: {} },
    );
    expect(code).toBe(2);
    expect(out.stderr).toBe(
      `error: ${file}:4:13: \`access\`: expected \`read-write\` or \`read-only\`\n`,
    );
  });

  it("serves each environment with its keys; --policy starts only environments without one", async () => {
    const keysFile = join(dir, "keys.yaml");
    await writeFile(
      keysFile,
      `keys:\n  - key: prod-writer\n    environment: production\n    access: read-write\n` +
        `  - key_sha256: ${keySha256("prod-reader")}\n    environment: production\n    access: read-only\n`,
    );
    await writeFile(join(dir, "policy.polar"), POLICY);
    const args = ["--policy", join(dir, "policy.polar"), "--keys", keysFile];
    args.push("--data", join(dir, "data"));
    const changed = `${POLICY}\n# production's own`;
    await serve(args, async (url) => {
      const refused = await call(url, "prod-reader", "/api/policy", {
        method: "POST",
        body: JSON.stringify({ src: changed }),
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        message: "this API key is read-only; `POST /api/policy` writes",
      });
      const posted = await call(url, "prod-writer", "/api/policy", {
        method: "POST",
        body: JSON.stringify({ src: changed }),
      });
      expect(posted.status).toBe(200);
      expect((await call(url, "nobody", "/api/policy")).status).toBe(401);
    });
    await serve(args, async (url) => {
      const policyOf = async (key: string) =>
        ((await (await call(url, key, "/api/policy")).json()) as { policy: { src: string } }).policy
          .src;
      expect(await policyOf("prod-reader")).toBe(changed);
      expect(await policyOf("default-key")).toBe(POLICY);
    });
  });
});

describe("the oso-cloud client with a read-only key", () => {
  let environments: Environments;
  let server: ServerHandle;
  beforeAll(async () => {
    environments = await openEnvironments(["default"], { workers: 0 });
    const service = environments.services.get("default")!;
    await service.postPolicy({ src: POLICY, filename: null }, {});
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: "ada" },
              { type: "String", id: "reader" },
              { type: "Doc", id: "d1" },
            ],
          },
        ],
      },
    ]);
    const app = createApp({
      environments: environments.services,
      keys: [{ key: "reader-key", environment: "default", access: "read-only" }],
      logger: silentLogger,
    });
    server = await startServer({ app, port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.close();
    await environments?.close();
  });

  it("asks questions and reads facts, and gets an error on every kind of write", async () => {
    const oso = new Oso(server.url, "reader-key");
    const ada = { type: "User", id: "ada" };
    const doc = { type: "Doc", id: "d1" };
    expect(await oso.authorize(ada, "read", doc)).toBe(true);
    expect(await oso.list(ada, "read", "Doc")).toEqual(["d1"]);
    expect(await oso.get(["has_role", ada, null, null])).toHaveLength(1);
    const readOnly = /read-only/;
    await expect(
      oso.insert(["has_role", ada, "reader", { type: "Doc", id: "d2" }]),
    ).rejects.toThrow(readOnly);
    await expect(oso.delete(["has_role", ada, "reader", doc])).rejects.toThrow(readOnly);
    await expect(oso.policy(`${POLICY}\n# changed`)).rejects.toThrow(readOnly);
    expect(await oso.get(["has_role", ada, null, null])).toHaveLength(1);
  });
});
