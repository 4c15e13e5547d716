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

interface Running {
  readonly budget: WorkBudget;
  planSteps: number;
  evaluationSteps: number;
}

let running: Running | null = null;

/**
 * Runs `work` under `budget`; nested calls keep the outer budget.
 *
 *   withBudget({ planSteps: 1e6, branches: 5e4, evaluationSteps: 1e7 }, () => planGoal(p, g));
 */
export function withBudget<T>(budget: WorkBudget, work: () => T): T {
  if (running) return work();
  running = { budget, planSteps: 0, evaluationSteps: 0 };
  try {
    return work();
  } finally {
    running = null;
  }
}

/** Counts one planner step. */
export function spendPlanStep(): void {
  if (running && ++running.planSteps > running.budget.planSteps) {
    throw new BudgetExceeded("planSteps", running.budget.planSteps);
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
}

/** Counts one evaluation step. */
export function spendEvaluationStep(): void {
  if (running && ++running.evaluationSteps > running.budget.evaluationSteps) {
    throw new BudgetExceeded("evaluationSteps", running.budget.evaluationSteps);
  }
}
