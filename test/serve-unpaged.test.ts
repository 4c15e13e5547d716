/**
 * `polar-sql serve --allow-unpaged-list` (and `--no-answer-cache`): the switch reaches the service, and `/list` without
 * `page_size` then answers every id in one reply; without it, the 400 names the switch.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { runServeCommand, SERVE_HELP } from "../src/cli/serve-command.js";
import type { ServerHandle } from "../src/http/server.js";
import { type ServiceOptions, serviceOver } from "../src/service/service.js";
import { type FactStore, openStore } from "../src/store/store.js";

const POLICY = "examples/reference/12-1-rbac.polar";
const KEY = "unpaged-key";

// One store (PGlite starts slowly) under a service per run; `serve` closes what it opened.
let store: Promise<FactStore> | undefined;
afterAll(async () => (await store)?.close());

async function listWithoutPageSize(flags: string[]) {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, isTTY: false };
  const stop = new AbortController();
  let opened: ServiceOptions | undefined;
  let listening: (server: ServerHandle) => void = () => {};
  const ready = new Promise<ServerHandle>((resolve) => {
    listening = resolve;
  });
  const exit = runServeCommand(
    ["--policy", POLICY, "--port", "0", "--log-level", "silent", ...flags],
    io,
    {
      env: { POLAR_SQL_API_KEYS: KEY },
      stop: stop.signal,
      onListening: listening,
      openService: async (options) => {
        opened = options;
        store ??= openStore({});
        const service = serviceOver(await store, options);
        return { ...service, close: async () => {} };
      },
    },
  );
  const server = await ready;
  try {
    const headers = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };
    const grant = (id: string) => ({
      predicate: "has_role",
      args: [
        { type: "User", id: "ada" },
        { type: "String", id: "viewer" },
        { type: "Workspace", id },
      ],
    });
    await fetch(`${server.url}/api/batch`, {
      method: "POST",
      headers,
      body: JSON.stringify([{ inserts: [grant("w2"), grant("w1")] }]),
    });
    const res = await fetch(`${server.url}/api/list`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resource_type: "Workspace",
      }),
    });
    return { status: res.status, body: await res.json(), opened };
  } finally {
    stop.abort();
    expect(await exit).toBe(0);
  }
}

describe("serve --allow-unpaged-list", () => {
  it("answers /list without page_size with every id", async () => {
    const { status, body, opened } = await listWithoutPageSize(["--allow-unpaged-list"]);
    expect(opened?.allowUnpagedList).toBe(true);
    expect(status).toBe(200);
    expect(body).toStrictEqual({ results: ["w1", "w2"] });
  });

  it("without it, refuses and names the switch", async () => {
    const { status, body, opened } = await listWithoutPageSize([]);
    expect(opened?.allowUnpagedList).toBeUndefined();
    expect(status).toBe(400);
    expect(body).toEqual({ message: expect.stringContaining("`--allow-unpaged-list`") });
  });

  it("is in the help", () => {
    expect(SERVE_HELP).toContain("--allow-unpaged-list");
  });
});

describe("serve --no-answer-cache", () => {
  it("reaches the service as answerCache: false; by default answers are kept", async () => {
    const off = await listWithoutPageSize(["--allow-unpaged-list", "--no-answer-cache"]);
    expect(off.opened?.answerCache).toBe(false);
    expect(off.body).toStrictEqual({ results: ["w1", "w2"] });
    const on = await listWithoutPageSize(["--allow-unpaged-list"]);
    expect(on.opened?.answerCache).toBeUndefined();
    expect(SERVE_HELP).toContain("--no-answer-cache");
  });
});
