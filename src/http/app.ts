/**
 * The HTTP adapter: authenticates, parses, calls the service, serializes. It holds no
 * authorization logic; every answer comes from the `PolarService`.
 */
import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ApiError, type PolarService, type Reading, type Reply } from "../api/service.js";
import { healthReplySchema } from "../api/wire.js";
import { packageVersion } from "../core/version.js";
import { jsonTextOf } from "../evaluate/explain-json.js";
import { DEFAULT_ENVIRONMENT } from "../store/environment.js";
import { type ApiKey, createKeyCheck, defaultEnvironmentKeys } from "./auth.js";
import { MAX_BODY_BYTES, readJsonBody } from "./body.js";
import { createHttpMetrics, type HttpMetrics, processMetrics } from "./metrics.js";
import { type DocumentedRoute, openApiDocument } from "./openapi.js";
import { matchRoute, ROUTES, type Route } from "./routes.js";

/** What the adapter logs through; a pino logger fits, tests pass a capturing object. */
export interface HttpLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** One environment, `default`, and its read-write keys. */
export interface SingleEnvironment {
  readonly service: PolarService;
  /** Accepted bearer keys; at least one (the server never runs unauthenticated). */
  readonly apiKeys: readonly string[];
}

/** Several environments (src/service/environments.ts), each reached by its own keys. */
export interface ScopedEnvironments {
  readonly environments: ReadonlyMap<string, PolarService>;
  /** Accepted keys, each of an environment of `environments`; at least one. */
  readonly keys: readonly ApiKey[];
}

export type AppOptions = (SingleEnvironment | ScopedEnvironments) & {
  readonly logger: HttpLogger;
  /**
   * Where the request metrics of the environment `default` go; default a registry of the
   * app's own. Every other environment has a registry of its own: a key sees its own
   * environment's metrics only.
   */
  readonly metrics?: HttpMetrics;
  /** Also show the process's metrics (CPU, memory, event loop lag) to every key. */
  readonly processMetrics?: boolean;
  /** Bodies of this many bytes or more are refused (413); default 10 MiB (docs/limits.md). */
  readonly maxBodyBytes?: number;
};

interface Vars {
  Variables: {
    requestId: string;
    route: string;
    environment: string | undefined;
    /** `performance.now()` when the request arrived. */
    started: number;
    /** The response already carries the request id and timing (`send`). */
    stamped: boolean;
  };
}

const API_PREFIX = "/api";
const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** The routes outside the `/api` table, documented like those in routes.ts. */
const APP_ROUTES: readonly DocumentedRoute[] = [
  {
    method: "GET",
    path: "/health",
    doc: { summary: "the process is up", reply: healthReplySchema, auth: false },
  },
  {
    method: "GET",
    path: `${API_PREFIX}/openapi.json`,
    doc: {
      summary: "this OpenAPI 3.1 document",
      reply: z.record(z.string(), z.unknown()),
      auth: false,
    },
  },
  {
    method: "GET",
    path: "/metrics",
    doc: {
      summary: "Prometheus metrics: requests by route and status, latency histograms",
      reply: z.string(),
      replyType: "text/plain",
    },
  },
];

/**
 * Every route the app serves with its documentation: the `/api` table and the app's own.
 *
 *   documentedRoutes().map((r) => `${r.method} ${r.path}`); // ["GET /api/policy", …]
 */
export function documentedRoutes(): DocumentedRoute[] {
  const api = ROUTES.map((route) => ({
    method: route.method,
    path: `${API_PREFIX}${route.path}`,
    doc: route.doc,
  }));
  return [...api, ...APP_ROUTES];
}

let document: ReturnType<typeof openApiDocument> | undefined;

/** The OpenAPI document of every route, built once. */
export function serviceOpenApiDocument(): ReturnType<typeof openApiDocument> {
  document ??= openApiDocument(documentedRoutes(), packageVersion());
  return document;
}

/**
 * Builds the Hono app; use `app.request(...)` in tests or `startServer` to listen.
 *
 *   const app = createApp({ service, apiKeys: ["s3cret"], logger: pino() });
 *   await app.request("/health"); // 200 {"status":"ok"}
 */
