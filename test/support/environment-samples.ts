/**
 * One valid request for every `/api` route, over an environment's own policy and ids, for the
 * environment and scoped key tests (test/environments.test.ts). Keyed by `METHOD /api/path`
 * so that a test can check that every route of src/http/routes.ts has one.
 */

/** What is distinctive about an environment: its type, role and ids appear nowhere else. */
export interface EnvironmentWorld {
  readonly name: string;
  readonly type: string;
  readonly role: string;
  readonly actor: string;
  readonly resource: string;
}

export function policyOf(world: EnvironmentWorld): string {
  return `actor User {}
resource ${world.type} { roles = ["${world.role}"]; permissions = ["read"]; "read" if "${world.role}"; }`;
}

export function roleFact(world: EnvironmentWorld, actor = world.actor) {
  return {
    predicate: "has_role",
    args: [
      { type: "User", id: actor },
      { type: "String", id: world.role },
      { type: world.type, id: world.resource },
    ],
  };
}

export interface Sample {
  /** The path with its query string, under `/api`. */
  readonly target: string;
  readonly body?: unknown;
}

/** A request for every route, keyed by `METHOD /api/path`. */
export function routeSamples(world: EnvironmentWorld): Map<string, Sample> {
  const question = {
    actor_type: "User",
    actor_id: world.actor,
    action: "read",
    resource_type: world.type,
  };
  const one = { ...question, resource_id: world.resource };
  const bindings = `sql_types:\n  ${world.type}: text\n`;
  const extra = roleFact(world, `${world.actor}_extra`);
  const allow = {
    predicate: ["allow", ["u", "a", "r"]],
    constraints: {
      u: { type: "User", ids: [world.actor] },
      a: { type: "String", ids: ["read"] },
      r: { type: world.type, ids: null },
    },
  };
  const table: [string, string, unknown?][] = [
    ["GET", "/policy"],
    ["POST", "/policy", { src: `${policyOf(world)}\n# again`, filename: "app.polar" }],
    [
      "POST",
      "/policy/preview",
      { src: policyOf(world).replace(`"read" if "${world.role}";`, ""), page_size: 1 },
    ],
    ["GET", "/policy_metadata"],
    ["POST", "/authorize", one],
    ["POST", "/explain", one],
    ["POST", "/authorize_resources", { ...question, resources: [{ type: world.type, id: "x" }] }],
    ["POST", "/list", { ...question, page_size: 10_000 }],
    ["POST", "/actions", one],
    ["POST", "/evaluate_query", allow],
    ["POST", "/batch", [{ inserts: [extra] }]],
    ["GET", "/facts?predicate=has_role"],
    ["GET", "/export_facts?page_size=100"],
    ["POST", "/clear_data"],
    ["POST", "/authorize_query", { query: one, data_bindings: bindings }],
    ["POST", "/actions_query", { query: one, data_bindings: bindings }],
    ["POST", "/list_query", { query: question, column: "t.id", data_bindings: bindings }],
    [
      "POST",
      "/evaluate_query_local",
      {
        query: allow,
        data_bindings: bindings,
        mode: { mode: "filter", query_var: "r", output_column_name: "t.id" },
      },
    ],
    ["POST", "/expect", { request_id: "x", expected: true }],
    ["POST", "/facts", extra],
    ["DELETE", "/facts", extra],
    ["POST", "/bulk_load", [extra]],
    ["POST", "/bulk_delete", [extra]],
    ["POST", "/bulk", { delete: [], tell: [extra] }],
    ["POST", "/bulk_actions", [one]],
    [
      "POST",
      "/query",
      { fact: { predicate: "has_role", args: [{ type: "User" }, { type: null }, { type: null }] } },
    ],
    ["GET", "/stats"],
  ];
  return new Map(
    table.map(([method, target, body]) => [
      `${method} /api${target.split("?")[0]}`,
      { target, ...(body !== undefined && { body }) },
    ]),
  );
}
