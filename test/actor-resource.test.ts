/**
 * A type that is both an actor and a resource (`actor User {}` plus `resource User { … }`):
 * the reference evaluator, local SQL (against the evaluator, on PostgreSQL) and the central
 * service answer questions where users act on users.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { actions, authorize, list } from "../src/evaluate/index.js";
import { createService } from "../src/service/service.js";
import { factSpace, routedFacts } from "./local-families.js";
import { checked, compareAll, type Family, load, prepare } from "./local-support.js";
import { testEngines } from "./support/databases.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const POLICY = `actor User {}
resource Team {
  roles = ["member", "lead"];
  permissions = ["read"];
  "member" if "lead";
  "read" if "member";
}
resource User {
  roles = ["friend", "manager"];
  permissions = ["view", "edit"];
  relations = { team: Team };
  "friend" if "manager";
  "view" if "friend";
  "edit" if "manager";
  "view" if "member" on "team";
  "edit" if "lead" on "team";
}`;

const user = (id: string): Value => ({ type: "User", id });
const team = (id: string): Value => ({ type: "Team", id });
const str = (id: string): Value => ({ type: "String", id });

const family: Family = {
  name: "actorres",
  policy: POLICY,
  bindings: ["has_role(User:_, String:_, User:_)", "has_relation(User:_, team, Team:_)"],
  sqlTypes: { User: "integer", Team: "integer" },
  domain: { User: ["1", "2", "3"], Team: ["10", "11"] },
  actors: ["1", "2", "3"].map(user),
  actions: ["view", "edit", "read"],
  resourceTypes: ["User", "Team"],
};

const space: GroundFact[] = [
  ...factSpace(
    "has_role",
    ["1", "2", "3"].map(user),
    [str("friend"), str("manager")],
    [user("1"), user("2"), user("3")],
  ),
  ...factSpace(
    "has_role",
    ["1", "2"].map(user),
    [str("member"), str("lead")],
    [team("10"), team("11")],
  ),
  ...factSpace("has_relation", ["1", "2", "3"].map(user), [str("team")], [team("10"), team("11")]),
];

// Ada manages Bob; Cy leads team 10, which Bob belongs to.
const FACTS: GroundFact[] = [
  { predicate: "has_role", args: [user("ada"), str("manager"), user("bob")] },
  { predicate: "has_role", args: [user("cy"), str("lead"), team("10")] },
  { predicate: "has_relation", args: [user("bob"), str("team"), team("10")] },
];

describe("the reference evaluator", () => {
  const program = checked(POLICY);
  it("answers users acting on users, through both blocks' declarations", () => {
    expect(authorize(program, FACTS, user("ada"), "edit", user("bob"))).toBe(true);
    expect(authorize(program, FACTS, user("bob"), "view", user("ada"))).toBe(false);
    expect(authorize(program, FACTS, user("cy"), "edit", user("bob"))).toBe(true);
    expect(authorize(program, FACTS, user("cy"), "read", team("10"))).toBe(true);
    expect(list(program, FACTS, user("ada"), "view", "User")).toEqual(["bob"]);
    expect(list(program, FACTS, user("cy"), "view", "User")).toEqual(["bob"]);
    expect(actions(program, FACTS, user("ada"), user("bob")).sort()).toEqual(["edit", "view"]);
  });
});

describe.each(testEngines())("local SQL on $name", (engine) => {
  it("matches the evaluator with facts in tables, central store and context", async () => {
    const db = await engine.db();
    const prepared = await prepare(db, family);
    await fc.assert(
      fc.asyncProperty(routedFacts(space, ["local", "central", "context"]), async (facts) => {
        await compareAll(db, prepared, await load(db, prepared, facts));
      }),
      { numRuns: 12 },
    );
  });
});

describe("the central service", () => {
  let service: PolarService;
  beforeAll(async () => {
    service = await createService({ pool: sharedWorkerPool() });
    await service.postPolicy({ src: POLICY, filename: "users.polar" }, {});
    await service.batch([{ inserts: FACTS }]);
  });
  afterAll(() => service?.close());

  const ask = async (actor: string, action: string, type: string, id: string) =>
    (
      await service.authorize({
        actor_type: "User",
        actor_id: actor,
        action,
        resource_type: type,
        resource_id: id,
      })
    ).body;

  it("authorizes and lists users as resources", async () => {
    expect(await ask("ada", "edit", "User", "bob")).toEqual({ allowed: true });
    expect(await ask("bob", "edit", "User", "ada")).toEqual({ allowed: false });
    expect(await ask("cy", "edit", "User", "bob")).toEqual({ allowed: true });
    const listed = await service.list({
      actor_type: "User",
      actor_id: "cy",
      action: "view",
      resource_type: "User",
      page_size: 10_000,
    });
    expect((listed.body as { results: string[] }).results).toEqual(["bob"]);
    const metadata = (await service.policyMetadata()).body as {
      metadata: { resources: Record<string, unknown> };
    };
    expect(metadata.metadata.resources.User).toEqual({
      roles: ["friend", "manager"],
      permissions: ["edit", "view"],
      relations: { team: "Team" },
    });
  });

  it("refuses a fact the policy cannot use", async () => {
    await expect(
      service.batch([{ inserts: [{ predicate: "has_friend", args: [user("a"), user("b")] }] }]),
    ).rejects.toThrow(/has_friend/);
  });
});
