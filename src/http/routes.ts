/**
 * The route table of the `/api` base path: which method and body each endpoint takes, which
 * service function answers it (docs/http-api.md), and its entry in the OpenAPI document.
 * A route reads a JSON body exactly when its documentation declares one.
 */

import { previewBodySchema, previewReplySchema } from "../api/preview.js";
import type { PolarService, Reading, Reply } from "../api/service.js";
import {
  actionsBodySchema,
  actionsQueryRequestSchema,
  actionsReplySchema,
  allowedReplySchema,
  authorizeBodySchema,
  authorizeQueryRequestSchema,
  authorizeResourcesBodySchema,
  batchBodySchema,
  bulkActionsBodySchema,
  bulkActionsReplySchema,
  bulkBodySchema,
  bulkDeleteBodySchema,
  bulkLoadBodySchema,
  deleteFactBodySchema,
  evaluateQueryLocalRequestSchema,
  evaluateQueryReplySchema,
  explainBodySchema,
  explainResponseSchema,
  exportFactsQuerySchema,
  exportFactsReplySchema,
  factQueryBodySchema,
  factQueryReplySchema,
  factReplySchema,
  factsQuerySchema,
  factsReplySchema,
  insertFactBodySchema,
  listBodySchema,
  listPageSchema,
  listQueryRequestSchema,
  listReplySchema,
  localQueryResponseSchema,
  messageReplySchema,
  policyBodySchema,
  policyErrorSchema,
  policyMetadataReplySchema,
  policyQuerySchema,
  policyReplySchema,
  postPolicyQuerySchema,
  querySchema,
  resourcesReplySchema,
  statsReplySchema,
} from "../api/wire.js";
import type { RouteDoc } from "./openapi.js";

type Method = "GET" | "POST" | "DELETE";

/**
 * `json`: a JSON body is required. `none`: any body is ignored unread (GETs, `POST /clear_data`,
 * which the client sends without a body but with a JSON content type).
 */
type BodyUse = "json" | "none";

interface RouteInput {
  readonly body: unknown;
  readonly query: URLSearchParams;
  /** The freshness the request asks for (its `OsoOffset`). */
  readonly reading: Reading;
}

export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly body: BodyUse;
  readonly call: (service: PolarService, input: RouteInput) => Promise<Reply>;
  /**
   * A question: answered where the request's `reading` allows (a standby that has replayed
   * its `OsoOffset`, src/store/replicas.ts). Other routes read and write the primary, caught
   * up to the offset first.
   */
  readonly question: boolean;
  /** The route changes facts or the policy: a read-only key is refused it (403). */
  readonly writes: boolean;
  /** The route's entry in the OpenAPI document. */
  readonly doc: RouteDoc;
}

const routeOf =
  (method: Method) =>
  (path: string, call: Route["call"], doc: RouteDoc): Route => ({
    method,
    path,
    // A GET has no body; the others take the JSON body their documentation describes.
    body: method !== "GET" && doc.body ? "json" : "none",
    call,
    question: false,
    writes: false,
    doc,
  });
const get = routeOf("GET");
const post = routeOf("POST");
const del = routeOf("DELETE");
/** A POST that asks a question: see `Route.question`. */
const ask = (path: string, call: Route["call"], doc: RouteDoc): Route => ({
  ...post(path, call, doc),
  question: true,
});

/** The same route, marked as one that writes. */
const writing = (route: Route): Route => ({ ...route, writes: true });

