/**
 * The central service's writes and policy handling (issue 5): atomic batches, wildcard deletes,
 * `GET /facts` patterns, `clear_data`, policy replacement and metadata, fact validation, and
 * what a store without a policy does.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError, type PolarService } from "../src/api/service.js";
import { createService } from "../src/service/service.js";
import { describeServiceEngines, serverSchema } from "./support/central-services.js";
import { propertyRuns } from "./support/runs.js";

const example = (file: string) =>
  readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8");
const NESTED = example("reference/12-2-nested-relations.polar");
const GITCLUB = example("gitclub.polar");
const ATTRIBUTES = example("reference/12-5-attributes-not.polar");

type Arg = { type: string | null; id: string | null };
const v = (type: string, id: string) => ({ type, id });
const fact = (predicate: string, ...args: Arg[]) => ({ predicate, args });
const role = (user: string, name: string, type: string, id: string) =>
  fact("has_role", v("User", user), v("String", name), v(type, id));

/** The refusal a call ends with; fails the test when the call succeeds. */
async function refusal(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (cause) {
    if (cause instanceof ApiError) return cause;
    throw cause;
  }
  throw new Error("the call was not refused");
}

async function stored(service: PolarService, predicate: string, query: [string, string][] = []) {
  const reply = await service.getFacts(new Map([["predicate", predicate], ...query]));
  return reply.body as { predicate: string; args: Arg[] }[];
}

async function withPolicy(service: PolarService, src: string): Promise<void> {
  await service.postPolicy({ src, filename: "policy.polar" }, {});
  await service.clearData();
}

