/**
 * The work a request may send off the event loop (src/workers/pool.ts): judging a posted policy
 * and planning a question. Tasks and outcomes are plain data, copied between threads; the
 * same `performTask` runs in a worker (src/workers/worker.ts) or, without a pool, in place.
 */

import { type ExplainRun, type ExplainRunResult, performExplainRun } from "../api/explain-run.js";
import { budgetError, type Limits, workBudget } from "../api/limits.js";
import { ApiError } from "../api/service.js";
import type { DataBindings } from "../bindings/types.js";
import { type CheckResult, checkPolicy } from "../check/check.js";
import type { Program } from "../check/program.js";
import { BudgetExceeded, withBudget } from "../core/budget.js";
import { PlanError } from "../plan/errors.js";
import type { Goal } from "../plan/goal.js";
import type { Plan } from "../plan/ir.js";
import { cachedPlan } from "../plan/plan.js";
import type { Problem } from "../source/problems.js";
import type { SourceFile, Span } from "../source/source.js";
import { judgePolicy } from "./policy-verdict.js";

export type Task =
  | {
      readonly kind: "policy";
      readonly sources: readonly SourceFile[];
      readonly limits: Limits;
      /** The clock builtins read in the policy's tests, in Unix seconds; null: the system clock. */
      readonly now: string | null;
      readonly failFast: boolean;
    }
  | {
      readonly kind: "plan";
      readonly sources: readonly SourceFile[];
      readonly bindings: DataBindings;
      readonly goal: Goal;
      readonly limits: Limits;
    }
  /** One run of explain's evaluator (src/api/explain-run.ts). */
  | {
      readonly kind: "explain-run";
      readonly sources: readonly SourceFile[];
      readonly run: ExplainRun;
    };

export type Outcome =
  | { readonly kind: "policy"; readonly warnings: string }
  | { readonly kind: "plan"; readonly plan: Plan }
  | { readonly kind: "explain-run"; readonly result: ExplainRunResult }
  /** The planner's refusal as data (the main thread rebuilds the `PlanError` over its program). */
  | { readonly kind: "plan-error"; readonly problem: Problem; readonly span: Span | null }
  | {
      readonly kind: "refused";
      readonly status: ApiError["status"];
      readonly message: string;
      readonly body: Readonly<Record<string, unknown>>;
    };

/**
 * Checked policies by their sources' text: a worker judges a posted policy, is warmed with it
 * before it becomes active, and plans many questions of it; each checks it once.
 */
const checkedPolicies = new Map<string, CheckResult>();

/**
 * The policy checked, from this thread's cache or now; `onChecked` is called once a check made
 * now has passed, not for one from the cache.
 */
function checkedPolicy(sources: readonly SourceFile[], onChecked = () => {}): CheckResult {
  const key = JSON.stringify(sources.map((file) => [file.name, file.text]));
  const known = checkedPolicies.get(key);
  if (known) return known;
  const checked = checkPolicy(sources);
  if (!checked.ok) return checked;
  if (checkedPolicies.size >= 4) checkedPolicies.clear();
  checkedPolicies.set(key, checked);
  onChecked();
  return checked;
}

/**
 * The program of a task's policy. `checked` is called after checking it here, not when it was
 * checked before: a task's deadline restarts then (src/workers/pool.ts), and a message per
 * task would cost a wake-up of each thread.
 */
function programOf(sources: readonly SourceFile[], checked: () => void): Program {
  const result = checkedPolicy(sources, checked);
  if (!result.ok) throw new ApiError(400, "the active policy does not check");
  return result.program;
}

/** Checks a policy into this thread's cache ahead of the plans that will need it. */
export function warmPolicy(sources: readonly SourceFile[]): void {
  checkedPolicy(sources);
}

/**
 * Runs a task; every expected failure is an outcome, anything else is thrown. `checked` is
 * called once the policy of a task is checked, if it was not checked before (the deadline
 * counts the planning only).
 */
export function performTask(task: Task, checked: () => void = () => {}): Outcome {
  try {
    switch (task.kind) {
      case "policy": {
        const now = task.now === null ? null : BigInt(task.now);
        return {
          kind: "policy",
          warnings: judgePolicy(task.sources, task.limits, now, task.failFast, checkedPolicy),
        };
      }
      case "plan": {
        const program = programOf(task.sources, checked);
        const plan = withBudget(workBudget(task.limits), () =>
          cachedPlan(program, task.bindings, task.goal),
        );
        return { kind: "plan", plan };
      }
      case "explain-run": {
        const program = programOf(task.sources, checked);
        return { kind: "explain-run", result: performExplainRun(program, task.run) };
      }
      default: {
        const _never: never = task;
        return _never;
      }
    }
  } catch (error) {
    if (error instanceof PlanError) {
      return { kind: "plan-error", problem: error.problem, span: error.diagnostic.span ?? null };
    }
    const refusal = error instanceof BudgetExceeded ? budgetError(error) : error;
    if (refusal instanceof ApiError) {
      return {
        kind: "refused",
        status: refusal.status,
        message: refusal.message,
        body: refusal.body,
      };
    }
    if (error instanceof RangeError && /call stack/.test(error.message)) {
      return {
        kind: "refused",
        status: 422,
        message:
          "the policy's rules nest too deeply to plan (lower `--max-rule-depth` to refuse such policies when they are posted)",
        body: {},
      };
    }
    throw error;
  }
}
