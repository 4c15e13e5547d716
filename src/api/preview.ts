/**
 * `POST /api/policy/preview` (docs/policy-preview.md): who would gain and who would lose which
 * access if the posted policy replaced the active one, over the stored facts. Nothing is
 * written: the active policy and the facts stay as they are.
 */
import { z } from "zod";
import { type CheckResult, checkPolicy, checkPolicyInSlices } from "../check/check.js";
import type { Program } from "../check/program.js";
import { BudgetExceeded } from "../core/budget.js";
import { PreviewError } from "../preview/errors.js";
import { previewPolicyChange } from "../preview/preview.js";
import { previewStoreOf } from "../preview/store-view.js";
import { formatDiagnosticLine } from "../source/format.js";
import { StageError } from "../source/stage-error.js";
import type { FactStore } from "../store/store.js";
import { budgetError, checkPolicyShape, type Limits, limitError, workBudget } from "./limits.js";
import { ApiError, type Reply } from "./service.js";
import { concreteFactSchema, parseBody, policyBodySchema } from "./wire.js";

/** A `POST /policy` body, and the page of changes and the context facts to read them with. */
export const previewBodySchema = policyBodySchema.extend({
  page_size: z.number().int().nullish(),
  page_token: z.string().nullish(),
  context_facts: z
    .array(concreteFactSchema)
    .nullish()
    .transform((facts) => facts ?? []),
});

const tripleSchema = z.object({
  actor: z.object({ type: z.string(), id: z.string() }),
  action: z.string(),
  resource: z.object({ type: z.string(), id: z.string() }),
});
const testSummarySchema = z.object({ passed: z.array(z.string()), failed: z.array(z.string()) });

export const previewReplySchema = z.object({
  gained: z.array(tripleSchema),
  lost: z.array(tripleSchema),
  counts: z.record(
    z.string(),
    z.record(z.string(), z.object({ gained: z.number(), lost: z.number() })),
  ),
  tests: z.object({ active: testSummarySchema, candidate: testSummarySchema }),
  next_page_token: z.string().optional(),
});

/** What the endpoint reads: the store, the service's limits and its clock. */
interface PreviewContext {
  readonly store: FactStore;
  readonly limits: Limits;
  readonly now?: () => bigint;
}

/**
 * One page of the preview of the posted policy against the active one.
 *
 *   await previewReply({ store, limits }, { src: "actor User {} …", filename: "new.polar" })
 *   // { body: { gained: […], lost: […], counts: {…}, tests: {…} } }
 */
export async function previewReply(context: PreviewContext, body: unknown): Promise<Reply> {
  const request = parseBody(previewBodySchema, body);
  const { store, limits } = context;
  const bytes = Buffer.byteLength(request.src);
  if (bytes > limits.policyBytes) {
    throw limitError("policyBytes", limits.policyBytes, `the policy has ${bytes} bytes`);
  }
  const sources = [{ name: request.filename || "policy.polar", text: request.src }];
  const candidate = checkedCandidate(await checkPolicyInSlices(sources), limits);
  const active = (await store.program()) ?? EMPTY_PROGRAM;
  try {
    const page = await previewPolicyChange(await previewStoreOf(store), {
      active,
      candidate,
      contextFacts: request.context_facts,
      ...(request.page_size != null && { pageSize: request.page_size }),
      ...(request.page_token != null && { pageToken: request.page_token }),
      ...(context.now && { now: context.now }),
      limits: { timeMs: limits.requestMs },
      budget: workBudget(limits),
    });
    return { body: page };
  } catch (cause) {
    if (cause instanceof PreviewError) throw new ApiError(cause.status, cause.message);
    if (cause instanceof StageError) throw new ApiError(400, cause.message);
    if (cause instanceof BudgetExceeded) throw budgetError(cause);
    throw cause;
  }
}

/** The candidate's program, or the 400 that lists its errors as `POST /policy` does. */
function checkedCandidate(checked: CheckResult, limits: Limits): Program {
  if (!checked.ok) {
    const errors = checked.diagnostics.filter((d) => d.severity === "error");
    const lines = errors.map((d) => formatDiagnosticLine(d, checked.sources));
    const count = `(${errors.length} error${errors.length === 1 ? "" : "s"})`;
    throw new ApiError(400, `${lines[0]} ${count}`, {
      error_type: "Validation",
      errors: lines.map((message) => ({ error_type: "ValidationFailed", message })),
    });
  }
  checkPolicyShape(checked.program, limits);
  return checked.program;
}

/** The active policy when none was stored: no rules, so nothing is allowed. */
const EMPTY_PROGRAM: Program = (() => {
  const result = checkPolicy([{ name: "empty.polar", text: "" }]);
  if (!result.ok) throw new Error("the empty policy does not check");
  return result.program;
})();