describeServiceEngines({}, "central store on $name", (engine) => {
  describe("batches", () => {
    it("a bad fact in the middle of a batch stores nothing and is named", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      await service.batch([{ inserts: [role("ada", "member", "Workspace", "acme")] }]);
      const before = await service.getFacts(new Map([["predicate", "has_role"]]));
      const refused = await refusal(
        service.batch([
          {
            deletes: [
              fact(
                "has_role",
                v("User", "ada"),
                { type: null, id: null },
                { type: null, id: null },
              ),
            ],
          },
          { inserts: [role("bo", "member", "Workspace", "acme")] },
          { inserts: [role("cy", "admin", "Workspace", "acme"), fact("nope", v("User", "cy"))] },
          { inserts: [role("dee", "admin", "Workspace", "acme")] },
        ]),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain('`nope(User{"cy"})`');
      expect(refused.message).toContain("unknown predicate `nope/1`");
      expect((await service.getFacts(new Map([["predicate", "has_role"]]))).body).toEqual(
        before.body,
      );
    });

    it("a fact the database itself refuses rolls the whole batch back", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      await service.batch([{ inserts: [role("ada", "member", "Workspace", "acme")] }]);
      // PostgreSQL text cannot hold NUL; nothing of the batch may remain either way.
      const refused = await refusal(
        service.batch([
          {
            deletes: [
              fact("has_role", v("User", "ada"), v("String", "member"), v("Workspace", "acme")),
            ],
          },
          { inserts: [role("bo", "member", "Workspace", "acme")] },
          { inserts: [role("cy", "member", "Workspace", "ac\u0000me")] },
        ]),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain("NUL");
      expect(await stored(service, "has_role")).toEqual([
        role("ada", "member", "Workspace", "acme"),
      ]);
    });

    it("a later changeset sees the earlier ones: insert then delete leaves nothing", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      const grant = role("ada", "member", "Workspace", "acme");
      await service.batch([{ inserts: [grant] }, { deletes: [grant] }]);
      expect(await stored(service, "has_role")).toEqual([]);
      await service.batch([{ deletes: [grant] }, { inserts: [grant, grant] }]);
      expect(await stored(service, "has_role")).toEqual([grant]);
    });

    it("an empty batch is a no-op and every mutation raises the data version", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      const first = (await service.batch([])).dataVersion!;
      const second = (await service.batch([{ inserts: [] }])).dataVersion!;
      const third = (await service.clearData()).dataVersion!;
      expect(second).toBeGreaterThan(first);
      expect(third).toBeGreaterThan(second);
      const refused = await refusal(service.batch([{ inserts: [], deletes: [] }]));
      expect(refused.status).toBe(400);
    });

    it("deletes with wildcards match the exact type only and the same arity", async () => {
      const service = await engine.service();
      await withPolicy(service, GITCLUB);
      const user = fact("has_role", v("User", "ann"), v("String", "admin"));
      const bot = fact("has_role", v("Bot", "ci"), v("String", "reader"), v("Repository", "r"));
      const person = fact(
        "has_role",
        v("User", "ann"),
        v("String", "reader"),
        v("Repository", "r"),
      );
      const other = fact("has_role", v("User", "bob"), v("String", "writer"), v("Repository", "s"));
      const all = [user, bot, person, other];
      await service.batch([{ inserts: all }]);
      // `User` with any id: not the Bot fact (no subtypes), not the 2-argument fact.
      await service.batch([
        {
          deletes: [
            fact(
              "has_role",
              { type: "User", id: null },
              { type: null, id: null },
              v("Repository", "r"),
            ),
          ],
        },
      ]);
      expect(await stored(service, "has_role")).toEqual([user, bot, other]);
      await service.batch([
        {
          deletes: [
            fact(
              "has_role",
              { type: null, id: null },
              { type: null, id: null },
              { type: null, id: null },
            ),
          ],
        },
      ]);
      expect(await stored(service, "has_role")).toEqual([user]);
      await service.batch([
        { deletes: [fact("has_role", { type: null, id: null }, { type: null, id: null })] },
      ]);
      expect(await stored(service, "has_role")).toEqual([]);
    });

    it("a delete argument with an id but no type is refused and nothing is applied", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      const grant = role("ada", "member", "Workspace", "acme");
      const refused = await refusal(
        service.batch([
          { inserts: [grant] },
          { deletes: [fact("has_role", { type: null, id: "ada" }, { type: null, id: null })] },
        ]),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain("has an id but no type");
      expect(await stored(service, "has_role")).toEqual([]);
    });

    it("an Integer in a delete pattern matches its canonical stored form", async () => {
      const service = await engine.service();
      await withPolicy(service, ATTRIBUTES);
      await service.batch([
        { inserts: [fact("has_clearance", v("User", "bo"), v("Integer", "+004"))] },
      ]);
      expect(await stored(service, "has_clearance")).toEqual([
        fact("has_clearance", v("User", "bo"), v("Integer", "4")),
      ]);
      await service.batch([
        { deletes: [fact("has_clearance", v("User", "bo"), v("Integer", "04"))] },
      ]);
      expect(await stored(service, "has_clearance")).toEqual([]);
    });
  });

  describe("GET /facts", () => {
    it("matches sparse positions in facts of any arity, as a bare array", async () => {
      const service = await engine.service();
      await withPolicy(service, GITCLUB);
      const global = fact("has_role", v("User", "ann"), v("String", "admin"));
      const repo = fact("has_role", v("User", "ann"), v("String", "admin"), v("Repository", "r"));
      const org = fact("has_role", v("User", "bob"), v("String", "owner"), v("Organization", "o"));
      await service.batch([{ inserts: [global, repo, org] }]);
      expect(
        await stored(service, "has_role", [
          ["args.1.type", "String"],
          ["args.1.id", "admin"],
        ]),
      ).toEqual([global, repo]);
      expect(await stored(service, "has_role", [["args.2.type", "Organization"]])).toEqual([org]);
      expect(await stored(service, "has_role", [["args.0.type", "User"]])).toHaveLength(3);
      expect(await stored(service, "has_role", [["args.5.type", "User"]])).toEqual([]);
      expect(await stored(service, "has_relation")).toEqual([]);
    });

    it("refuses an unknown parameter, a missing predicate and an id without a type", async () => {
      const service = await engine.service();
      for (const query of [
        [
          ["predicate", "has_role"],
          ["args.x.id", "1"],
        ],
        [["args.0.type", "User"]],
        [
          ["predicate", "has_role"],
          ["args.0.id", "ann"],
        ],
      ] as [string, string][][]) {
        expect((await refusal(service.getFacts(new Map(query)))).status).toBe(400);
      }
    });

    it("a pattern is a filter: what it returns is what a filter over all facts returns", async () => {
      const service = await engine.service();
      await withPolicy(service, GITCLUB);
      const users = ["ann", "bob"].map((id) => v("User", id));
      const names = ["admin", "reader"].map((id) => v("String", id));
      const targets = [v("Repository", "r"), v("Organization", "o")];
      const all = [
        ...users.flatMap((u) => names.map((n) => fact("has_role", u, n))),
        ...users.flatMap((u) =>
          names.flatMap((n) => targets.map((t) => fact("has_role", u, n, t))),
        ),
      ];
      await service.batch([{ inserts: all }]);
      const position = fc.record(
        {
          type: fc.constantFrom("User", "String", "Repository"),
          id: fc.constantFrom("ann", "admin", "r"),
        },
        { requiredKeys: ["type"] },
      );
      const pattern = fc.dictionary(fc.constantFrom("0", "1", "2"), position, { maxKeys: 3 });
      await fc.assert(
        fc.asyncProperty(pattern, async (positions) => {
          const query: [string, string][] = Object.entries(positions).flatMap(([n, p]) => [
            [`args.${n}.type`, p.type] as [string, string],
            ...(p.id === undefined ? [] : [[`args.${n}.id`, p.id] as [string, string]]),
          ]);
          const expected = all.filter((f) =>
            Object.entries(positions).every(([n, p]) => {
              const arg = f.args[Number(n)];
              return arg?.type === p.type && (p.id === undefined || arg.id === p.id);
            }),
          );
          const got = await stored(service, "has_role", query);
          expect(got.map((f) => JSON.stringify(f)).sort()).toEqual(
            expected.map((f) => JSON.stringify(f)).sort(),
          );
        }),
        { numRuns: propertyRuns(8, 25) },
      );
    });
  });

  describe("policy", () => {
    it("clear_data deletes every fact and keeps the policy", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      await service.batch([{ inserts: [role("ada", "member", "Workspace", "acme")] }]);
      await service.clearData();
      expect(await stored(service, "has_role")).toEqual([]);
      expect((await service.getPolicy({})).body).toEqual({
        policy: { filename: "policy.polar", src: NESTED },
      });
    });

    it("an invalid policy is a Validation error with line and column; the old one stays", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      await service.batch([
        {
          inserts: [
            role("ada", "member", "Workspace", "acme"),
            fact(
              "has_relation",
              v("Project", "api"),
              v("String", "workspace"),
              v("Workspace", "acme"),
            ),
          ],
        },
      ]);
      const broken =
        'actor User {}\nresource Ticket {\n  permissions = ["view"];\n  "view" if "editor";\n}\n';
      const refused = await refusal(
        service.postPolicy({ src: broken, filename: "authz.polar" }, {}),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error_type).toBe("Validation");
      expect(refused.message).toMatch(/^authz\.polar:4:\d+: .*`editor`.* \(1 error\)$/);
      expect(refused.body.errors).toEqual([
        { error_type: "ValidationFailed", message: refused.message.replace(/ \(1 error\)$/, "") },
      ]);
      const syntax = await refusal(service.postPolicy({ src: "actor User {", filename: null }, {}));
      expect(syntax.body.error_type).toBe("Validation");
      expect(syntax.message).toMatch(/^policy\.polar:1:\d+: /);
      expect((await service.getPolicy({})).body).toEqual({
        policy: { filename: "policy.polar", src: NESTED },
      });
      const still = await service.authorize({
        actor_type: "User",
        actor_id: "ada",
        action: "view",
        resource_type: "Project",
        resource_id: "api",
      });
      expect(still.body).toEqual({ allowed: true });
    });

    it("a policy whose tests fail is TestsFailed with the results; the old one stays", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      const failing = `actor User {}
resource Doc { roles = ["reader"]; permissions = ["read"]; "read" if "reader"; }
test "readers read" {
  setup { has_role(User{"ada"}, "reader", Doc{"d"}); }
  assert allow(User{"ada"}, "read", Doc{"d"});
  assert allow(User{"bo"}, "read", Doc{"d"});
}
`;
      const refused = await refusal(service.postPolicy({ src: failing, filename: "" }, {}));
      expect(refused.status).toBe(400);
      expect(refused.body.error_type).toBe("TestsFailed");
      expect(refused.message).toBe(
        'test `readers read` failed: allow(User{"bo"}, "read", Doc{"d"})',
      );
      expect(refused.body.test_results).toEqual({
        success: false,
        errors: [{ error_type: "AssertionFailed", message: refused.message }],
        tests: [{ name: "readers read", passed: 1, total: 2 }],
      });
      expect((await service.getPolicy({})).body).toEqual({
        policy: { filename: "policy.polar", src: NESTED },
      });
    });

    it("the same policy again is 202 unchanged; a new one is 200 and moves the offset", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      const again = await service.postPolicy({ src: NESTED, filename: "policy.polar" }, {});
      expect(again.status).toBe(202);
      expect(again.body).toEqual({ message: "policy unchanged" });
      const changed = await service.postPolicy({ src: `${NESTED}\n`, filename: "b.polar" }, {});
      expect(changed.status ?? 200).toBe(200);
      expect(changed.body).toEqual({ message: "policy updated" });
      expect(changed.dataVersion).toBeGreaterThan(again.dataVersion!);
      expect((await service.getPolicy({})).body).toEqual({
        policy: { filename: "b.polar", src: `${NESTED}\n` },
      });
    });

    it("policy metadata lists roles, permissions and relations per type, with global", async () => {
      const service = await engine.service();
      await withPolicy(service, NESTED);
      expect((await service.policyMetadata()).body).toEqual({
        metadata: {
          resources: {
            User: { roles: [], permissions: [], relations: {} },
            Workspace: { roles: ["admin", "member"], permissions: [], relations: {} },
            Project: {
              roles: ["contributor", "maintainer"],
              permissions: ["edit", "view"],
              relations: { workspace: "Workspace" },
            },
            Ticket: {
              roles: [],
              permissions: ["close", "comment", "view"],
              relations: { project: "Project", reporter: "User" },
            },
            global: { roles: [], permissions: [], relations: {} },
          },
        },
      });
      await withPolicy(service, GITCLUB);
      const { resources } = (
        (await service.policyMetadata()).body as {
          metadata: { resources: Record<string, unknown> };
        }
      ).metadata;
      // Subtypes list what they inherit.
      expect(resources.Issue).toEqual({
        roles: [],
        permissions: ["assign", "close", "comment", "delete", "edit", "read"],
        relations: { assignee: "User", creator: "User", repository: "Repository" },
      });
      expect(resources.global).toEqual({
        roles: ["admin", "staff"],
        permissions: ["manage_billing", "view_audit_log"],
        relations: {},
      });
    });
  });

  describe("fact validation", () => {
    it("refuses unknown predicates, wrong types and oversized ids; accepts 384 bytes", async () => {
      const service = await engine.service();
      await withPolicy(service, GITCLUB);
      const unknown = await refusal(
        service.batch([{ inserts: [fact("is_shiny", v("Repository", "r"))] }]),
      );
      expect(unknown.message).toBe('unknown predicate `is_shiny/1`: `is_shiny(Repository{"r"})`');
      const wrongType = await refusal(
        service.batch([{ inserts: [fact("is_public", v("Repository", "r"), v("String", "yes"))] }]),
      );
      expect(wrongType.message).toBe(
        'argument 2 of `is_public` must be `Boolean`, got `String`: `is_public(Repository{"r"}, "yes")`',
      );
      const abstract = await refusal(
        service.batch([{ inserts: [fact("is_archived", v("Resource", "r"))] }]),
      );
      expect(abstract.status).toBe(400);
      const badInteger = await refusal(
        service.batch([
          {
            inserts: [
              fact("has_invitation", v("User", "a"), v("Repository", "r"), v("Integer", "1.5")),
            ],
          },
        ]),
      );
      expect(badInteger.message).toContain("`Integer` id `1.5` is not a 64-bit integer");
      const empty = await refusal(
        service.batch([{ inserts: [fact("is_archived", v("Repository", ""))] }]),
      );
      expect(empty.status).toBe(400);

      const fits = "€".repeat(128); // 384 bytes in UTF-8
      await service.batch([{ inserts: [fact("is_archived", v("Repository", fits))] }]);
      expect(await stored(service, "is_archived")).toEqual([
        fact("is_archived", v("Repository", fits)),
      ]);
      const tooLong = await refusal(
        service.batch([{ inserts: [fact("is_archived", v("Repository", `${fits}a`))] }]),
      );
      expect(tooLong.message).toContain("fact argument exceeds 384 bytes");
      expect(await stored(service, "is_archived")).toHaveLength(1);
    });

    it("checks context facts against the policy too", async () => {
      const service = await engine.service();
      await withPolicy(service, GITCLUB);
      const question = {
        actor_type: "User",
        actor_id: "a",
        action: "read",
        resource_type: "Repository",
        resource_id: "r",
      };
      const ok = await service.authorize({
        ...question,
        context_facts: [fact("is_public", v("Repository", "r"), v("Boolean", "true"))],
      });
      expect(ok.body).toEqual({ allowed: true });
      const refused = await refusal(
        service.authorize({ ...question, context_facts: [fact("is_shiny", v("Repository", "r"))] }),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain("`is_shiny/1`");
    });
  });

  describe("without a policy", () => {
    it("accepts any fact unchecked and answers every question negatively", async () => {
      const service = await engine.fresh();
      expect((await service.getPolicy({})).body).toEqual({ policy: null });
      expect((await service.policyMetadata()).body).toEqual({
        metadata: { resources: { global: { roles: [], permissions: [], relations: {} } } },
      });
      const anything = fact("anything", v("Thing", "1"), v("String", "x"));
      await service.batch([{ inserts: [anything, role("ada", "owner", "Doc", "d")] }]);
      expect(await stored(service, "anything")).toEqual([anything]);
      const who = { actor_type: "User", actor_id: "ada" };
      const doc = { resource_type: "Doc", resource_id: "d" };
      expect((await service.authorize({ ...who, action: "read", ...doc })).body).toEqual({
        allowed: false,
      });
      expect((await service.actions({ ...who, ...doc })).body).toEqual({ results: [] });
      expect(
        (await service.list({ ...who, action: "read", resource_type: "Doc", page_size: 10_000 }))
          .body,
      ).toStrictEqual({ results: [] });
      // Even without a policy, invalid values are refused.
      const refused = await refusal(
        service.batch([{ inserts: [fact("anything", v("Integer", "x"))] }]),
      );
      expect(refused.status).toBe(400);
    });
  });
});

