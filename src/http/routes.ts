/**
 * The route table of the `/api` base path: which method and body each endpoint takes and which
 * service function answers it (api-and-local-sql §3).
 */
import type { PolarService, Reply } from "../api/service.js";

export type Method = "GET" | "POST" | "DELETE";

/**
 * `json`: a JSON body is required. `none`: any body is ignored unread (GETs, `POST /clear_data`,
 * which the client sends without a body but with a JSON content type).
 */
export type BodyUse = "json" | "none";

export interface RouteInput {
  readonly body: unknown;
  readonly query: URLSearchParams;
}

export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly body: BodyUse;
  readonly call: (service: PolarService, input: RouteInput) => Promise<Reply>;
}

const get = (path: string, call: Route["call"]): Route => ({
  method: "GET",
  path,
  body: "none",
  call,
});
const post = (path: string, call: Route["call"], body: BodyUse = "json"): Route => ({
  method: "POST",
  path,
  body,
  call,
});
const del = (path: string, call: Route["call"]): Route => ({
  method: "DELETE",
  path,
  body: "json",
  call,
});

/** Every `/api` route; paths are relative to `/api`. */
export const ROUTES: readonly Route[] = [
  get("/policy", (s, { query }) => s.getPolicy(optional({ id: query.get("id") }))),
  post("/policy", (s, { body, query }) =>
    s.postPolicy(body, optional({ fail_fast: query.get("fail_fast") })),
  ),
  get("/policy_metadata", (s) => s.policyMetadata()),
  post("/authorize", (s, { body }) => s.authorize(body)),
  post("/explain", (s, { body }) => s.explain(body)),
  post("/authorize_resources", (s, { body }) => s.authorizeResources(body)),
  post("/list", (s, { body }) => s.list(body)),
  post("/actions", (s, { body }) => s.actions(body)),
  post("/evaluate_query", (s, { body }) => s.evaluateQuery(body)),
  post("/batch", (s, { body }) => s.batch(body)),
  get("/facts", (s, { query }) => s.getFacts(new Map(query))),
  post("/clear_data", (s) => s.clearData(), "none"),
  post("/authorize_query", (s, { body }) => s.authorizeQuery(body)),
  post("/actions_query", (s, { body }) => s.actionsQuery(body)),
  post("/list_query", (s, { body }) => s.listQuery(body)),
  post("/evaluate_query_local", (s, { body }) => s.evaluateQueryLocal(body)),
  // Parity handles fire this without awaiting; a failure would crash the caller (§3.6).
  post("/expect", async () => ({ body: { message: "ok" } }), "none"),
  // The routes of the 1.x clients (src/api/compat.ts).
  post("/facts", (s, { body }) => s.insertFact(body)),
  del("/facts", (s, { body }) => s.deleteFact(body)),
  post("/bulk_load", (s, { body }) => s.bulkLoad(body)),
  post("/bulk_delete", (s, { body }) => s.bulkDelete(body)),
  post("/bulk", (s, { body }) => s.bulk(body)),
  post("/bulk_actions", (s, { body }) => s.bulkActions(body)),
  post("/query", (s, { body }) => s.queryFacts(body)),
  get("/stats", (s) => s.stats()),
];

export type RouteMatch =
  | { readonly kind: "found"; readonly route: Route }
  | { readonly kind: "wrong-method"; readonly allowed: readonly Method[] }
  | { readonly kind: "unknown" };

const byPath = new Map<string, Route[]>();
for (const route of ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

/**
 * Finds the route for a method and a path relative to `/api`.
 *
 *   matchRoute("GET", "/authorize"); // { kind: "wrong-method", allowed: ["POST"] }
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const routes = byPath.get(path);
  if (!routes) return { kind: "unknown" };
  const route = routes.find((r) => r.method === method);
  return route
    ? { kind: "found", route }
    : { kind: "wrong-method", allowed: routes.map((r) => r.method) };
}

/** Drops absent query parameters so the service sees only the ones that were sent. */
function optional<K extends string>(params: Record<K, string | null>): Partial<Record<K, string>> {
  const present: Partial<Record<K, string>> = {};
  for (const key of Object.keys(params) as K[]) {
    const value = params[key];
    if (value !== null) present[key] = value;
  }
  return present;
}
