/**
 * Work budgets of one request (docs/limits.md): the planner and the reference evaluator count
 * their steps here and stop with `BudgetExceeded` once a budget is spent. Planning and
 * evaluation are synchronous, so the budget of the work running now is module state, set by
 * `withBudget` around it; outside `withBudget` nothing is counted.
 */

/** The budgets counted while the work runs (the other limits are checked before it starts). */
type BudgetName = "planSteps" | "branches" | "evaluationSteps";

export type WorkBudget = Readonly<Record<BudgetName, number>>;

/** A budget was spent: `limit` names it, `value` is its size. */
export class BudgetExceeded extends Error {
  constructor(
    readonly limit: BudgetName,
    readonly value: number,
  ) {
    super(`the ${limit} budget (${value}) was exceeded`);
    this.name = "BudgetExceeded";
  }
}

/**
 * Work run with a time bound (`withBudget`'s `until`) went past it. Not a refusal: the caller
 * that set the bound does the work again where it may take longer (src/service/planning.ts).
 */
export class WorkTimeUp extends Error {
  constructor() {
    super("the work's time bound passed");
    this.name = "WorkTimeUp";
  }
}

interface Running {
  readonly budget: WorkBudget;
  /** `performance.now()` past which the planner stops with `WorkTimeUp`; Infinity: never. */
  readonly until: number;
  planSteps: number;
  evaluationSteps: number;
}

let running: Running | null = null;

/**
 * Runs `work` under `budget`, and the planner within `until` (a `performance.now()` time);
 * nested calls keep the outer budget.
 *
 *   withBudget({ planSteps: 1e6, branches: 5e4, evaluationSteps: 1e7 }, () => planGoal(p, g));
 */
export function withBudget<T>(budget: WorkBudget, work: () => T, until = Infinity): T {
  if (running) return work();
  running = { budget, until, planSteps: 0, evaluationSteps: 0 };
  try {
    return work();
  } finally {
    running = null;
  }
}

/** Counts one planner step. */
export function spendPlanStep(): void {
  if (!running) return;
  if (++running.planSteps > running.budget.planSteps) {
    throw new BudgetExceeded("planSteps", running.budget.planSteps);
  }
  checkPlanClock();
}

/**
 * Stops the planner with `WorkTimeUp` once its time bound has passed. Called per step and per
 * branch a pass rewrites, so that no stretch of planning between two calls grows with the policy.
 */
export function checkPlanClock(): void {
  if (running !== null && running.until !== Infinity && performance.now() > running.until) {
    throw new WorkTimeUp();
  }
}

/** The planner steps counted so far by the work running under `withBudget` (0 outside it). */
export function planStepsSpent(): number {
  return running?.planSteps ?? 0;
}

/** Refuses a union of more than the budget's branches. */
export function checkBranches(count: number): void {
  if (running && count > running.budget.branches) {
    throw new BudgetExceeded("branches", running.budget.branches);
  }
  checkPlanClock();
}

/** Counts one evaluation step. */
export function spendEvaluationStep(): void {
  if (running && ++running.evaluationSteps > running.budget.evaluationSteps) {
    throw new BudgetExceeded("evaluationSteps", running.budget.evaluationSteps);
  }
}
