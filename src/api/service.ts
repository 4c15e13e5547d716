/**
 * The service behind the HTTP API: one plain async function per endpoint, taking the decoded
 * JSON body (unvalidated: each function validates with zod) and returning the JSON reply.
 * The HTTP adapter only parses, calls, and serializes.
 */

import type { ReadMessages } from "../store/executor.js";
import type { StandbyStatus } from "../store/replicas.js";

/** A refused request: HTTP status plus the `{message}` body (and extra fields, e.g. policy errors). */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500 | 503,
    message: string,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** A reply: the JSON body, a status when it is not 200, and the data version after a write. */
export interface Reply<Body = unknown> {
  readonly status?: 200 | 202;
  readonly body: Body;
  /** Sent as the `OsoOffset` header after mutations. */
  readonly dataVersion?: number;
}

/**
 * How fresh a question's answer must be: `atLeast` is the data version of a write the asker
 * has seen (the `OsoOffset` a client sends back). The answer then reflects that write, read on
 * a standby that has replayed it or on the primary (src/store/replicas.ts).
 */
export interface Reading {
  readonly atLeast?: number;
}

export interface PolarService {
  getPolicy(query: { id?: string }): Promise<Reply>;
  postPolicy(body: unknown, query: { fail_fast?: string }): Promise<Reply>;
  policyMetadata(): Promise<Reply>;
  authorize(body: unknown, reading?: Reading): Promise<Reply>;
  /** `POST /explain`: the `/authorize` body; answers `{ allowed, explanation }`. */
  explain(body: unknown, reading?: Reading): Promise<Reply>;
  authorizeResources(body: unknown, reading?: Reading): Promise<Reply>;
  list(body: unknown, reading?: Reading): Promise<Reply>;
  actions(body: unknown, reading?: Reading): Promise<Reply>;
  evaluateQuery(body: unknown, reading?: Reading): Promise<Reply>;
  batch(body: unknown): Promise<Reply>;
  /** `GET /facts` with the raw query-string pairs (`predicate`, `args.0.type`, ...). */
  getFacts(query: ReadonlyMap<string, string>): Promise<Reply>;
  clearData(): Promise<Reply>;
  /** `GET /export_facts`: every stored fact once, a page at a time (`page_size`, `page_token`). */
  exportFacts(query: { page_size?: string; page_token?: string }): Promise<Reply>;
  authorizeQuery(body: unknown, reading?: Reading): Promise<Reply>;
  actionsQuery(body: unknown, reading?: Reading): Promise<Reply>;
  listQuery(body: unknown, reading?: Reading): Promise<Reply>;
  evaluateQueryLocal(body: unknown, reading?: Reading): Promise<Reply>;
  /** `POST /policy/preview`: who gains and who loses access under a candidate policy. */
  previewPolicy(body: unknown): Promise<Reply>;
  // The routes of the 1.x clients (src/service/compat.ts).
  /** `POST /facts`: inserts one fact; the reply is the stored fact. */
  insertFact(body: unknown): Promise<Reply>;
  /** `DELETE /facts`: deletes the facts matching one pattern. */
  deleteFact(body: unknown): Promise<Reply>;
  /** `POST /bulk_load`: inserts facts. */
  bulkLoad(body: unknown): Promise<Reply>;
  /** `POST /bulk_delete`: deletes the facts matching patterns. */
  bulkDelete(body: unknown): Promise<Reply>;
  /** `POST /bulk`: `{delete, tell}`, deletes first, in one transaction. */
  bulk(body: unknown): Promise<Reply>;
  /** `POST /bulk_actions`: `/actions` for many resources. */
  bulkActions(body: unknown, reading?: Reading): Promise<Reply>;
  /** `POST /query`: the facts matching a pattern with wildcards. */
  queryFacts(body: unknown, reading?: Reading): Promise<Reply>;
  /** `GET /stats`: counts of stored facts. */
  stats(): Promise<Reply>;
  /**
   * Before answering a request that carries `OsoOffset: <version>` (the data version a write
   * answered with; the official clients send back the last one they saw): makes sure this
   * instance sees that write. Read-your-writes across instances (docs/scaling.md).
   */
  catchUp?(version: number): Promise<void>;
  /** The read replicas and their state (docs/operations.md#read-replicas); none without. */
  standbys?(): readonly StandbyStatus[];
  /** How the store's recurring reads went in messages (docs/operations.md#metrics). */
  readMessages?(): ReadMessages | null;
  close(): Promise<void>;
}
