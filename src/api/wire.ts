/**
 * Zod schemas of the central-only request bodies (docs/http-api.md#checks; the bodies
 * shared with local questions live in schemas.ts), and the one place that turns a zod
 * failure into a 400 message naming the field and the problem.
 */
import { z } from "zod";
import { factPatternSchema, insertedFactSchema, nonEmpty, storedValueSchema } from "./schemas.js";
import { ApiError } from "./service.js";

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

export { concreteFactSchema } from "./schemas.js";