// Several instances may share one database: the policy, facts and page tokens live there.
const databaseUrl = process.env.DATABASE_URL;
describe.skipIf(!databaseUrl)("instances sharing one PostgreSQL database", () => {
  it("start together, see each other's policy, facts and page tokens", async () => {
    const schema = await serverSchema(databaseUrl!, "shared");
    const opened: PolarService[] = [];
    try {
      // Both migrate the empty schema at once; the advisory lock serializes them.
      const [a, b] = await Promise.all(
        [0, 1].map(() => createService({ databaseUrl: schema.url, policyRefreshMs: 0 })),
      );
      opened.push(a!, b!);
      await a!.postPolicy({ src: NESTED, filename: "a.polar" }, {});
      expect((await b!.getPolicy({})).body).toEqual({
        policy: { filename: "a.polar", src: NESTED },
      });
      const members = Array.from({ length: 10_001 }, (_, n) =>
        fact("has_relation", v("Project", `p${n}`), v("String", "workspace"), v("Workspace", "w")),
      );
      await b!.batch([{ inserts: [role("ada", "member", "Workspace", "w"), ...members] }]);
      const body = {
        actor_type: "User",
        actor_id: "ada",
        action: "view",
        resource_type: "Project",
      };
      const first = (await a!.list({ ...body, page_size: 10_000 })).body as {
        next_page_token: string;
      };
      const second = (await b!.list({ ...body, page_token: first.next_page_token })).body;
      expect(second).toStrictEqual({ results: ["p9999"] });
    } finally {
      for (const service of opened) await service.close();
      await schema.drop();
    }
  });
});
