/**
 * Asks the central service every question about a small domain, each way it can be asked, and
 * lists where an answer differs from the reference evaluator. Used by the consistency tests.
 */
import type { PolarService } from "../../src/api/service.js";
import type { Program } from "../../src/check/program.js";
import type { GroundFact, Value } from "../../src/core/value.js";
import { actions, authorize, type FactIndex, list } from "../../src/evaluate/index.js";
import type { CentralFamily } from "./central-families.js";

/** Runs the SQL of a local question; the statement is self-contained (no bindings). */
export type SqlRunner = (sql: string) => Promise<Record<string, unknown>[]>;

/** What a round of questions found: the mismatches, and how many triples were allowed. */
export interface Findings {
  readonly mismatches: Mismatch[];
  readonly questions: number;
  readonly allowed: number;
}

export interface Mismatch {
  readonly question: string;
  readonly expected: unknown;
  readonly got: unknown;
}

export interface Asked {
  readonly service: PolarService;
  readonly program: Program;
  /** The reference evaluator's facts (the same facts the service sees, stored or as context). */
  readonly facts: FactIndex;
  /** Sent with every question; empty when the facts are stored. */
  readonly contextFacts: readonly GroundFact[];
  /** Null: the local SQL is not asked (the policy is one local SQL refuses). */
  readonly runSql: SqlRunner | null;
  readonly now: bigint;
}

const typeOf = (family: CentralFamily) => [...new Set(family.resources.map((r) => r.type))];
const show = (v: Value) => `${v.type}{${v.id}}`;

/**
 * Every mismatch between the service's answers and the reference evaluator's, for every actor,
 * action and resource of the family's domain: authorize, list membership, actions membership,
 * evaluate_query, authorize_resources and the executed SQL of authorize_query.
 */
export async function askEverything(family: CentralFamily, asked: Asked): Promise<Findings> {
  const { service, program, facts, contextFacts, now } = asked;
  const found: Mismatch[] = [];
  let questions = 0;
  let allowed = 0;
  const check = (question: string, expected: unknown, got: unknown) => {
    if (JSON.stringify(expected) !== JSON.stringify(got)) found.push({ question, expected, got });
  };
  const context_facts = contextFacts.map((f) => ({ predicate: f.predicate, args: f.args }));
  const evaluateOptions = { now: () => now };

  for (const actor of family.actors) {
    const who = { actor_type: actor.type, actor_id: actor.id };
    for (const type of typeOf(family)) {
      const resources = family.resources.filter((r) => r.type === type);
      const granted = await grantedPairs(service, actor, type, context_facts);
      for (const action of family.actions[type] ?? []) {
        const listed = await listAll(service, {
          ...who,
          action,
          resource_type: type,
          context_facts,
        });
        const expectedList = list(program, facts, actor, action, type, evaluateOptions);
        check(`list ${show(actor)} ${action} ${type}`, expectedList, listed);

        const permitted = (
          await service.authorizeResources({
            ...who,
            action,
            resources: [...resources, ...resources.slice(0, 1)],
            context_facts,
          })
        ).body as { results: Value[] };

        for (const resource of resources) {
          const question = `${show(actor)} ${action} ${show(resource)}`;
          const expected = authorize(program, facts, actor, action, resource, evaluateOptions);
          questions++;
          if (expected) allowed++;
          const body = {
            ...who,
            action,
            resource_type: resource.type,
            resource_id: resource.id,
            context_facts,
          };
          const answer = ((await service.authorize(body)).body as { allowed: boolean }).allowed;
          check(`authorize ${question}`, expected, answer);
          check(`evaluate_query ${question}`, expected, granted(action, resource.id));
          const times = permitted.results.filter((r) => r.id === resource.id).length;
          const twice = resource === resources[0];
          check(`authorize_resources ${question}`, expected ? (twice ? 2 : 1) : 0, times);
          if (asked.runSql) {
            const { sql } = (
              await service.authorizeQuery({ query: body, data_bindings: "facts:\n" })
            ).body as { sql: string };
            const [row] = await asked.runSql(sql);
            check(`authorize_query ${question}`, expected, row?.allowed);
          }
        }
      }
      for (const resource of resources) {
        const body = {
          ...who,
          resource_type: resource.type,
          resource_id: resource.id,
          context_facts,
        };
        const answer = ((await service.actions(body)).body as { results: string[] }).results;
        const expected = actions(program, facts, actor, resource, evaluateOptions);
        check(`actions ${show(actor)} ${show(resource)}`, expected, answer);
      }
    }
  }
  return { mismatches: found, questions, allowed };
}

/** Walks every page of a list. */
async function listAll(service: PolarService, body: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let token: string | null = null;
  do {
    const page = token ? { page_token: token } : { page_size: 10_000 };
    const reply = (await service.list({ ...body, ...page })).body as {
      results: string[];
      next_page_token?: string;
    };
    ids.push(...reply.results);
    token = reply.next_page_token ?? null;
  } while (token);
  return ids;
}

/**
 * `/evaluate_query` for `allow(actor, action, resource)` with the action and resource free:
 * returns whether a row covers (action, id); null in a row covers every value.
 */
async function grantedPairs(
  service: PolarService,
  actor: Value,
  type: string,
  context_facts: readonly unknown[],
): Promise<(action: string, id: string) => boolean> {
  const reply = await service.evaluateQuery({
    predicate: ["allow", ["var_actor", "var_action", "var_resource"]],
    calls: [],
    constraints: {
      var_actor: { type: actor.type, ids: [actor.id] },
      var_action: { type: "String", ids: null },
      var_resource: { type, ids: null },
    },
    context_facts,
  });
  const rows = (reply.body as { results: Record<string, string | null>[] }).results;
  return (action, id) =>
    rows.some(
      (row) =>
        row.var_actor === actor.id &&
        (row.var_action === null || row.var_action === action) &&
        (row.var_resource === null || row.var_resource === id),
    );
}
