/**
 * Zod schemas of request and reply bodies, exported for the HTTP layer, the OpenAPI document
 * and library callers: the local-authorization bodies, stored facts and patterns, and the
 * routes of the 1.x clients (src/service/compat.ts). Unknown keys are ignored (clients may send
 * more); `context_facts` defaults to `[]`; `list_query` accepts and ignores page fields.
 */
import { z } from "zod";

const name = z.string().min(1);

/** A string that must not be empty; the message names the field. */
export const nonEmpty = (what: string) => z.string().min(1, `${what} must not be empty`);

/**
 * The id of a value in a question. Ids are never empty, on every surface: stored and context
 * facts cannot hold one, and a question about one is refused (docs/http-api.md, "Ids").
 */
const questionId = z.string().min(1, "must not be empty");

/** `{"type": "User", "id": "ada"}`: a concrete value (context facts, actors, resources). */
export const typedIdSchema = z.object({ type: name, id: z.string() });

export const concreteFactSchema = z.object({
  predicate: name,
  args: z.array(typedIdSchema),
});

const contextFacts = z
  .array(concreteFactSchema)
  .nullish()
  .transform((facts) => facts ?? []);

export const authorizeBodySchema = z.object({
  actor_type: name,
  actor_id: questionId,
  action: z.string(),
  resource_type: name,
  resource_id: questionId,
  context_facts: contextFacts,
});

export const actionsBodySchema = z.object({
  actor_type: name,
  actor_id: questionId,
  resource_type: name,
  resource_id: questionId,
  context_facts: contextFacts,
});

export const listBodySchema = z.object({
  actor_type: name,
  actor_id: questionId,
  action: z.string(),
  resource_type: name,
  context_facts: contextFacts,
  page_size: z.unknown().optional(),
  page_token: z.unknown().optional(),
});

/** `/evaluate_query`'s `Query` object (docs/http-api.md#post-apievaluate_query). */
export const querySchema = z.object({
  predicate: z.tuple([name, z.array(name)]),
  calls: z
    .array(z.tuple([name, z.array(name)]))
    .nullish()
    .transform((calls) => calls ?? []),
  constraints: z.record(name, z.object({ type: name, ids: z.array(questionId).nullable() })),
  context_facts: contextFacts,
});

const dataBindings = z.string();
/**
 * The engine the SQL is for (`postgres` when absent): one of the dialects (docs/dialects.md),
 * checked by the local functions, whose message names the allowed ones; the OpenAPI document
 * lists them as an enum (src/http/openapi.ts).
 */
export const dialectSchema = z.string();
const dialect = dialectSchema.optional();

export const authorizeQueryRequestSchema = z.object({
  query: authorizeBodySchema,
  data_bindings: dataBindings,
  dialect,
});

export const actionsQueryRequestSchema = z.object({
  query: actionsBodySchema,
  data_bindings: dataBindings,
  dialect,
});

export const listQueryRequestSchema = z.object({
  query: listBodySchema,
  column: z.string().min(1),
  data_bindings: dataBindings,
  dialect,
});

export const localModeSchema = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("select"),
    query_vars_to_output_column_names: z.record(name, name),
  }),
  z.object({
    mode: z.literal("filter"),
    query_var: name,
    output_column_name: z.string().min(1),
  }),
]);

export const evaluateQueryLocalRequestSchema = z.object({
  query: querySchema,
  data_bindings: dataBindings,
  dialect,
  mode: localModeSchema,
});

/** What a schema accepts, with every array and object readonly (callers may pass either). */
type Accepted<T> = T extends object ? { readonly [K in keyof T]: Accepted<T[K]> } : T;

export type AuthorizeBody = z.output<typeof authorizeBodySchema>;
export type AuthorizeQueryRequest = Accepted<z.input<typeof authorizeQueryRequestSchema>>;
export type ActionsQueryRequest = Accepted<z.input<typeof actionsQueryRequestSchema>>;
export type ListQueryRequest = Accepted<z.input<typeof listQueryRequestSchema>>;
export type EvaluateQueryLocalRequest = Accepted<z.input<typeof evaluateQueryLocalRequestSchema>>;

/** The SQL every local endpoint answers with. */
export const localQueryResponseSchema = z.object({ sql: z.string() });
export type LocalQueryResponse = z.infer<typeof localQueryResponseSchema>;

/** `POST /explain` takes the body of `/authorize`. */
export const explainBodySchema = authorizeBodySchema;
export type ExplainBody = z.input<typeof explainBodySchema>;