/** Every `/api` route; paths are relative to `/api`. Each ends with its documentation. */
export const ROUTES: readonly Route[] = [
  get("/policy", (s, { query }) => s.getPolicy(optional({ id: query.get("id") })), {
    summary: "the active policy, or null when none was stored",
    query: policyQuerySchema,
    reply: policyReplySchema,
  }),
  writing(
    post(
      "/policy",
      (s, { body, query }) => s.postPolicy(body, optional({ fail_fast: query.get("fail_fast") })),
      {
        summary: "check a policy, run its tests and make it the active policy",
        body: policyBodySchema,
        query: postPolicyQuerySchema,
        reply: messageReplySchema,
        also: { 202: "the policy equals the active one" },
        badRequest: policyErrorSchema,
      },
    ),
  ),
  post("/policy/preview", (s, { body }) => s.previewPolicy(body), {
    summary: "who would gain and who would lose which access under a candidate policy",
    body: previewBodySchema,
    reply: previewReplySchema,
    badRequest: policyErrorSchema,
  }),
  get("/policy_metadata", (s) => s.policyMetadata(), {
    summary: "roles, permissions and relations per declared type",
    reply: policyMetadataReplySchema,
  }),
  ask("/authorize", (s, { body, reading }) => s.authorize(body, reading), {
    summary: "may the actor do the action on the resource",
    body: authorizeBodySchema,
    reply: allowedReplySchema,
  }),
  ask("/explain", (s, { body, reading }) => s.explain(body, reading), {
    summary: "why the actor may or may not do the action on the resource, as a proof tree",
    body: explainBodySchema,
    reply: explainResponseSchema,
  }),
  ask("/authorize_resources", (s, { body, reading }) => s.authorizeResources(body, reading), {
    summary: "the resources, of those given, on which the actor may do the action",
    body: authorizeResourcesBodySchema,
    reply: resourcesReplySchema,
  }),
  ask("/list", (s, { body, reading }) => s.list(body, reading), {
    summary: "the ids of the resources of a type on which the actor may do the action",
    body: listBodySchema.omit({ page_size: true, page_token: true }).extend(listPageSchema.shape),
    reply: listReplySchema,
  }),
  ask("/actions", (s, { body, reading }) => s.actions(body, reading), {
    summary: "the actions the actor may do on the resource",
    body: actionsBodySchema,
    reply: actionsReplySchema,
  }),
  ask("/evaluate_query", (s, { body, reading }) => s.evaluateQuery(body, reading), {
    summary: "the solutions of a query over rules and facts",
    body: querySchema,
    reply: evaluateQueryReplySchema,
  }),
  writing(
    post("/batch", (s, { body }) => s.batch(body), {
      summary: "insert and delete facts, atomically, in order",
      body: batchBodySchema,
      reply: messageReplySchema,
    }),
  ),
  get("/facts", (s, { query }) => s.getFacts(new Map(query)), {
    summary: "stored facts matching a pattern",
    description:
      "Besides `predicate`, the query takes `args.N.type` and `args.N.id` for a zero-based " +
      "position `N`; an omitted one matches anything.",
    query: factsQuerySchema,
    reply: factsReplySchema,
  }),
  get(
    "/export_facts",
    (s, { query }) =>
      s.exportFacts(
        optional({
          page_size: query.get("page_size"),
          page_token: query.get("page_token"),
        }),
      ),
    {
      summary: "every stored fact once, a page at a time",
      query: exportFactsQuerySchema,
      reply: exportFactsReplySchema,
    },
  ),
  writing(
    post("/clear_data", (s) => s.clearData(), {
      summary: "delete every stored fact; the policy stays",
      reply: messageReplySchema,
    }),
  ),
  ask("/authorize_query", (s, { body, reading }) => s.authorizeQuery(body, reading), {
    summary: "SQL answering /authorize over the caller's database",
    body: authorizeQueryRequestSchema,
    reply: localQueryResponseSchema,
  }),
  ask("/actions_query", (s, { body, reading }) => s.actionsQuery(body, reading), {
    summary: "SQL answering /actions over the caller's database",
    body: actionsQueryRequestSchema,
    reply: localQueryResponseSchema,
  }),
  ask("/list_query", (s, { body, reading }) => s.listQuery(body, reading), {
    summary: "an SQL condition keeping the rows the actor may act on",
    body: listQueryRequestSchema,
    reply: localQueryResponseSchema,
  }),
  ask("/evaluate_query_local", (s, { body, reading }) => s.evaluateQueryLocal(body, reading), {
    summary: "SQL answering /evaluate_query over the caller's database",
    body: evaluateQueryLocalRequestSchema,
    reply: localQueryResponseSchema,
  }),
  // Parity handles fire this without awaiting; a failure would crash the caller (docs/http-api.md#post-apiexpect).
  post("/expect", async () => ({ body: { message: "ok" } }), {
    summary: "accepted and ignored (the official client's parity check)",
    reply: messageReplySchema,
  }),
  // The routes of the 1.x clients (src/service/compat.ts).
  writing(
    post("/facts", (s, { body }) => s.insertFact(body), {
      summary: "insert one fact (1.x `tell`); answers the fact as stored",
      body: insertFactBodySchema,
      reply: factReplySchema,
    }),
  ),
  writing(
    del("/facts", (s, { body }) => s.deleteFact(body), {
      summary: "delete every fact matching a pattern (1.x `delete`)",
      body: deleteFactBodySchema,
      reply: messageReplySchema,
    }),
  ),
  writing(
    post("/bulk_load", (s, { body }) => s.bulkLoad(body), {
      summary: "insert facts (1.x `bulkTell`)",
      body: bulkLoadBodySchema,
      reply: messageReplySchema,
    }),
  ),
  writing(
    post("/bulk_delete", (s, { body }) => s.bulkDelete(body), {
      summary: "delete every fact matching each pattern (1.x `bulkDelete`)",
      body: bulkDeleteBodySchema,
      reply: messageReplySchema,
    }),
  ),
  writing(
    post("/bulk", (s, { body }) => s.bulk(body), {
      summary: "delete, then insert, in one transaction (1.x `bulk`)",
      body: bulkBodySchema,
      reply: messageReplySchema,
    }),
  ),
  ask("/bulk_actions", (s, { body, reading }) => s.bulkActions(body, reading), {
    summary: "the actions for each of several actor and resource pairs (1.x `bulkActions`)",
    body: bulkActionsBodySchema,
    reply: bulkActionsReplySchema,
  }),
  ask("/query", (s, { body, reading }) => s.queryFacts(body, reading), {
    summary: "the facts, stored or derived, matching a pattern (1.x `query`)",
    body: factQueryBodySchema,
    reply: factQueryReplySchema,
  }),
  get("/stats", (s) => s.stats(), {
    summary: "how many roles, relations and facts are stored",
    reply: statsReplySchema,
  }),
];

type RouteMatch =
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
