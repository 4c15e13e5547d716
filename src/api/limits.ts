/**
 * The service's limits (docs/limits.md): sizes checked before the work starts, budgets counted
 * while it runs (src/core/budget.ts), and the deadline of work sent to the worker pool. Each
 * refusal names the limit, its value and the setting that raises it.
 */
import { dependencyGraph, findComponents } from "../check/graph.js";
import type { PredicateKey, Program } from "../check/program.js";
import type { BudgetExceeded, WorkBudget } from "../core/budget.js";
import { ApiError } from "./service.js";

export interface Limits {
  /** Bytes of a request body. */
  readonly bodyBytes: number;
  /** Ids in one request: resources, constraint ids, context facts, batch facts. */
  readonly idsPerRequest: number;
  /** Different calls of one `evaluate_query` (the predicate included). */
  readonly callsPerQuery: number;
  /** Bytes of a policy's source. */
  readonly policyBytes: number;
  /** Rules (clauses) with the same head predicate. */
  readonly rulesPerHead: number;
  /** Predicates on the longest call chain of the policy's rule graph. */
  readonly ruleDepth: number;
  /** Branches of one plan's union after expanding `or` and rules. */
  readonly branches: number;
  /** Steps of the planner for one question. */
  readonly planSteps: number;
  /** Steps of the reference evaluator for one policy's tests. */
  readonly evaluationSteps: number;
  /** Milliseconds a request's checking or planning may take in the worker pool. */
  readonly requestMs: number;
  /** Nodes of one explanation, as written (`/explain`). */
  readonly explainNodes: number;
  /** Bytes of one explanation's JSON (`/explain`). */
  readonly explainBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 10 * 1024 * 1024,
  idsPerRequest: 1_000_000,
  callsPerQuery: 1_000,
  policyBytes: 1024 * 1024,
  rulesPerHead: 10_000,
  ruleDepth: 2_000,
  branches: 10_000,
  planSteps: 2_000_000,
  evaluationSteps: 20_000_000,
  requestMs: 5_000,
  explainNodes: 100_000,
  explainBytes: 16 * 1024 * 1024,
};

export type LimitName = keyof Limits;

/** How each limit is described and raised: the `polar-sql serve` flag and the library option. */
export const LIMIT_SETTINGS: Readonly<Record<LimitName, { what: string; flag: string }>> = {
  bodyBytes: { what: "request body size in bytes", flag: "--max-body-bytes" },
  idsPerRequest: { what: "ids per request", flag: "--max-ids" },
  callsPerQuery: { what: "different calls per query", flag: "--max-calls" },
  policyBytes: { what: "policy size in bytes", flag: "--max-policy-bytes" },
  rulesPerHead: { what: "rules per head", flag: "--max-rules-per-head" },
  ruleDepth: { what: "rule-graph depth", flag: "--max-rule-depth" },
  branches: { what: "branches after expanding `or` and rules", flag: "--max-branches" },
  planSteps: { what: "planner steps", flag: "--max-plan-steps" },
  evaluationSteps: { what: "evaluation steps", flag: "--max-evaluation-steps" },
  requestMs: { what: "milliseconds of work per request", flag: "--request-timeout-ms" },
  explainNodes: { what: "nodes of an explanation", flag: "--max-explain-nodes" },
  explainBytes: { what: "bytes of an explanation's JSON", flag: "--max-explain-bytes" },
};

/**
 * The message of a refusal: what was exceeded, the limit's value and how to raise it.
 *
 *   limitMessage("callsPerQuery", 1000, "the query has 1500 different calls")
 *   // "the query has 1500 different calls: over the limit of 1000 different calls per query (raise it with
 *   //  `--max-calls` or the `limits.callsPerQuery` option)"
 */
export function limitMessage(name: LimitName, value: number, found: string): string {
  const { what, flag } = LIMIT_SETTINGS[name];
  return `${found}: over the limit of ${value} ${what} (raise it with \`${flag}\` or the \`limits.${name}\` option)`;
}

/** A 413 for sizes, a 422 for work; the body is `{ message }` like every refusal. */
export function limitError(name: LimitName, value: number, found: string): ApiError {
  const status = name === "bodyBytes" || name === "policyBytes" ? 413 : 422;
  return new ApiError(status, limitMessage(name, value, found));
}

/** The limits with the given ones replacing the defaults; each must be a positive integer. */
export function resolveLimits(given: Partial<Limits> = {}): Limits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`limit \`${name}\` must be a positive integer, not ${value}`);
    }
  }
  return limits;
}

export function workBudget(limits: Limits): WorkBudget {
  return {
    planSteps: limits.planSteps,
    branches: limits.branches,
    evaluationSteps: limits.evaluationSteps,
  };
}

/** A spent budget as the 422 that names it. */
export function budgetError(error: BudgetExceeded): ApiError {
  const found =
    error.limit === "branches"
      ? "the plan has too many branches"
      : error.limit === "planSteps"
        ? "planning took too many steps"
        : "evaluating the policy's tests took too many steps";
  return limitError(error.limit, error.value, found);
}

/** Refuses a policy over the size, rules-per-head or rule-depth limits (before planning). */
export function checkPolicyShape(program: Program, limits: Limits): void {
  for (const [key, clauses] of program.rules) {
    if (clauses.length > limits.rulesPerHead) {
      throw limitError(
        "rulesPerHead",
        limits.rulesPerHead,
        `the policy has ${clauses.length} rules for \`${key}\``,
      );
    }
  }
  const depth = ruleGraphDepth(program);
  if (depth.length > limits.ruleDepth) {
    throw limitError(
      "ruleDepth",
      limits.ruleDepth,
      `the policy's rules call each other ${depth.length} deep (from \`${depth.from}\`)`,
    );
  }
}

/**
 * The longest chain of calls between predicates, counting a recursive component once; computed
 * without recursion (components in reverse topological order), so any depth is measured.
 */
function ruleGraphDepth(program: Pick<Program, "rules">): {
  length: number;
  from: string;
} {
  const { edges } = dependencyGraph(program);
  const nodes = [...program.rules.keys()];
  const callees = new Map<PredicateKey, PredicateKey[]>();
  for (const node of nodes) {
    const found = new Set((edges.get(node) ?? []).map((edge) => edge.to));
    callees.set(
      node,
      [...found].filter((next) => program.rules.has(next)),
    );
  }
  const successors = (node: PredicateKey): readonly PredicateKey[] => callees.get(node) ?? [];
  // Tarjan's order: each component comes after every component it calls.
  const components = findComponents(nodes, successors);
  const componentOf = new Map<PredicateKey, number>();
  components.forEach((members, i) => {
    for (const member of members) componentOf.set(member, i);
  });
  const depth: number[] = [];
  let best = { length: 0, from: "" };
  components.forEach((members, i) => {
    let deepest = 0;
    for (const member of members) {
      for (const next of successors(member)) {
        const j = componentOf.get(next)!;
        if (j !== i) deepest = Math.max(deepest, depth[j]!);
      }
    }
    depth[i] = deepest + 1;
    if (depth[i]! > best.length) best = { length: depth[i]!, from: members[0]! };
  });
  return best;
}
