/**
 * How refusals of the steps become replies: every stage's coded refusal (a `StageError`:
 * invalid policies and bindings, the question, planning, lowering, evaluation, iteration,
 * literals, the store's refusals of a write) is a 400; a spent budget and a statement past the
 * request's deadline are 422s naming their limit; anything else stays a 500. And the one check
 * every endpoint with a body makes first: how many strings it holds.
 */
import { budgetError, type Limits, limitError, limitMessage } from "../api/limits.js";
import { ApiError, type PolarService } from "../api/service.js";
import { BudgetExceeded } from "../core/budget.js";
import { DeadlineExceeded } from "../core/deadline.js";
import { StageError } from "../source/stage-error.js";

/** The refusal `cause` is answered with, or `cause` itself when it is no refusal. */
export function refusal(cause: unknown, limits: Limits): unknown {
  if (cause instanceof StageError) return new ApiError(400, cause.message);
  if (cause instanceof BudgetExceeded) return budgetError(cause);
  if (cause instanceof DeadlineExceeded) {
    const what = "the request's statement did not finish in time";
    return new ApiError(422, limitMessage("requestMs", limits.requestMs, what));
  }
  return cause;
}

/** Runs `work`, turning its refusals into replies (`refusal`). */
export async function guarded<T>(limits: Limits, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    throw refusal(cause, limits);
  }
}

/** Every endpoint that takes a body refuses one with more strings than `limit` first. */
export function withIdLimit(service: PolarService, limit: number): PolarService {
  const limited: Record<string, unknown> = { ...service };
  for (const [name, endpoint] of Object.entries(service)) {
    if (typeof endpoint !== "function" || BODILESS.has(name)) continue;
    limited[name] = async (body: unknown, ...rest: unknown[]) => {
      const count = countStrings(body, limit);
      if (count > limit) {
        throw limitError("idsPerRequest", limit, `the request has more than ${limit} ids`);
      }
      return (endpoint as (...args: unknown[]) => unknown).call(service, body, ...rest);
    };
  }
  return limited as unknown as PolarService;
}

/** Endpoints without a body, and the service's synchronous reports, called as they are. */
const BODILESS = new Set<string>([
  "getPolicy",
  "policyMetadata",
  "getFacts",
  "clearData",
  "exportFacts",
  "stats",
  "catchUp",
  "standbys",
  "readMessages",
  "close",
] satisfies (keyof PolarService)[]);

/** The strings in a JSON value, counted without recursion up to just past `stop`. */
function countStrings(value: unknown, stop: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= stop) {
    const next = pending.pop();
    if (typeof next === "string") count++;
    else if (next !== null && typeof next === "object") {
      for (const item of Array.isArray(next) ? next : Object.values(next)) pending.push(item);
    }
  }
  return count;
}
