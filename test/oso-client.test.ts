/**
 * Compatibility: the official `oso-cloud` npm client (2.6.0) against our server (in-memory
 * PGlite) over a real socket. Every answer is checked; the local SQL it receives is executed
 * on real PostgreSQL with the expected rows.
 */

import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Oso, typedVar } from "oso-cloud";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { testEngines } from "./support/databases.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "oso-client-test-key";
const POLICY = readFileSync("examples/reference/12-2-nested-relations.polar", "utf8");

// Ticket → project links live in the application's table; roles and project → workspace links
// are stored centrally through the client.
const BINDINGS = `facts:
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets WHERE project_id IS NOT NULL
sql_types:
  Ticket: bigint
  Project: integer
`;
const SCHEMA = `
  CREATE TABLE tickets (id bigint PRIMARY KEY, project_id integer);
  INSERT INTO tickets VALUES (101, 10), (102, 11), (103, 10), (104, NULL);
`;

const user = (id: string) => ({ type: "User", id });
const ticket = (id: string) => ({ type: "Ticket", id });
const project = (id: string) => ({ type: "Project", id });
const workspace = (id: string) => ({ type: "Workspace", id });

const engines = testEngines();
let service: PolarService;
let server: ServerHandle;
let oso: Oso;
let dir: string;

beforeAll(async () => {
  service = await createService({ pool: sharedWorkerPool() });
  server = await startServer({
    app: createApp({ service, apiKeys: [KEY], logger: silentLogger }),
    port: 0,
    host: "127.0.0.1",
  });
  dir = await mkdtemp(join(tmpdir(), "polar-sql-oso-"));
  await writeFile(join(dir, "bindings.yaml"), BINDINGS);
  oso = new Oso(server.url, ` ${KEY}\n`, { dataBindings: join(dir, "bindings.yaml") });
  for (const engine of engines) await (await engine.db()).exec(SCHEMA);
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `sql` on every engine and returns the rows (they must agree). Numbers become strings:
 * drivers differ on bigint.
 */
async function onEveryEngine(sql: string): Promise<Record<string, unknown>[]> {
  const results = [];
  for (const engine of engines) {
    const rows = await (await engine.db()).query(sql);
    results.push(
      rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === "number" ? String(v) : v]),
        ),
      ),
    );
  }
  for (const rows of results.slice(1)) expect(rows).toEqual(results[0]);
  return results[0]!;
}

const ids = (rows: Record<string, unknown>[], column: string) =>
  rows.map((row) => String(row[column])).sort();

