/**
 * A small client for a running polar-sql server (the routes under `/api`), used by the
 * command-line client. Errors carry the server's `{message}` and the request id.
 */
import type { PatternValue, TypedValue } from "./values.js";

export interface ClientOptions {
  /** The server's base URL, without `/api`: `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly apiKey: string;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
}

export interface WireFact {
  readonly predicate: string;
  readonly args: readonly TypedValue[];
}

export interface FactPattern {
  readonly predicate: string;
  readonly args: readonly PatternValue[];
}

export type Changeset =
  | { readonly inserts: readonly WireFact[] }
  | { readonly deletes: readonly FactPattern[] };

export interface StoredPolicy {
  readonly filename: string;
  readonly src: string;
}

/** The server refused a request, or could not be reached (`status` 0). */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = "ClientError";
  }
}

export interface PolarClient {
  authorize(actor: TypedValue, action: string, resource: TypedValue): Promise<boolean>;
  /** Every page of `/list`, concatenated. */
  list(actor: TypedValue, action: string, resourceType: string): Promise<string[]>;
  actions(actor: TypedValue, resource: TypedValue): Promise<string[]>;
  /** `GET /facts`: stored facts whose listed positions match (any arity). */
  getFacts(predicate: string, args: readonly PatternValue[]): Promise<WireFact[]>;
  batch(changesets: readonly Changeset[]): Promise<void>;
  /** Every stored fact once, a page at a time (`GET /export_facts`). */
  exportFacts(pageSize?: number): AsyncGenerator<readonly WireFact[]>;
  getPolicy(): Promise<StoredPolicy | null>;
  /** Stores a policy; returns the server's message (`policy updated`). */
  pushPolicy(src: string, filename: string | null): Promise<string>;
  /** One page of `POST /policy/preview` (docs/policy-preview.md); the reply as sent. */
  previewPolicy(request: PreviewRequestBody): Promise<PreviewReplyBody>;
}

interface PreviewRequestBody {
  readonly src: string;
  readonly filename: string | null;
  readonly page_size?: number;
  readonly page_token?: string;
}

export interface PreviewTripleBody {
  readonly actor: TypedValue;
  readonly action: string;
  readonly resource: TypedValue;
}

export interface PreviewReplyBody {
  readonly gained: readonly PreviewTripleBody[];
  readonly lost: readonly PreviewTripleBody[];
  readonly counts: Readonly<
    Record<string, Readonly<Record<string, { gained: number; lost: number }>>>
  >;
  readonly tests: Readonly<
    Record<
      "active" | "candidate",
      { readonly passed: readonly string[]; readonly failed: readonly string[] }
    >
  >;
  readonly next_page_token?: string;
}

/**
 * A client over `fetch`.
 *
 * @example
 * const client = createClient({ url: "http://127.0.0.1:8080", apiKey: "psk_…" });
 * await client.authorize({ type: "User", id: "bob" }, "read", { type: "Repo", id: "1" });
 */
export function createClient(options: ClientOptions): PolarClient {
  const base = `${options.url.replace(/\/+$/, "")}/api`;
  const send = options.fetch ?? fetch;

  async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await send(`${base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${options.apiKey}`,
          ...(body !== undefined && { "Content-Type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new ClientError(`cannot reach \`${options.url}\`: ${reason}`, 0);
    }
    const text = await response.text();
    const requestId = response.headers.get("x-request-id");
    let json: unknown;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const message =
        typeof (json as { message?: unknown })?.message === "string"
          ? (json as { message: string }).message
          : `${response.status} ${response.statusText}`.trim();
      throw new ClientError(message, response.status, requestId);
    }
    if (json === undefined) {
      throw new ClientError(
        `the server answered ${method} ${path} with invalid JSON`,
        0,
        requestId,
      );
    }
    return json as T;
  }

  const actorFields = (actor: TypedValue) => ({ actor_type: actor.type, actor_id: actor.id });

  return {
    async authorize(actor, action, resource) {
      const reply = await call<{ allowed: boolean }>("POST", "/authorize", {
        ...actorFields(actor),
        action,
        resource_type: resource.type,
        resource_id: resource.id,
      });
      return reply.allowed === true;
    },

    async list(actor, action, resourceType) {
      const body = { ...actorFields(actor), action, resource_type: resourceType };
      const results: string[] = [];
      let token: string | null = null;
      do {
        // The key is present only when more results follow (older servers sent `null`).
        const page: { results: string[]; next_page_token?: string | null } = await call(
          "POST",
          "/list",
          token === null
            ? { ...body, page_size: 10_000 }
            : { ...body, page_size: 10_000, page_token: token },
        );
        results.push(...page.results);
        token = page.next_page_token ?? null;
      } while (token !== null);
      return results;
    },

    async actions(actor, resource) {
      const reply = await call<{ results: string[] }>("POST", "/actions", {
        ...actorFields(actor),
        resource_type: resource.type,
        resource_id: resource.id,
      });
      return reply.results;
    },

    getFacts(predicate, args) {
      const query = new URLSearchParams({ predicate });
      args.forEach((arg, i) => {
        if (arg.type !== null) query.set(`args.${i}.type`, arg.type);
        if (arg.id !== null) query.set(`args.${i}.id`, arg.id);
      });
      return call<WireFact[]>("GET", `/facts?${query}`);
    },

    async batch(changesets) {
      await call("POST", "/batch", changesets);
    },

    async *exportFacts(pageSize = 1000) {
      let token: string | null = null;
      do {
        const query = new URLSearchParams({ page_size: String(pageSize) });
        if (token !== null) query.set("page_token", token);
        const page: { facts: WireFact[]; next_page_token: string | null } = await call(
          "GET",
          `/export_facts?${query}`,
        );
        yield page.facts;
        token = page.next_page_token;
      } while (token !== null);
    },

    async getPolicy() {
      const reply = await call<{ policy: StoredPolicy | null }>("GET", "/policy");
      return reply.policy;
    },

    async pushPolicy(src, filename) {
      const reply = await call<{ message: string }>("POST", "/policy", { src, filename });
      return reply.message;
    },

    previewPolicy: (request) => call<PreviewReplyBody>("POST", "/policy/preview", request),
  };
}
