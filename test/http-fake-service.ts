/**
 * A fake PolarService for adapter tests: it records each call and echoes what it received,
 * and a body `{"fail": "api" | "crash"}` makes it refuse or crash.
 */
import { ApiError, type PolarService, type Reply } from "../src/api/service.js";

export interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

export interface FakeService extends PolarService {
  readonly calls: Call[];
  closed: boolean;
}

function react(method: string, body: unknown, extra: Partial<Reply> = {}): Reply {
  const fail = (body as { fail?: unknown } | null)?.fail;
  if (fail === "api") {
    throw new ApiError(400, "`actor_id` must not be empty", { error_type: "Generic" });
  }
  if (fail === "crash") throw new Error("secret database password in stack");
  return { body: { method, body: body ?? null }, ...extra };
}

/** A fresh fake; `dataVersion` counts mutations. */
export function fakeService(): FakeService {
  const calls: Call[] = [];
  let version = 0;
  const record =
    (method: string, reply: (...args: unknown[]) => Reply) =>
    async (...args: unknown[]) => {
      calls.push({ method, args });
      return reply(...args);
    };
  return {
    calls,
    closed: false,
    getPolicy: record("getPolicy", (query) => ({ body: { method: "getPolicy", query } })),
    postPolicy: record("postPolicy", (body, query) => {
      const unchanged = (body as { src?: unknown } | null)?.src === "unchanged";
      return react(
        "postPolicy",
        { body, query },
        {
          dataVersion: ++version,
          ...(unchanged && { status: 202 }),
        },
      );
    }),
    policyMetadata: record("policyMetadata", () => ({ body: { metadata: { resources: {} } } })),
    authorize: record("authorize", (body) => react("authorize", body)),
    explain: record("explain", (body) => react("explain", body)),
    authorizeResources: record("authorizeResources", (body) => react("authorizeResources", body)),
    list: record("list", (body) => react("list", body)),
    actions: record("actions", (body) => react("actions", body)),
    evaluateQuery: record("evaluateQuery", (body) => react("evaluateQuery", body)),
    batch: record("batch", (body) => react("batch", body, { dataVersion: ++version })),
    getFacts: record("getFacts", (query) => ({
      body: [...(query as Map<string, string>).entries()],
    })),
    exportFacts: record("exportFacts", (query) => ({ body: { facts: [], query } })),
    clearData: record("clearData", () => ({
      body: { message: "cleared" },
      dataVersion: ++version,
    })),
    authorizeQuery: record("authorizeQuery", (body) => react("authorizeQuery", body)),
    actionsQuery: record("actionsQuery", (body) => react("actionsQuery", body)),
    listQuery: record("listQuery", (body) => react("listQuery", body)),
    evaluateQueryLocal: record("evaluateQueryLocal", (body) => react("evaluateQueryLocal", body)),
    previewPolicy: record("previewPolicy", (body) => react("previewPolicy", body)),
    insertFact: record("insertFact", (body) =>
      react("insertFact", body, { dataVersion: ++version }),
    ),
    deleteFact: record("deleteFact", (body) =>
      react("deleteFact", body, { dataVersion: ++version }),
    ),
    bulkLoad: record("bulkLoad", (body) => react("bulkLoad", body, { dataVersion: ++version })),
    bulkDelete: record("bulkDelete", (body) =>
      react("bulkDelete", body, { dataVersion: ++version }),
    ),
    bulk: record("bulk", (body) => react("bulk", body, { dataVersion: ++version })),
    bulkActions: record("bulkActions", (body) => react("bulkActions", body)),
    queryFacts: record("queryFacts", (body) => react("queryFacts", body)),
    stats: record("stats", () => ({ body: { num_roles: 0, num_relations: 0, num_facts: 0 } })),
    async catchUp(version) {
      calls.push({ method: "catchUp", args: [version] });
    },
    async close() {
      this.closed = true;
    },
  };
}
