/**
 * Compatibility: the official `oso-cloud` npm client 1.6.1 (installed as `oso-cloud-v1`) and
 * 2.6.0 against one server, every method of 1.6.1, and the 2.6.0 methods that
 * test/oso-client.test.ts leaves out (listPaginated, withContextFacts, parity handles). Each
 * 1.x answer is compared with the 2.x client's answer to the same question.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Oso as Oso2, ParityHandle, typedVar } from "oso-cloud";
import { Oso as Oso1 } from "oso-cloud-v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "oso-client-v1-key";
const POLICY = `actor User {}
resource Workspace { roles = ["member", "admin"]; "member" if "admin"; }
resource Project {
  roles = ["contributor", "maintainer"];
  permissions = ["view", "edit"];
  relations = { workspace: Workspace };
  "contributor" if "member" on "workspace";
  "maintainer" if "admin" on "workspace";
  "contributor" if "maintainer";
  "view" if "contributor";
  "edit" if "maintainer";
}
resource Ticket {
  permissions = ["view", "comment", "close"];
  relations = { project: Project, reporter: User };
  "view" if "view" on "project";
  "comment" if "view";
  "close" if "edit" on "project" or "reporter";
}
has_role(_: User, "guest", _: Workspace);
`;
const BINDINGS = `facts:
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets
`;

const user = (id: string) => ({ type: "User", id });
const ticket = (id: string) => ({ type: "Ticket", id });
const project = (id: string) => ({ type: "Project", id });
const workspace = (id: string) => ({ type: "Workspace", id });

interface Served {
  service: PolarService;
  server: ServerHandle;
}

async function serve(allowUnpagedList: boolean): Promise<Served> {
  const service = await createService({ allowUnpagedList, pool: sharedWorkerPool() });
  const server = await startServer({
    app: createApp({ service, apiKeys: [KEY], logger: silentLogger }),
    port: 0,
    host: "127.0.0.1",
  });
  return { service, server };
}

let unpaged: Served;
let paged: Served;
let v1: Oso1;
let v2: Oso2;
let dir: string;

beforeAll(async () => {
  unpaged = await serve(true);
  paged = await serve(false);
  dir = await mkdtemp(join(tmpdir(), "polar-sql-oso-v1-"));
  await writeFile(join(dir, "bindings.yaml"), BINDINGS);
  const options = { dataBindings: join(dir, "bindings.yaml") };
  v1 = new Oso1(unpaged.server.url, KEY, options);
  v2 = new Oso2(unpaged.server.url, KEY, options);
});

afterAll(async () => {
  for (const served of [unpaged, paged]) {
    await served?.server.close();
    await served?.service.close();
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sorted = <T>(items: readonly T[]) =>
  [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe("the 1.6.1 client", () => {
  it("policy, getPolicyMetadata and api.getPolicy answer as the 2.x client", async () => {
    await v1.policy(POLICY);
    expect(await v1.getPolicyMetadata()).toEqual(await v2.getPolicyMetadata());
    expect(await v1.api.getPolicy()).toEqual({ policy: { filename: "", src: POLICY } });
  });

  it("tell inserts one fact and answers the stored fact", async () => {
    expect(await v1.tell("has_role", user("ada"), "member", workspace("acme"))).toEqual([
      "has_role",
      user("ada"),
      "member",
      workspace("acme"),
    ]);
    // Integer ids come back canonical, as they are stored.
    await v1.policy(`${POLICY}\nhas_permission(u: User, "audit", _: Workspace) if level(u, 3);\n`);
    expect(await v1.tell("level", user("ada"), { type: "Integer", id: "0003" })).toEqual([
      "level",
      user("ada"),
      { type: "Integer", id: "3" },
    ]);
    expect(await v2.authorize(user("ada"), "audit", workspace("w9"))).toBe(true);
    expect(await v1.get("has_role", user("ada"), null, null)).toEqual([
      ["has_role", user("ada"), "member", workspace("acme")],
    ]);
    expect(await v2.get(["has_role", user("ada"), null, null])).toEqual([
      ["has_role", user("ada"), { type: "String", id: "member" }, workspace("acme")],
    ]);
  });

  it("tell refuses a wildcard, an unknown predicate and an empty id, writing nothing", async () => {
    await expect(v1.tell("has_role", user("bob"), null, workspace("acme"))).rejects.toThrow(
      /^Oso Cloud error: `args\.1\.type` must be a string/,
    );
    await expect(v1.tell("has_rol", user("bob"), "member", workspace("acme"))).rejects.toThrow(
      /^Oso Cloud error: .*has_rol/,
    );
    await expect(
      v1.tell("has_role", { type: "User", id: "" }, "member", workspace("a")),
    ).rejects.toThrow(/^Oso Cloud error: `args\.0\.id` must not be empty$/);
    expect(await v1.get("has_role", user("bob"), null, null)).toEqual([]);
  });

  it("bulkTell, delete with wildcards, bulkDelete and bulk", async () => {
    await v1.bulkTell([
      ["has_role", user("bob"), "admin", workspace("acme")],
      ["has_role", user("cy"), "member", workspace("beta")],
      ["has_role", user("cy"), "admin", workspace("gamma")],
      ["has_relation", project("api"), "workspace", workspace("acme")],
      ["has_relation", project("web"), "workspace", workspace("beta")],
      ["has_relation", ticket("t1"), "project", project("api")],
      ["has_relation", ticket("t2"), "project", project("web")],
      ["has_relation", ticket("t3"), "project", project("api")],
      ["has_relation", ticket("t1"), "reporter", user("dee")],
    ]);
    expect(await v1.get("has_role", user("cy"), null, null)).toHaveLength(2);
    // A typed wildcard: every workspace role of cy.
    await v1.delete("has_role", user("cy"), null, { type: "Workspace" });
    expect(await v1.get("has_role", user("cy"), null, null)).toEqual([]);
    // The exact fact, then an untyped wildcard.
    await v1.delete("has_relation", ticket("t3"), "project", project("api"));
    await v1.tell("has_relation", ticket("t9"), "project", project("web"));
    await v1.delete("has_relation", ticket("t9"), null, null);
    expect(await v1.get("has_relation", ticket("t3"), null, null)).toEqual([]);
    expect(await v1.get("has_relation", ticket("t9"), null, null)).toEqual([]);
    // Deleting what is not there is not an error.
    await v1.delete("has_role", user("nobody"), "member", workspace("acme"));
    await v1.bulkDelete([
      ["has_role", user("bob"), "admin", workspace("acme")],
      ["has_role", user("nobody"), null, null],
    ]);
    expect(await v1.get("has_role", user("bob"), null, null)).toEqual([]);
    // bulk: deletes first, then inserts, in one transaction.
    await v1.bulk(
      [["has_role", null, "member", { type: "Workspace" }]],
      [
        ["has_role", user("ada"), "member", workspace("acme")],
        ["has_role", user("bob"), "admin", workspace("acme")],
      ],
    );
    expect(sorted(await v1.get("has_role", null, null, null))).toEqual(
      sorted([
        ["has_role", user("ada"), "member", workspace("acme")],
        ["has_role", user("bob"), "admin", workspace("acme")],
      ]),
    );
  });

  it("a failing bulk changes nothing", async () => {
    await expect(
      v1.bulk([["has_role", null, null, null]], [["has_rol", user("x"), "member", workspace("a")]]),
    ).rejects.toThrow(/^Oso Cloud error: .*has_rol/);
    expect(await v1.get("has_role", null, null, null)).toHaveLength(2);
    await expect(
      v1.api.postBulkDelete([{ predicate: "has_role", args: [{ type: null, id: "x" }] }]),
    ).rejects.toThrow(/has an id but no type/);
  });

  it("authorize, authorizeResources, actions and list answer as the 2.x client", async () => {
    const questions: [string, string, { type: string; id: string }][] = [
      ["ada", "view", ticket("t1")],
      ["ada", "close", ticket("t1")],
      ["bob", "close", ticket("t1")],
      ["dee", "close", ticket("t1")],
      ["dee", "view", ticket("t1")],
      ["ada", "view", ticket("t2")],
    ];
    for (const [actor, action, resource] of questions) {
      const answer = await v1.authorize(user(actor), action, resource);
      expect(answer, `${actor} ${action}`).toBe(await v2.authorize(user(actor), action, resource));
    }
    expect(await v1.authorize(user("ada"), "view", ticket("t1"))).toBe(true);
    expect(await v1.authorize(user("ada"), "close", ticket("t1"))).toBe(false);
    const context: [string, ...unknown[]][] = [
      ["has_relation", ticket("t7"), "project", project("api")],
    ];
    expect(await v1.authorize(user("ada"), "view", ticket("t7"), context as never)).toBe(true);
    const resources = [ticket("t2"), ticket("t1"), ticket("t1"), ticket("t9")];
    expect(await v1.authorizeResources(user("ada"), "view", resources)).toEqual([
      ticket("t1"),
      ticket("t1"),
    ]);
    for (const actor of ["ada", "bob", "dee"]) {
      expect(await v1.actions(user(actor), ticket("t1"))).toEqual(
        await v2.actions(user(actor), ticket("t1")),
      );
      expect(await v1.list(user(actor), "view", "Ticket")).toEqual(
        await v2.list(user(actor), "view", "Ticket"),
      );
    }
    expect(await v1.list(user("bob"), "close", "Ticket")).toEqual(["t1"]);
    expect(await v1.list(user("ada"), "view", "Spaceship")).toEqual([]);
  });

  it("bulkActions answers as actions per resource; context facts apply to every resource", async () => {
    const resources = [ticket("t1"), ticket("t2"), ticket("t1"), ticket("t7")];
    const context = [["has_relation", ticket("t7"), "project", project("api")]];
    const answers = await v1.bulkActions(user("bob"), resources, context as never);
    const expected = [];
    for (const resource of resources)
      expected.push(await v2.actions(user("bob"), resource, context as never));
    expect(answers).toEqual(expected);
    expect(answers[3]).toEqual(["close", "comment", "view"]);
    expect(await v1.bulkActions(user("bob"), [])).toEqual([]);
    const many = Array.from({ length: 101 }, (_, i) => ({
      actor_type: "User",
      actor_id: `u${i}`,
      resource_type: "Ticket",
      resource_id: "t1",
    }));
    await expect(v1.api.postBulkActions(many as never)).rejects.toThrow(
      /asks about 101 actor and resource type pairs \(at most 100\); split the request/,
    );
    expect(await v1.bulkActions(user("nobody"), [ticket("t1")])).toEqual([[]]);
  });

  it("query with concrete values, typed and untyped wildcards, as buildQuery answers", async () => {
    // Derived facts: allow, with a typed wildcard for the resource.
    const allowed = await v1.query("allow", user("bob"), "close", { type: "Ticket" });
    const t = typedVar("Ticket");
    const ids = await v2.buildQuery(["allow", user("bob"), "close", t]).evaluate(t);
    expect(allowed).toEqual(ids.sort().map((id) => ["allow", user("bob"), "close", ticket(id)]));
    // Untyped wildcards: the action, and every argument of has_role.
    const anyAction = await v1.query("allow", user("ada"), null, ticket("t1"));
    expect(anyAction).toEqual([
      ["allow", user("ada"), "comment", ticket("t1")],
      ["allow", user("ada"), "view", ticket("t1")],
    ]);
    const roles = await v1.query("has_role", null, null, null);
    // The universal `has_role(_: User, "guest", _: Workspace)` is a wildcard answer.
    expect(roles).toContainEqual(["has_role", { type: "User" }, "guest", { type: "Workspace" }]);
    expect(roles).toContainEqual(["has_role", user("ada"), "member", workspace("acme")]);
    expect(roles).toContainEqual(["has_role", user("bob"), "member", workspace("acme")]);
    const u = typedVar("User");
    const w = typedVar("Workspace");
    const pairs = await v2.buildQuery(["has_role", u, "member", w]).evaluate([u, w]);
    const members = roles.filter((f) => f[2] === "member" && typeof f[1] === "object" && f[1]?.id);
    expect(
      sorted(members.map((f) => [(f[1] as { id: string }).id, (f[3] as { id: string }).id])),
    ).toEqual(sorted(pairs));
    // A wildcard typed `Actor` stands for every actor type.
    expect(await v1.query("allow", { type: "Actor" }, "close", ticket("t1"))).toEqual([
      ["allow", user("bob"), "close", ticket("t1")],
      ["allow", user("dee"), "close", ticket("t1")],
    ]);
    // Context facts count for this question only.
    const withContext = await v1.query_with_context(["has_relation", ticket("t8"), null, null], {
      contextFacts: [["has_relation", ticket("t8"), "project", project("web")]],
    });
    expect(withContext).toEqual([["has_relation", ticket("t8"), "project", project("web")]]);
    expect(await v1.query("has_relation", ticket("t8"), null, null)).toEqual([]);
  });

  it("query refuses an unknown predicate and too many type combinations", async () => {
    await expect(v1.query("has_rol", null, null)).rejects.toThrow(/unknown predicate `has_rol\/2`/);
    await expect(v1.query("has_rol", user("a"), null)).rejects.toThrow(/has_rol/);
    await v1.policy(`${POLICY}\nanything(a, b, c, d) if a = b and c = d;\n`);
    await expect(v1.query("anything", null, null, null, null)).rejects.toThrow(
      /combinations of types \(at most 64\); give the wildcards a type/,
    );
    await v1.policy(POLICY);
  });

  it("api.getStats counts stored facts", async () => {
    const all = await v2.get(["has_role", null, null, null]);
    const relations = await v2.get(["has_relation", null, null, null]);
    const stats = (await v1.api.getStats()) as unknown;
    expect(stats).toEqual({
      num_roles: all.length,
      num_relations: relations.length,
      num_facts: all.length + relations.length + 1,
    });
  });

  it("authorizeLocal and listLocal send the same SQL as the 2.x client", async () => {
    expect(await v1.authorizeLocal(user("ada"), "view", ticket("t1"))).toBe(
      await v2.authorizeLocal(user("ada"), "view", ticket("t1")),
    );
    expect(await v1.listLocal(user("ada"), "view", "Ticket", "tickets.id")).toBe(
      await v2.listLocal(user("ada"), "view", "Ticket", "tickets.id"),
    );
  });

  it("list without the switch is refused with a message naming it", async () => {
    const strict = new Oso1(paged.server.url, KEY);
    await strict.policy(POLICY);
    await expect(strict.list(user("ada"), "view", "Ticket")).rejects.toThrow(
      /`page_size` is required .*`--allow-unpaged-list`/,
    );
  });

  it("refuses a wrong key as the 2.x client sees it", async () => {
    await expect(
      new Oso1(unpaged.server.url, "nope").authorize(user("a"), "b", ticket("c")),
    ).rejects.toThrow(/^Oso Cloud error: invalid API key$/);
  });
});

describe("the 2.6.0 client, methods not covered by oso-client.test.ts", () => {
  it("listPaginated: a last page has no next_page_token key", async () => {
    const page = await v2.listPaginated(user("ada"), "view", "Ticket", 10_000);
    expect(page).toEqual({ results: ["t1"], nextPageToken: null });
    const raw = await fetch(`${unpaged.server.url}/api/list`, {
      method: "POST",
      headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        actor_type: "User",
        actor_id: "ada",
        action: "view",
        resource_type: "Ticket",
        page_size: 10_000,
      }),
    });
    expect(Object.keys((await raw.json()) as object)).toEqual(["results"]);
    await expect(v2.listPaginated(user("ada"), "view", "Ticket", 10)).rejects.toThrow(
      /`page_size` must be at least 10000/,
    );
  });

  it("buildQuery(...).withContextFacts", async () => {
    const t = typedVar("Ticket");
    const found = await v2
      .buildQuery(["allow", user("ada"), "view", t])
      .withContextFacts([["has_relation", ticket("t5"), "project", project("api")]])
      .evaluate(t);
    expect(found.sort()).toEqual(["t1", "t5"]);
  });

  it("authorize with a parity handle posts the expectation", async () => {
    const handle = new ParityHandle();
    expect(await v2.authorize(user("ada"), "view", ticket("t1"), { parityHandle: handle })).toBe(
      true,
    );
    handle.expect(true);
    // The handle sends without awaiting; a refused /expect would be an unhandled rejection.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