describe("the oso-cloud client against polar-sql", () => {
  it("uploads a policy (and gets 'unchanged' the second time) and reads it back", async () => {
    await oso.policy(POLICY);
    await oso.policy(POLICY);
    const again = await fetch(`${server.url}/api/policy`, {
      method: "POST",
      headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ src: POLICY, filename: "" }),
    });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ message: expect.stringMatching(/^policy unchanged/) });
    expect(again.headers.get("OsoOffset")).toMatch(/^[0-9]+$/);
    // The npm client sends `filename: ""`.
    expect(await oso.api.getPolicy()).toEqual({ policy: { filename: "", src: POLICY } });
    const metadata = await oso.getPolicyMetadata();
    expect(metadata.resources.Project).toEqual({
      roles: ["contributor", "maintainer"],
      permissions: ["edit", "view"],
      relations: { workspace: "Workspace" },
    });
    expect(Object.keys(metadata.resources).sort()).toEqual([
      "Project",
      "Ticket",
      "User",
      "Workspace",
      "global",
    ]);
  });

  it("refuses an invalid policy with the first error in the message", async () => {
    await expect(oso.policy('actor User {}\nresource Doc { "read" if "nope"; }\n')).rejects.toThrow(
      /^Oso Cloud error: .*:2:.* \(Request ID: [0-9a-f-]{36}\)$/,
    );
    expect((await oso.api.getPolicy()).policy?.src).toBe(POLICY);
  });

  it("inserts, batches, gets and deletes facts", async () => {
    await oso.insert(["has_role", user("17"), "member", workspace("1")]);
    await oso.batch((tx) => {
      tx.insert(["has_role", user("18"), "admin", workspace("2")]);
      tx.insert(["has_relation", project("10"), "workspace", workspace("1")]);
      tx.insert(["has_relation", project("11"), "workspace", workspace("2")]);
      tx.insert(["has_relation", ticket("101"), "project", project("10")]);
      tx.insert(["has_relation", ticket("102"), "project", project("11")]);
      tx.insert(["has_relation", ticket("900"), "project", project("10")]);
      tx.insert(["has_role", user("99"), "member", workspace("1")]);
    });
    expect(await oso.get(["has_role", user("17"), null, null])).toEqual([
      ["has_role", user("17"), { type: "String", id: "member" }, workspace("1")],
    ]);
    expect(await oso.get(["has_role", null, "member", { type: "Workspace" }])).toHaveLength(2);

    await oso.delete(["has_role", user("99"), null, null]);
    await oso.batch((tx) => {
      tx.delete(["has_relation", ticket("900"), "project", null]);
    });
    expect(await oso.get(["has_role", user("99"), null, null])).toEqual([]);
    expect(await oso.get(["has_relation", ticket("900"), null, null])).toEqual([]);
    expect(await oso.get(["has_relation", { type: "Ticket" }, null, null])).toHaveLength(2);
  });

  it("refuses a fact with an unknown predicate, atomically", async () => {
    await expect(
      oso.batch((tx) => {
        tx.insert(["has_role", user("50"), "member", workspace("1")]);
        tx.insert(["has_rol", user("50"), "member", workspace("1")]);
      }),
    ).rejects.toThrow(/^Oso Cloud error: .*has_rol/);
    expect(await oso.get(["has_role", user("50"), null, null])).toEqual([]);
  });

  it("authorize, with and without context facts", async () => {
    expect(await oso.authorize(user("17"), "view", ticket("101"))).toBe(true);
    expect(await oso.authorize(user("17"), "close", ticket("101"))).toBe(false);
    expect(await oso.authorize(user("17"), "view", ticket("102"))).toBe(false);
    expect(await oso.authorize(user("18"), "close", ticket("102"))).toBe(true);
    expect(await oso.authorize(user("17"), "fly", ticket("101"))).toBe(false);
    expect(
      await oso.authorize(user("17"), "view", ticket("555"), [
        ["has_relation", ticket("555"), "project", project("10")],
      ]),
    ).toBe(true);
  });

  it("list and actions", async () => {
    expect(await oso.list(user("17"), "view", "Ticket")).toEqual(["101"]);
    expect((await oso.list(user("18"), "comment", "Ticket")).sort()).toEqual(["102"]);
    expect(await oso.list(user("17"), "view", "Spaceship")).toEqual([]);
    expect((await oso.actions(user("17"), ticket("101"))).sort()).toEqual(["comment", "view"]);
    expect((await oso.actions(user("18"), ticket("102"))).sort()).toEqual([
      "close",
      "comment",
      "view",
    ]);
    expect(await oso.actions(user("17"), ticket("102"))).toEqual([]);
  });

  it("buildQuery(...).evaluate", async () => {
    const t = typedVar("Ticket");
    expect(await oso.buildQuery(["allow", user("17"), "view", t]).evaluate(t)).toEqual(["101"]);
    expect(await oso.buildQuery(["allow", user("17"), "view", ticket("101")]).evaluate()).toBe(
      true,
    );
    const u = typedVar("User");
    const w = typedVar("Workspace");
    const pairs = await oso.buildQuery(["has_role", u, "member", w]).evaluate([u, w]);
    // `"member" if "admin"` makes the workspace admin a member too.
    expect(pairs.sort()).toEqual([
      ["17", "1"],
      ["18", "2"],
    ]);
    const action = typedVar("String");
    const grouped = await oso
      .buildQuery(["allow", user("18"), action, t])
      .in(t, ["102", "101"])
      .evaluate(new Map([[t, action]]));
    expect(grouped.get("102")?.sort()).toEqual(["close", "comment", "view"]);
    expect(grouped.has("101")).toBe(false);
  });

  it("authorizeLocal: the SQL answers on PostgreSQL", async () => {
    const yes = await oso.authorizeLocal(user("17"), "view", ticket("103"));
    expect(await onEveryEngine(yes)).toEqual([{ allowed: true }]);
    const no = await oso.authorizeLocal(user("17"), "view", ticket("102"));
    expect(await onEveryEngine(no)).toEqual([{ allowed: false }]);
    const unknown = await oso.authorizeLocal(user("17"), "fly", ticket("101"));
    expect(await onEveryEngine(unknown)).toEqual([{ allowed: false }]);
  });

  it("actionsLocal: the SQL answers on PostgreSQL", async () => {
    const sql = await oso.actionsLocal(user("18"), ticket("102"));
    expect(ids(await onEveryEngine(sql), "actions")).toEqual(["close", "comment", "view"]);
    const none = await oso.actionsLocal(user("17"), ticket("104"));
    expect(await onEveryEngine(none)).toEqual([]);
  });

  it("listLocal: the fragment filters the table on PostgreSQL", async () => {
    const fragment = await oso.listLocal(user("17"), "view", "Ticket", "tickets.id");
    expect(fragment).toMatch(/^tickets\.id = any\(array\(/);
    const rows = await onEveryEngine(`SELECT id FROM tickets WHERE ${fragment}`);
    expect(ids(rows, "id")).toEqual(["101", "103"]);
    const admin = await oso.listLocal(user("18"), "close", "Ticket", "id");
    expect(ids(await onEveryEngine(`SELECT id FROM tickets WHERE ${admin}`), "id")).toEqual([
      "102",
    ]);
  });

  it("evaluateLocalSelect and evaluateLocalFilter", async () => {
    const t = typedVar("Ticket");
    const query = oso.buildQuery(["allow", user("17"), "view", t]);
    const select = await query.evaluateLocalSelect({ ticket_id: t });
    expect(ids(await onEveryEngine(select), "ticket_id")).toEqual(["101", "103"]);
    const exists = await query.evaluateLocalSelect();
    expect(await onEveryEngine(exists)).toEqual([{ result: true }]);
    const filter = await query.evaluateLocalFilter("tickets.id", t);
    const rows = await onEveryEngine(`SELECT id FROM tickets WHERE ${filter}`);
    expect(ids(rows, "id")).toEqual(["101", "103"]);
  });

  it("clears the data and keeps the policy", async () => {
    await oso.api.clearData();
    expect(await oso.get(["has_role", null, null, null])).toEqual([]);
    expect(await oso.authorize(user("17"), "view", ticket("101"))).toBe(false);
    expect((await oso.api.getPolicy()).policy?.src).toBe(POLICY);
  });

  it("refuses a wrong API key with a 401 the client reports", async () => {
    const stranger = new Oso(server.url, "not-the-key");
    await expect(stranger.authorize(user("17"), "view", ticket("101"))).rejects.toThrow(
      /^Oso Cloud error: invalid API key \(Request ID: /,
    );
  });
});
