/**
 * One rule for empty ids on every surface (docs/http-api.md, "Ids"; docs/cli.md, "Values"):
 * an id is never empty. The library, the HTTP API, the local SQL functions and the CLI all
 * refuse a question about an empty id with an error naming it, and answer the same question
 * about a non-empty id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import type { PolarService } from "../src/api/service.js";
import { checkPolicy } from "../src/check/check.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { explain } from "../src/evaluate/explain.js";
import { authorize } from "../src/evaluate/index.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { createService } from "../src/service/service.js";

const POLICY = `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}`;
const BINDINGS =
  "facts:\n  has_role(User:_, String:_, Doc:_):\n    query: SELECT u, r, d FROM roles\n";
const KEY = "empty-ids-key";

const checked = checkPolicy([{ name: "p.polar", text: POLICY }]);
if (!checked.ok) throw new Error("the policy does not check");
const program = checked.program;

const viewer = {
  predicate: "has_role",
  args: [
    { type: "User", id: "ada" },
    { type: "String", id: "viewer" },
    { type: "Doc", id: "d" },
  ],
};

describe("the library", () => {
  it("answers a non-empty id and refuses an empty one with P601", () => {
    const doc = { type: "Doc", id: "d" };
    expect(authorize(program, [viewer], { type: "User", id: "ada" }, "read", doc)).toBe(true);
    expect(() => authorize(program, [viewer], { type: "User", id: "" }, "read", doc)).toThrow(
      expect.objectContaining({ code: "P601" }),
    );
    expect(() =>
      explain(program, { actor: { type: "User", id: "ada" }, action: "read", resource: doc }),
    ).not.toThrow();
    expect(() =>
      explain(program, {
        actor: { type: "User", id: "ada" },
        action: "read",
        resource: { type: "Doc", id: "" },
      }),
    ).toThrow(expect.objectContaining({ code: "P601" }));
  });

  it("compiles local SQL for a non-empty id and refuses an empty one with P601", () => {
    const query = (actor_id: string, resource_id: string) => ({
      query: { actor_type: "User", actor_id, action: "read", resource_type: "Doc", resource_id },
      data_bindings: BINDINGS,
    });
    expect(authorizeQuery(program, query("ada", "d")).sql).toMatch(/select/i);
    for (const [actor, resource, field] of [
      ["", "d", "query.actor_id"],
      ["ada", "", "query.resource_id"],
    ] as const) {
      expect(() => authorizeQuery(program, query(actor, resource))).toThrow(
        `invalid request: \`${field}\`: must not be empty`,
      );
    }
    const list = (actor_id: string) => ({
      query: { actor_type: "User", actor_id, action: "read", resource_type: "Doc" },
      column: "d.id",
      data_bindings: BINDINGS,
    });
    expect(() => listQuery(program, list("ada"))).not.toThrow();
    expect(() => listQuery(program, list(""))).toThrow(expect.objectContaining({ code: "P601" }));
  });
});

describe("the HTTP API", () => {
  let service: PolarService;
  let call: (path: string, body: unknown) => Promise<{ status: number; body: unknown }>;

  beforeAll(async () => {
    service = await createService({ workers: 0 });
    await service.postPolicy({ src: POLICY, filename: "p.polar" }, {});
    await service.batch([{ inserts: [viewer] }]);
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    call = async (path, body) => {
      const response = await app.request(path, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` },
      });
      return { status: response.status, body: await response.json() };
    };
  });

  afterAll(async () => {
    await service?.close();
  });

  const question = { actor_type: "User", actor_id: "ada", resource_type: "Doc", resource_id: "d" };
  const cases: [string, object, object, string][] = [
    ["/api/authorize", { ...question, action: "read" }, { actor_id: "" }, "`actor_id`"],
    ["/api/explain", { ...question, action: "read" }, { resource_id: "" }, "`resource_id`"],
    ["/api/actions", question, { resource_id: "" }, "`resource_id`"],
    [
      "/api/list",
      {
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resource_type: "Doc",
        page_size: 10_000,
      },
      { actor_id: "" },
      "`actor_id`",
    ],
    [
      "/api/authorize_query",
      { query: { ...question, action: "read" }, data_bindings: BINDINGS },
      { query: { ...question, action: "read", actor_id: "" } },
      "`query.actor_id`",
    ],
    [
      "/api/evaluate_query",
      {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["ada"] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids: null },
        },
      },
      {
        constraints: {
          u: { type: "User", ids: [""] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids: null },
        },
      },
      "`constraints.u.ids.0`",
    ],
    [
      "/api/batch",
      [{ deletes: [{ predicate: "has_role", args: [{ type: "User", id: "nobody" }, {}, {}] }] }],
      [{ deletes: [{ predicate: "has_role", args: [{ type: "User", id: "" }, {}, {}] }] }],
      "`0.deletes.0.args.0.id`",
    ],
  ];

  it.each(cases)(
    "%s answers a non-empty id and refuses an empty one",
    async (path, good, bad, field) => {
      const answered = await call(path, good);
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      const refused = await call(path, Array.isArray(bad) ? bad : { ...good, ...bad });
      expect(refused.status).toBe(400);
      // The local functions' message says which request it was: `invalid request: …`.
      const message = (refused.body as { message: string }).message;
      expect(message.replace(/^invalid request: (`[^`]+`):/, "$1")).toBe(
        `${field} must not be empty`,
      );
    },
  );

  it("GET /api/facts answers a non-empty id and refuses an empty one", async () => {
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    const get = (query: string) =>
      app.request(`/api/facts?${query}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const found = await get("predicate=has_role&args.0.type=User&args.0.id=ada");
    expect(found.status).toBe(200);
    expect(await found.json()).toHaveLength(1);
    const refused = await get("predicate=has_role&args.0.type=User&args.0.id=");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: "`args.0.id` must not be empty" });
  });
});

describe("the CLI", () => {
  async function run(args: readonly string[]) {
    const out = { stdout: "", stderr: "" };
    const io: CliIo = {
      stdout: (t) => (out.stdout += t),
      stderr: (t) => (out.stderr += t),
      isTTY: false,
      // Nothing listens there: a refused value never gets as far as a request.
      env: { POLAR_SQL_URL: "http://127.0.0.1:9", POLAR_SQL_API_KEY: "k" },
    };
    return { code: await main(args, io), ...out };
  }

  it.each([
    [["authorize", "User:", "read", "Doc:d"], "<actor>: `User:` has no id after the colon"],
    [["actions", "User:ada", 'Doc:""'], '<resource>: `Doc:""` has an empty id'],
    [
      ["facts", "insert", "has_role", "User:ada", '""', "Doc:d"],
      'value 2: `""` has an empty string',
    ],
    [
      ["facts", "delete", "has_role", "User:", "_", "_"],
      "value 1: `User:` has no id after the colon",
    ],
    [
      [
        "explain",
        "--policy",
        "p.polar",
        "--actor",
        "User:",
        "--action",
        "read",
        "--resource",
        "Doc:d",
      ],
      "`--actor`: `User:` has no id after the colon",
    ],
  ])("%j is refused before anything is sent (exit 2)", async (args, message) => {
    const out = await run(args);
    expect(out.code).toBe(2);
    expect(out.stderr.split("\n")[0]).toBe(`error: ${message}`);
  });

  it("sends a question with non-empty ids (and reports the unreachable server: exit 1)", async () => {
    const out = await run(["authorize", "User:ada", "read", "Doc:d"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: /);
  });
});
