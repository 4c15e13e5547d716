/**
 * The routes of the older (1.x) official clients, answered through the current endpoints:
 * writes become `/batch` changesets (same validation, one transaction), `bulk_actions` and
 * `query` become `/evaluate_query` questions. Documented in docs/migrating-from-oso-cloud.md.
 */

import { ApiError, type PolarService, type Reading, type Reply } from "../api/service.js";
import { candidateTypes, concreteSubtypes } from "../api/wildcard-types.js";
import {
  bulkActionsBodySchema,
  bulkBodySchema,
  bulkDeleteBodySchema,
  bulkLoadBodySchema,
  deleteFactBodySchema,
  factQueryBodySchema,
  insertFactBodySchema,
  parseBody,
} from "../api/wire.js";
import { canonicalFact } from "../check/facts.js";
import { type Program, predicateKey } from "../check/program.js";
import { compareCodePoints, type GroundFact, isAbstractType } from "../core/value.js";
import type { FactShape } from "../store/facts.js";

interface CompatSources {
  /** The active policy (the empty one when none was stored). */
  program(): Promise<Program>;
  /** The argument types of stored facts, per predicate. */
  shapes(): Promise<readonly FactShape[]>;
  /** Stored `has_role` facts, `has_relation` facts, and all facts. */
  counts(): Promise<{ roles: number; relations: number; facts: number }>;
}

type CompatEndpoints = Pick<
  PolarService,
  | "insertFact"
  | "deleteFact"
  | "bulkLoad"
  | "bulkDelete"
  | "bulk"
  | "bulkActions"
  | "queryFacts"
  | "stats"
>;

/** Distinct (actor, resource type) pairs in one `/bulk_actions`: one question each. */
const MAX_BULK_ACTIONS_GROUPS = 100;

/** Type combinations one `/query` may ask about (its untyped wildcards multiply them). */
const MAX_QUERY_TYPE_COMBINATIONS = 64;

/**
 * The 1.x endpoints over a service's `batch` and `evaluateQuery`.
 *
 *   const compat = compatEndpoints(service, sources);
 *   await compat.stats(); // { body: { num_roles: 2, num_relations: 1, num_facts: 3 } }
 */
export function compatEndpoints(
  service: Pick<PolarService, "batch" | "evaluateQuery">,
  sources: CompatSources,
): CompatEndpoints {
  const message = async (changesets: unknown[], text: string): Promise<Reply> => {
    const { dataVersion } = await service.batch(changesets);
    return { body: { message: text }, ...(dataVersion !== undefined && { dataVersion }) };
  };
  return {
    async insertFact(body) {
      const fact = parseBody(insertFactBodySchema, body);
      const { dataVersion } = await service.batch([{ inserts: [fact] }]);
      const stored = canonicalFact(fact);
      return {
        body: {
          predicate: stored.predicate,
          args: stored.args.map(({ type, id }) => ({ type, id })),
        },
        ...(dataVersion !== undefined && { dataVersion }),
      };
    },
    async deleteFact(body) {
      const pattern = parseBody(deleteFactBodySchema, body);
      return message([{ deletes: [pattern] }], "matching facts deleted");
    },
    async bulkLoad(body) {
      const facts = parseBody(bulkLoadBodySchema, body);
      return message([{ inserts: facts }], `${facts.length} fact${plural(facts.length)} inserted`);
    },
    async bulkDelete(body) {
      const patterns = parseBody(bulkDeleteBodySchema, body);
      return message([{ deletes: patterns }], "matching facts deleted");
    },
    async bulk(body) {
      const request = parseBody(bulkBodySchema, body);
      return message(
        [{ deletes: request.delete }, { inserts: request.tell }],
        `deleted matching facts, then inserted ${request.tell.length} fact${plural(request.tell.length)}`,
      );
    },
    bulkActions: (body, reading = {}) => bulkActions(service, body, reading),
    queryFacts: (body, reading = {}) => queryFacts(service, sources, body, reading),
    async stats() {
      const counts = await sources.counts();
      return {
        body: { num_roles: counts.roles, num_relations: counts.relations, num_facts: counts.facts },
      };
    },
  };
}

type Row = Record<string, string | null>;

