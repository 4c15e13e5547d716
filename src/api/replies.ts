/**
 * Zod schemas of the service's answers, for the OpenAPI document (src/http/openapi.ts) and for
 * tests that hold the real answers to them. Requests are validated by the schemas in
 * schemas.ts and wire.ts; these describe what comes back. See docs/http-api.md.
 */
import { z } from "zod";

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