export function createApp(options: AppOptions): Hono<Vars> {
  const { logger } = options;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const { services, keys } = environmentsOf(options);
  const checkKey = createKeyCheck(keys);
  const metrics = new Map(
    [...services.entries()].map(([name, service]) => [
      name,
      (name === DEFAULT_ENVIRONMENT && options.metrics) ||
        createHttpMetrics({
          standbys: () => service.standbys?.() ?? [],
          readMessages: () => service.readMessages?.() ?? null,
        }),
    ]),
  );
  const shared = options.processMetrics ? processMetrics() : null;
  const app = new Hono<Vars>();

  app.use("*", async (c, next) => {
    const started = performance.now();
    const sent = c.req.header("x-request-id");
    const requestId = sent !== undefined && REQUEST_ID.test(sent) ? sent : randomUUID();
    c.set("requestId", requestId);
    c.set("route", "unmatched");
    c.set("environment", undefined);
    c.set("started", started);
    c.set("stamped", false);
    await next();
    const elapsed = performance.now() - started;
    const ms = roundMs(elapsed);
    const route = c.get("route").replace(/^[A-Z]+ /, "");
    const environment = c.get("environment");
    // A request of no environment (no key, a wrong one, `/health`) is counted in every one.
    const counted = environment === undefined ? metrics.values() : [metrics.get(environment)!];
    for (const into of counted) into.observe(route, c.req.method, c.res.status, elapsed / 1000);
    if (!c.get("stamped")) {
      for (const [name, value] of Object.entries(stamp(c))) c.res.headers.set(name, value);
    }
    logger.info(
      {
        reqId: requestId,
        ...(environment !== undefined && { environment }),
        method: c.req.method,
        route: c.get("route"),
        status: c.res.status,
        ms,
      },
      "request",
    );
  });

  app.get("/health", (c) => {
    c.set("route", "/health");
    return c.json({ status: "ok" });
  });

  // Public: a client generator needs no key to read the API's shape.
  app.get(`${API_PREFIX}/openapi.json`, (c) => {
    c.set("route", `${API_PREFIX}/openapi.json`);
    return c.json(serviceOpenApiDocument());
  });

  app.get("/metrics", async (c) => {
    c.set("route", "/metrics");
    const auth = checkKey(c.req.header("authorization"));
    if (auth.kind === "refused") return refuse(c, auth.message);
    c.set("environment", auth.environment);
    const own = metrics.get(auth.environment)!.registry;
    const text = (shared ? await shared.metrics() : "") + (await own.metrics());
    return c.text(text, 200, { "Content-Type": own.contentType });
  });

  app.all(`${API_PREFIX}/*`, async (c) => {
    const path = c.req.path.slice(API_PREFIX.length);
    const match = matchRoute(c.req.method, path);
    if (match.kind === "found") c.set("route", `${c.req.method} ${API_PREFIX}${path}`);
    else if (match.kind === "wrong-method") c.set("route", `${API_PREFIX}${path}`);
    // Authentication comes first: without a key, nothing about the routes is revealed.
    const auth = checkKey(c.req.header("authorization"));
    if (auth.kind === "refused") return refuse(c, auth.message);
    c.set("environment", auth.environment);
    const service = services.get(auth.environment)!;
    switch (match.kind) {
      case "unknown":
        return notFound(c);
      case "wrong-method":
        c.header("Allow", match.allowed.join(", "));
        return c.json(
          { message: `method ${c.req.method} is not allowed on \`${c.req.path}\`` },
          405,
        );
      case "found": {
        // Refused before the body is read: a read-only key changes nothing.
        if (match.route.writes && auth.access === "read-only") {
          const route = `${c.req.method} ${API_PREFIX}${path}`;
          return c.json({ message: `this API key is read-only; \`${route}\` writes` }, 403);
        }
        const offset = c.req.header("OsoOffset");
        const reading =
          offset !== undefined && /^\d{1,15}$/.test(offset) ? { atLeast: Number(offset) } : {};
        // A question finds a reader that has the version; other routes catch the primary up.
        if (reading.atLeast !== undefined && !match.route.question)
          await service.catchUp?.(reading.atLeast);
        return send(c, await answer(service, match.route, c.req.raw, maxBodyBytes, reading));
      }
      default: {
        const _never: never = match;
        return _never;
      }
    }
  });

  app.notFound(notFound);

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      return c.json(
        { message: error.message, ...error.body },
        error.status as ContentfulStatusCode,
      );
    }
    logger.error({ reqId: c.get("requestId"), err: error }, "internal error");
    return c.json({ message: `internal error (request id ${c.get("requestId")})` }, 500);
  });

  return app;
}

/** The environments served and the keys of each, whichever way they were given. */
function environmentsOf(options: SingleEnvironment | ScopedEnvironments): {
  services: ReadonlyMap<string, PolarService>;
  keys: readonly ApiKey[];
} {
  const services =
    "service" in options ? new Map([[DEFAULT_ENVIRONMENT, options.service]]) : options.environments;
  const keys = "service" in options ? defaultEnvironmentKeys(options.apiKeys) : options.keys;
  for (const key of keys) {
    if (!services.has(key.environment))
      throw new Error(
        `an API key names the environment \`${key.environment}\`, which is not served`,
      );
  }
  return { services, keys };
}

async function answer(
  service: PolarService,
  route: Route,
  request: Request,
  maxBodyBytes: number,
  reading: Reading,
): Promise<Reply> {
  const query = new URL(request.url).searchParams;
  if (route.body === "none") return route.call(service, { body: undefined, query, reading });
  const body = await readJsonBody(request, maxBodyBytes);
  if (body.kind === "empty") throw new ApiError(400, "request body is empty; expected JSON");
  return route.call(service, { body: body.value, query, reading });
}

/**
 * A service reply as JSON, with its headers as a plain object: the server then writes them as
 * they are (a `Headers` object set after the fact costs ~8 µs a request, bench/RESULTS.md).
 */
function send(c: Context<Vars>, reply: Reply): Response {
  const headers: Record<string, string> = { "content-type": "application/json", ...stamp(c) };
  if (reply.dataVersion !== undefined) headers.OsoOffset = String(reply.dataVersion);
  c.set("stamped", true);
  // Every 2xx carries JSON: the official client parses each success body. An explanation comes
  // written already: JSON.stringify cannot write a proof thousands of levels deep.
  const written = jsonTextOf(reply.body) ?? JSON.stringify(reply.body ?? null);
  return new Response(written, { status: reply.status ?? 200, headers });
}

/** The request id and the time taken so far, as response headers. */
function stamp(c: Context<Vars>): Record<string, string> {
  const ms = roundMs(performance.now() - c.get("started"));
  return { "X-Request-ID": c.get("requestId"), "Server-Timing": `oso;dur=${ms}` };
}

function roundMs(elapsed: number): number {
  return Math.round(elapsed * 100) / 100;
}

function refuse(c: Context<Vars>, message: string): Response {
  c.header("WWW-Authenticate", 'Bearer realm="polar-sql"');
  return c.json({ message }, 401);
}

function notFound(c: Context<Vars>): Response {
  return c.json({ message: `no route \`${c.req.method} ${c.req.path}\`` }, 404);
}
