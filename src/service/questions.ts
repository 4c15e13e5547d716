/**
 * The central question endpoints: each decodes and validates its body, asks one or more
 * questions through the central steps (src/service/central.ts) by the request's deadline, and
 * encodes the rows as its reply.
 */
import { type Limits, limitError } from "../api/limits.js";
import {
  actionsQuestion,
  authorizeQuestion,
  type EvaluateQuery,
  evaluateQuestion,
} from "../api/questions.js";
import { ApiError, type PolarService, type Reading } from "../api/service.js";
import {
  actionsBodySchema,
  authorizeBodySchema,
  authorizeResourcesBodySchema,
  listBodySchema,
  listPageSchema,
  parseBody,
  querySchema,
} from "../api/wire.js";
import { compareCodePoints, INTEGER_MAX } from "../core/value.js";
import { askCentral, type CentralSteps, type QuestionBuilder } from "./central.js";
import { type PageTokens, queryHash } from "./page-tokens.js";
import { guarded } from "./refusals.js";

export const MIN_PAGE_SIZE = 10_000;

/** The refusal of `/list` without `page_size`, naming the switch that lifts it. */
export const UNPAGED_LIST_REFUSED =
  "`page_size` is required (at least 10000); to answer every result in one reply, as the 1.x clients expect, start the server with `--allow-unpaged-list`";

/** Params of a central list page's statement (never names of question variables). */
const PAGE_AFTER = "page after";
const PAGE_LIMIT = "page limit";

type QuestionEndpoints = Pick<
  PolarService,
  "authorize" | "authorizeResources" | "list" | "actions" | "evaluateQuery"
>;

interface QuestionSettings {
  readonly limits: Limits;
  readonly tokens: PageTokens;
  readonly allowUnpagedList: boolean;
}