/** The clause a node used (docs/explain.md): where it starts, 1-based, and its text. */
export const explainRuleSchema = z.strictObject({
  file: z.string(),
  line: z.number().int().min(1),
  column: z.number().int().min(1),
  text: z.string(),
});

/** A fact leaf in wire form, and where the fact came from. */
export const explainFactSchema = z.strictObject({
  predicate: z.string(),
  args: z.array(z.strictObject({ type: z.string(), id: z.string() })),
  source: z.enum(["stored", "context", "local", "setup"]),
});

/** One node of an explanation tree (docs/explain.md). */
export const explainNodeSchema = z.strictObject({
  goal: z.string(),
  holds: z.boolean(),
  rule: explainRuleSchema.optional(),
  fact: explainFactSchema.optional(),
  note: z.string().optional(),
  get children() {
    return z.array(explainNodeSchema);
  },
});

/** What `/explain` answers. */
export const explainResponseSchema = z.strictObject({
  allowed: z.boolean(),
  explanation: explainNodeSchema,
});
export type ExplainResponse = z.infer<typeof explainResponseSchema>;
// ---------------------------------------------------------------- stored facts

/** `{type, id}` with both set and non-empty: resources, inserted fact arguments. */
export const storedValueSchema = z.object({
  type: nonEmpty("`type`"),
  id: nonEmpty("`id`"),
});

/**
 * `{type, id}` where either may be null or missing: a pattern. Null type and id match any
 * value; a type with a null id matches any value of exactly that type.
 */
export const valuePatternSchema = z.object({
  type: z
    .string()
    .min(1, "`type` must not be empty")
    .nullish()
    .transform((t) => t ?? null),
  id: z
    .string()
    .min(1, "`id` must not be empty; null matches any id")
    .nullish()
    .transform((id) => id ?? null),
});

/** A fact to store: every argument concrete. */
export const insertedFactSchema = z.object({
  predicate: nonEmpty("`predicate`"),
  args: z.array(storedValueSchema),
});

/** A fact pattern: arguments may be wildcards (see `valuePatternSchema`). */
export const factPatternSchema = z.object({
  predicate: nonEmpty("`predicate`"),
  args: z.array(valuePatternSchema),
});

/** A fact in a reply; a wildcard argument has a null id (and a null type when untyped). */
export const factReplySchema = z.object({
  predicate: z.string(),
  args: z.array(z.object({ type: z.string().nullable(), id: z.string().nullable() })),
});

// ---------------------------------------------------------------- the 1.x routes

/** `POST /facts` (1.x `tell`): one fact; the reply is the stored fact. */
export const insertFactBodySchema = insertedFactSchema;

/** `DELETE /facts` (1.x `delete`): one fact pattern; every matching fact is deleted. */
export const deleteFactBodySchema = factPatternSchema;

/** `POST /bulk_load` (1.x `bulkTell`): facts to insert. */
export const bulkLoadBodySchema = z.array(insertedFactSchema);

/** `POST /bulk_delete` (1.x `bulkDelete`): fact patterns; every matching fact is deleted. */
export const bulkDeleteBodySchema = z.array(factPatternSchema);

/** `POST /bulk` (1.x `bulk`): deletes, then inserts, in one transaction. */
export const bulkBodySchema = z.object({
  delete: z
    .array(factPatternSchema)
    .nullish()
    .transform((facts) => facts ?? []),
  tell: z
    .array(insertedFactSchema)
    .nullish()
    .transform((facts) => facts ?? []),
});

/**
 * `POST /bulk_actions` (1.x `bulkActions`): `/actions` bodies. The context facts of all of them
 * apply to each (the 1.x client sends them with the first body only).
 */
export const bulkActionsBodySchema = z.array(actionsBodySchema);

/** `POST /bulk_actions` reply: one `{results}` per body, in order. */
export const bulkActionsReplySchema = z.array(z.object({ results: z.array(z.string()) }));

/** `POST /query` (1.x `query`): a fact pattern, typed or untyped wildcards, context facts. */
export const factQueryBodySchema = z.object({
  fact: factPatternSchema,
  context_facts: z
    .array(insertedFactSchema)
    .nullish()
    .transform((facts) => facts ?? []),
});

/** `POST /query` reply: the facts (stored or derived) that match, wildcards where any value fits. */
export const factQueryReplySchema = z.object({ results: z.array(factReplySchema) });

/** `GET /stats`: stored `has_role` facts, stored `has_relation` facts, all stored facts. */
export const statsReplySchema = z.object({
  num_roles: z.number().int(),
  num_relations: z.number().int(),
  num_facts: z.number().int(),
});