/** One `allow(actor, action, resource)` question per actor and resource type. */
async function bulkActions(
  service: Pick<PolarService, "evaluateQuery">,
  body: unknown,
  reading: Reading,
): Promise<Reply> {
  const queries = parseBody(bulkActionsBodySchema, body);
  const contextFacts = [
    ...new Map(queries.flatMap((q) => q.context_facts).map((f) => [JSON.stringify(f), f])).values(),
  ];
  const groups = new Map<
    string,
    { actorType: string; actorId: string; type: string; ids: Set<string> }
  >();
  for (const q of queries) {
    const key = JSON.stringify([q.actor_type, q.actor_id, q.resource_type]);
    const group = groups.get(key) ?? {
      actorType: q.actor_type,
      actorId: q.actor_id,
      type: q.resource_type,
      ids: new Set<string>(),
    };
    group.ids.add(q.resource_id);
    groups.set(key, group);
  }
  if (groups.size > MAX_BULK_ACTIONS_GROUPS) {
    throw new ApiError(
      400,
      `\`bulk_actions\` asks about ${groups.size} actor and resource type pairs (at most ${MAX_BULK_ACTIONS_GROUPS}); split the request`,
    );
  }
  const permitted = new Map<string, Set<string>>();
  for (const [key, group] of groups) {
    // An abstract type has no values: no actions, as `/actions` answers.
    if (isAbstractType(group.actorType) || isAbstractType(group.type)) continue;
    const reply = await service.evaluateQuery(
      {
        predicate: ["allow", ["actor", "action", "resource"]],
        calls: [],
        constraints: {
          actor: { type: group.actorType, ids: [group.actorId] },
          action: { type: "String", ids: null },
          resource: { type: group.type, ids: [...group.ids] },
        },
        context_facts: contextFacts,
      },
      reading,
    );
    for (const row of (reply.body as { results: Row[] }).results) {
      const resource = `${key}\u0000${row.resource}`;
      const actions = permitted.get(resource) ?? new Set<string>();
      actions.add(row.action ?? "*");
      permitted.set(resource, actions);
    }
  }
  const results = queries.map((q) => {
    const key = JSON.stringify([q.actor_type, q.actor_id, q.resource_type]);
    const actions = permitted.get(`${key}\u0000${q.resource_id}`) ?? new Set<string>();
    return { results: [...actions].sort(compareCodePoints) };
  });
  return { body: results };
}

/** The facts, stored or derived, that match a pattern: one question per type combination. */
async function queryFacts(
  service: Pick<PolarService, "evaluateQuery">,
  sources: CompatSources,
  body: unknown,
  reading: Reading,
): Promise<Reply> {
  const { fact, context_facts } = parseBody(factQueryBodySchema, body);
  const program = await sources.program();
  const wildcardSources = {
    program,
    shapes: fact.args.some((arg) => arg.type === null) ? await sources.shapes() : [],
    contextFacts: context_facts as readonly GroundFact[],
  };
  const arity = fact.args.length;
  const typeChoices = fact.args.map((arg, i): readonly string[] => {
    if (arg.type === null) {
      if (arg.id !== null)
        throw new ApiError(400, `\`fact.args.${i}\` has an id but no type; give both`);
      return [...candidateTypes(wildcardSources, fact.predicate, arity, i)].sort();
    }
    if (arg.id === null && isAbstractType(arg.type))
      return [...concreteSubtypes(program, arg.type)].sort();
    return [arg.type];
  });
  const combinations = typeChoices.reduce((n, choices) => n * choices.length, 1);
  if (combinations === 0) knownPredicate(program, wildcardSources.shapes, fact.predicate, arity);
  if (combinations > MAX_QUERY_TYPE_COMBINATIONS) {
    throw new ApiError(
      400,
      `the wildcards of \`${fact.predicate}\` may stand for ${combinations} combinations of types (at most ${MAX_QUERY_TYPE_COMBINATIONS}); give the wildcards a type`,
    );
  }
  const variables = fact.args.map((_, i) => `a${i}`);
  const found = new Map<string, { predicate: string; args: Row[] }>();
  for (const types of product(typeChoices)) {
    const constraints = Object.fromEntries(
      fact.args.map((arg, i) => [
        variables[i],
        { type: types[i], ids: arg.id === null ? null : [arg.id] },
      ]),
    );
    const reply = await service.evaluateQuery(
      {
        predicate: [fact.predicate, variables],
        calls: [],
        constraints,
        context_facts,
      },
      reading,
    );
    for (const row of (reply.body as { results: Row[] }).results) {
      const args = variables.map((v, i) => ({ type: types[i]!, id: row[v] ?? null }));
      found.set(JSON.stringify(args), { predicate: fact.predicate, args });
    }
  }
  const results = [...found.entries()]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([, value]) => value);
  return { body: { results } };
}

/** A question about an unknown predicate is refused, as `/evaluate_query` refuses it. */
function knownPredicate(
  program: Program,
  shapes: readonly FactShape[],
  predicate: string,
  arity: number,
): void {
  const key = predicateKey(predicate, arity);
  if (program.rules.has(key) || program.factSignatures.has(key)) return;
  if (shapes.some((s) => s.predicate === predicate && s.types.length === arity)) return;
  throw new ApiError(400, `unknown predicate \`${key}\``);
}

/** Every combination taking one element from each list. */
function* product(lists: readonly (readonly string[])[]): Generator<string[]> {
  if (lists.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = lists;
  for (const tail of product(rest)) for (const head of first!) yield [head, ...tail];
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}