export function questionEndpoints(
  steps: CentralSteps,
  { limits, tokens, allowUnpagedList }: QuestionSettings,
): QuestionEndpoints {
  /** The rows of one question, by a deadline counted from now, refusals as replies. */
  const ask = <Row>(
    build: QuestionBuilder,
    reading: Reading = {},
    deadline = Date.now() + limits.requestMs,
  ) => guarded(limits, () => askCentral<Row>(steps, build, deadline, reading));

  /** The page size and the last id of the previous page, from the body or its token. */
  async function page(body: unknown, hash: string) {
    const { page_size, page_token } = parseBody(listPageSchema, body);
    if (page_token) {
      const token = await tokens.read(page_token);
      if (token.q !== hash)
        throw new ApiError(400, "`page_token` belongs to a different list query");
      return { size: token.n, after: token.a };
    }
    // Null: every result in one reply (`allowUnpagedList`).
    if (page_size == null) {
      if (!allowUnpagedList) throw new ApiError(400, UNPAGED_LIST_REFUSED);
      return { size: null, after: null };
    }
    if (page_size < MIN_PAGE_SIZE)
      throw new ApiError(400, `\`page_size\` must be at least ${MIN_PAGE_SIZE}`);
    return { size: page_size, after: null };
  }

  return {
    async authorize(body, reading) {
      const query = parseBody(authorizeBodySchema, body);
      const [row] = await ask<{ allowed: boolean | number }>(
        (program) => authorizeQuestion(program, query),
        reading,
      );
      // SQLite answers 1 for true (src/dialects/sqlite/index.ts).
      return { body: { allowed: row?.allowed === true || row?.allowed === 1 } };
    },

    async authorizeResources(body, reading) {
      const request = parseBody(authorizeResourcesBodySchema, body);
      const deadline = Date.now() + limits.requestMs;
      const byType = new Map<string, string[]>();
      for (const r of request.resources) {
        const ids = byType.get(r.type);
        if (ids) ids.push(r.id);
        else byType.set(r.type, [r.id]);
      }
      const permitted = new Set<string>();
      for (const [type, ids] of byType) {
        const query: EvaluateQuery = {
          predicate: ["allow", ["actor", "action", "resource"]],
          calls: [],
          constraints: {
            actor: { type: request.actor_type, ids: [request.actor_id] },
            action: { type: "String", ids: [request.action] },
            resource: { type, ids: [...new Set(ids)] },
          },
          context_facts: request.context_facts,
        };
        const rows = await ask<{ c0: unknown }>(
          (program, bindings) =>
            evaluateQuestion(program, bindings, query, selectMode(["resource"])),
          reading,
          deadline,
        );
        for (const row of rows) {
          if (row.c0 === null) for (const id of ids) permitted.add(`${type}\u0000${id}`);
          else permitted.add(`${type}\u0000${String(row.c0)}`);
        }
      }
      const results = request.resources.filter((r) => permitted.has(`${r.type}\u0000${r.id}`));
      return { body: { results } };
    },

    async list(body, reading) {
      const request = parseBody(listBodySchema, body);
      const hash = queryHash([
        request.actor_type,
        request.actor_id,
        request.action,
        request.resource_type,
        request.context_facts,
      ]);
      const { size, after } = await page(body, hash);
      const query: EvaluateQuery = {
        predicate: ["allow", ["actor", "action", "resource"]],
        calls: [],
        constraints: {
          actor: { type: request.actor_type, ids: [request.actor_id] },
          action: { type: "String", ids: [request.action] },
          resource: { type: request.resource_type, ids: null },
        },
        context_facts: request.context_facts,
      };
      const found = await ask<{ id: string }>((program, bindings) => {
        const question = evaluateQuestion(program, bindings, query, selectMode(["resource"]));
        // The first page has no `after`: the empty string precedes every id.
        // Unpaged: the largest limit, so that both share one prepared statement.
        const limit = size === null ? INTEGER_MAX : BigInt(size) + 1n;
        const params = new Map(question.params)
          .set(PAGE_AFTER, [after ?? ""])
          .set(PAGE_LIMIT, [limit.toString()]);
        return {
          ...question,
          params,
          shape: { kind: "page", after: PAGE_AFTER, limit: PAGE_LIMIT },
        };
      }, reading);
      if (size === null) return { body: { results: found.map((row) => row.id) } };
      const results = found.slice(0, size).map((row) => row.id);
      if (found.length <= size) return { body: { results } };
      const token = { q: hash, a: results[results.length - 1]!, n: size };
      return { body: { results, next_page_token: await tokens.write(token) } };
    },

    async actions(body, reading) {
      const query = parseBody(actionsBodySchema, body);
      const found = await ask<{ actions: string | null }>(
        (program) => actionsQuestion(program, query),
        reading,
      );
      const results = [...new Set(found.map((row) => row.actions ?? "*"))].sort(compareCodePoints);
      return { body: { results } };
    },

    async evaluateQuery(body, reading) {
      const query = parseBody(querySchema, body);
      // A repeated call counts once: the conjunction holds it once (api/questions.ts).
      const calls = new Set([query.predicate, ...query.calls].map((call) => JSON.stringify(call)));
      if (calls.size > limits.callsPerQuery) {
        const found = `the query has ${calls.size} different calls`;
        throw limitError("callsPerQuery", limits.callsPerQuery, found);
      }
      const variables = Object.keys(query.constraints);
      const mode = selectMode(variables);
      const rows = await ask<Record<string, unknown>>(
        (program, bindings) => evaluateQuestion(program, bindings, query, mode),
        reading,
      );
      if (variables.length === 0) {
        const [row] = rows as { result?: boolean }[];
        return { body: { results: row?.result ? [{}] : [] } };
      }
      return { body: { results: expandRows(rows, query, mode.query_vars_to_output_column_names) } };
    },
  };
}

/** `evaluate_query` in select mode, output columns `c0`, `c1`, … by variable. */
function selectMode(variables: readonly string[]) {
  const names = Object.fromEntries(variables.map((v, i) => [v, `c${i}`]));
  return { mode: "select", query_vars_to_output_column_names: names } as const;
}

/** Rows as wire results: a wildcard for a variable with an ids list is one row per listed id. */
function expandRows(
  rows: readonly Record<string, unknown>[],
  query: EvaluateQuery,
  names: Readonly<Record<string, string>>,
): Record<string, string | null>[] {
  const variables = Object.keys(query.constraints);
  const results: Record<string, string | null>[] = [];
  for (const row of rows) {
    let expanded: Record<string, string | null>[] = [{}];
    for (const variable of variables) {
      const value = row[names[variable]!];
      const { type, ids } = query.constraints[variable]!;
      const options =
        value === null || value === undefined ? (ids ?? [null]) : [wireId(value, type)];
      expanded = expanded.flatMap((partial) =>
        options.map((id) => ({ ...partial, [variable]: id })),
      );
    }
    results.push(...expanded);
  }
  return results;
}

/** SQL results back to wire ids: integers and booleans as their text (SQLite's are 1/0). */
function wireId(value: unknown, type: string): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (type === "Boolean" && (value === 1 || value === 0)) return value === 1 ? "true" : "false";
  return String(value);
}
