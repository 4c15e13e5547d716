/**
 * The bench's view of the local-check library (src/api/local.ts): turn a bench question into
 * the HTTP request body of api-and-local-sql.md §3.5 and return the emitted SQL. No central
 * facts are passed (`options.central` unset). Every fact is
 * bound locally (bindings.yaml), so nothing is inlined from a central store.
 *
 *   const compiler = await loadCompiler(policyText, bindingsText);
 *   compiler?.authorize({ actor: 17, action: "read", resourceType: "Document", resource: 5 });
 */
import { checkPolicyOrThrow } from "../../src/check/check.js";
import type { AuthorizeQuestion, ListQuestion } from "./handwritten.js";

export interface LocalCompiler {
  authorize(question: AuthorizeQuestion): string;
  /** The `<column> IN (…)` fragment for the caller's `column`. */
  list(question: ListQuestion, column: string): string;
}

export function authorizeBody(question: AuthorizeQuestion, bindings: string) {
  return {
    query: {
      actor_type: "User",
      actor_id: String(question.actor),
      action: question.action,
      resource_type: question.resourceType,
      resource_id: String(question.resource),
      context_facts: [],
    },
    data_bindings: bindings,
  };
}

export function listBody(question: ListQuestion, column: string, bindings: string) {
  return {
    query: {
      actor_type: "User",
      actor_id: String(question.actor),
      action: question.action,
      resource_type: question.resourceType,
      context_facts: [],
    },
    column,
    data_bindings: bindings,
  };
}

/**
 * The library with the bench policy checked once (warm); undefined while src/api/local.ts does
 * not load (the bench then reports the hand-written baselines alone).
 */
export async function loadCompiler(
  policy: string,
  bindings: string,
): Promise<LocalCompiler | undefined> {
  let api: typeof import("../../src/api/local.js");
  try {
    api = await import("../../src/api/local.js");
  } catch (error) {
    console.log(`cannot load src/api/local.ts: ${(error as Error).message}`);
    return undefined;
  }
  const program = checkPolicyOrThrow([{ name: "policy.polar", text: policy }]);
  return {
    authorize: (question) => api.authorizeQuery(program, authorizeBody(question, bindings)).sql,
    list: (question, column) => api.listQuery(program, listBody(question, column, bindings)).sql,
  };
}
