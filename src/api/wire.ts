/**
 * The wire: every zod schema of the HTTP API in one module, exported for the service, the HTTP
 * layer, the OpenAPI document and library callers, and the one place that turns a zod failure
 * into a 400 naming the field and the problem (docs/http-api.md). Requests: the bodies shared by
 * local and central questions, stored facts and patterns, the central-only bodies and the routes
 * of the 1.x clients (src/service/compat.ts); unknown keys are ignored (clients may send more),
 * `context_facts` defaults to `[]`, `list_query` accepts and ignores page fields. Replies: what
 * comes back, for the OpenAPI document and the tests that hold real answers to them.
 */
import { z } from "zod";
import { ApiError } from "./service.js";

// ---------------------------------------------------------------- shared request bodies

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

// ---------------------------------------------------------------- central-only request bodies

export const authorizeResourcesBodySchema = z.object({
  actor_type: nonEmpty("`actor_type`"),
  actor_id: nonEmpty("`actor_id`"),
  action: z.string(),
  resources: z
    .array(storedValueSchema)
    .nullish()
    .transform((r) => r ?? []),
  context_facts: z
    .array(insertedFactSchema)
    .nullish()
    .transform((facts) => facts ?? []),
});

export const listPageSchema = z.object({
  page_size: z.number().int().nullish(),
  page_token: z.string().nullish(),
});

export const batchBodySchema = z.array(
  z.union([
    z.strictObject({ inserts: z.array(insertedFactSchema) }),
    z.strictObject({ deletes: z.array(factPatternSchema) }),
  ]),
);

export const policyBodySchema = z.object({
  src: z.string(),
  filename: z
    .string()
    .nullish()
    .transform((f) => f ?? null),
});

/** `GET /policy`: `id` may name an older version (ignored: the active policy is returned). */
export const policyQuerySchema = z.object({ id: z.string().optional() });

/** `POST /policy`: `fail_fast=true` reports only the first failing test. */
export const postPolicyQuerySchema = z.object({ fail_fast: z.enum(["true", "false"]).optional() });

/** `GET /facts`: `predicate`, and `args.N.type` / `args.N.id` per position `N` (not listed). */
export const factsQuerySchema = z.object({ predicate: nonEmpty("`predicate`") });

export const EXPORT_PAGE_SIZE = { default: 1000, max: 10_000 } as const;

/** `GET /export_facts`: a page size and the previous page's token. */
export const exportFactsQuerySchema = z.object({
  page_size: z
    .string()
    .regex(/^[0-9]{1,5}$/, `\`page_size\` must be a number from 1 to ${EXPORT_PAGE_SIZE.max}`)
    .optional(),
  page_token: z.string().optional(),
});

/** Validates a body; a failure is a 400 whose message names the field and the problem. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ApiError(400, describeIssue(result.error.issues[0]));
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "invalid request body";
  const path = issue.path.map(String).join(".");
  const where = path ? `\`${path}\`` : "request body";
  switch (issue.code) {
    case "invalid_type":
      return `${where} must be ${article(issue.expected)}`;
    case "unrecognized_keys":
      return `${where} has unknown field ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
    case "invalid_union":
      return `${where} must be {"inserts": [...]} or {"deletes": [...]}`;
    case "too_small":
      return /must not be empty/.test(issue.message)
        ? `${where} must not be empty`
        : `${where} is too short`;
    default:
      // A schema's own message already names the field.
      if (issue.message.startsWith(where)) return issue.message;
      return `${where}: ${issue.message.toLowerCase()}`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

// ---------------------------------------------------------------- replies

const typedId = z.object({ type: z.string(), id: z.string() });

export const factSchema = z.object({ predicate: z.string(), args: z.array(typedId) });

/** Every error: a lowercase message (some routes add fields, see `policyErrorSchema`). */
export const errorReplySchema = z.object({ message: z.string() });

/** `POST /policy` refused: validation errors or failing tests. */
export const policyErrorSchema = z.object({
  message: z.string(),
  error_type: z.enum(["Validation", "TestsFailed"]),
  errors: z.array(z.object({ error_type: z.string(), message: z.string() })).optional(),
  test_results: z
    .object({
      success: z.boolean(),
      errors: z.array(z.object({ error_type: z.string(), message: z.string() })),
      tests: z.array(z.object({ name: z.string(), passed: z.number(), total: z.number() })),
    })
    .optional(),
});

/** The reply of every write and of `clear_data`: `{"message": "…"}`. */
export const messageReplySchema = z.object({ message: z.string() });

export const policyReplySchema = z.object({
  policy: z.object({ filename: z.string(), src: z.string() }).nullable(),
});

export const policyMetadataReplySchema = z.object({
  metadata: z.object({
    resources: z.record(
      z.string(),
      z.object({
        roles: z.array(z.string()),
        permissions: z.array(z.string()),
        relations: z.record(z.string(), z.string()),
      }),
    ),
  }),
});

export const allowedReplySchema = z.object({ allowed: z.boolean() });

export const resourcesReplySchema = z.object({ results: z.array(typedId) });

/** `POST /list`: `next_page_token` is present only when more results follow. */
export const listReplySchema = z.object({
  results: z.array(z.string()),
  next_page_token: z.string().optional(),
});

export const actionsReplySchema = z.object({ results: z.array(z.string()) });

export const evaluateQueryReplySchema = z.object({
  results: z.array(z.record(z.string(), z.string().nullable())),
});

export const factsReplySchema = z.array(factSchema);

export const exportFactsReplySchema = z.object({
  facts: z.array(factSchema),
  next_page_token: z.string().nullable(),
});

export const healthReplySchema = z.object({ status: z.literal("ok") });
