/**
 * The OpenAPI 3.1 document of the service, generated (with @asteasolutions/zod-to-openapi)
 * from the zod schemas that validate the requests. Each route carries a `RouteDoc`; this file
 * only assembles them, adding the error answers every route shares.
 */
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  zodToOpenAPIRegistry,
} from "@asteasolutions/zod-to-openapi";
import type { z } from "zod";
import { dialectSchema, errorReplySchema, explainNodeSchema } from "../api/wire.js";
import { DIALECT_NAMES } from "../dialects/registry.js";

// A recursive schema must be a named component that its children refer to by `$ref`. Zod 4
// schemas carry no `.openapi()` method unless zod is patched before they are built, so the
// name goes straight into the generator's metadata registry.
zodToOpenAPIRegistry.add(explainNodeSchema, { _internal: { refId: "ExplainNode" } });
// Closed sets the request schemas check in code, with messages naming the allowed values.
zodToOpenAPIRegistry.add(dialectSchema, { enum: [...DIALECT_NAMES] });

/** What the document says about one route; written next to the route. */
export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  /** The JSON request body; a route without one ignores any body it is sent. */
  readonly body?: z.ZodType;
  /** Query parameters, as an object schema of strings. */
  readonly query?: z.ZodObject;
  /** The 200 answer. */
  readonly reply: z.ZodType;
  /** The media type of the answer; default `application/json`. */
  readonly replyType?: string;
  /** Other success statuses, with what they mean (same body as 200). */
  readonly also?: Readonly<Record<number, string>>;
  /** The 400 body when it is richer than `{message}`. */
  readonly badRequest?: z.ZodType;
  /** Whether the route needs `Authorization: Bearer <key>`; default true. */
  readonly auth?: boolean;
}

export interface DocumentedRoute {
  readonly method: "GET" | "POST" | "DELETE";
  /** The full path, `/api/authorize`. */
  readonly path: string;
  readonly doc: RouteDoc;
}

/**
 * A route's `operationId`, from its method and path: unique because method and path are.
 *
 * @example
 * operationId("POST", "/api/authorize_query"); // "postAuthorizeQuery"
 * operationId("GET", "/api/openapi.json"); // "getOpenapiJson"
 */
export function operationId(method: DocumentedRoute["method"], path: string): string {
  const words = path
    .replace(/^\/api(?=\/|$)/, "")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
  const capitalized = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${method.toLowerCase()}${capitalized.join("")}`;
}

/**
 * The document for these routes.
 *
 * @example
 * openApiDocument([{ method: "GET", path: "/health", doc: { summary: "…", reply, auth: false } }],
 *   "0.1.0").paths["/health"].get.summary; // "…"
 */
export function openApiDocument(routes: readonly DocumentedRoute[], version: string) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "An API key of the server (`POLAR_SQL_API_KEYS` or `--api-key-file`).",
  });
  const error = (description: string, schema: z.ZodType = errorReplySchema) => ({
    description,
    content: { "application/json": { schema } },
  });
  for (const { method, path, doc } of routes) {
    const auth = doc.auth ?? true;
    const responses: Record<
      number,
      { description: string; content: Record<string, { schema: z.ZodType }> }
    > = {
      200: {
        description: doc.summary,
        content: { [doc.replyType ?? "application/json"]: { schema: doc.reply } },
      },
    };
    for (const [status, meaning] of Object.entries(doc.also ?? {})) {
      responses[Number(status)] = {
        description: meaning,
        content: { "application/json": { schema: doc.reply } },
      };
    }
    if (doc.body || doc.query) {
      responses[400] = error("the request is invalid; `message` says why", doc.badRequest);
    }
    if (auth) responses[401] = error("the API key is missing or unknown");
    if (doc.body) {
      responses[413] = error("the body is 10 MiB or larger");
      responses[415] = error("the body is not JSON");
    }
    responses[500] = error(
      "an internal error; `message` gives the request id to look up in the logs",
    );
    registry.registerPath({
      method: method === "GET" ? "get" : method === "POST" ? "post" : "delete",
      path,
      operationId: operationId(method, path),
      summary: doc.summary,
      ...(doc.description !== undefined && { description: doc.description }),
      ...(auth && { security: [{ [bearer.name]: [] }] }),
      request: {
        ...(doc.query && { query: doc.query }),
        ...(doc.body && {
          body: { required: true, content: { "application/json": { schema: doc.body } } },
        }),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "polar-sql",
      version,
      description:
        "Oso Cloud compatible authorization service: every route under /api answers JSON; " +
        'errors are {"message": "…"}. See docs/http-api.md.',
    },
  });
}
