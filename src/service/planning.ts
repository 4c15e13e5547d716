/**
 * The plan step: a question's plan from the cache, or made and remembered: on the event loop
 * if that takes at most `IN_PLACE_MS`, else by the worker pool. Concurrent questions of one
 * shape share one pool task. The shapes asked last are noted, so that a new policy has them
 * planned before it becomes active (`prepareFor`).
 */

import { type Limits, workBudget } from "../api/limits.js";
import { ApiError } from "../api/service.js";
import type { DataBindings } from "../bindings/types.js";
import type { Program } from "../check/program.js";
import { withBudget } from "../core/budget.js";
import { msUntil } from "../core/deadline.js";
import { at, PlanError } from "../plan/errors.js";
import { type Goal, goalKey } from "../plan/goal.js";
import type { Plan } from "../plan/ir.js";
import { cachedPlan, createPlanner, knownPlan, planGoal, rememberPlan } from "../plan/plan.js";
import type { SourceFile } from "../source/source.js";
import type { WorkerPool } from "../workers/pool.js";
import type { Outcome, Task } from "../workers/work.js";

/** A goal to plan for a program and data bindings. */
interface PlanRequest {
  readonly program: Program;
  readonly bindings: DataBindings;
  readonly goal: Goal;
}

export interface Planning {
  /** The plan for the goal by `deadline`; the planner's refusal is thrown as a `PlanError`. */
  plan(request: PlanRequest, deadline: number): Promise<Plan>;
  /**
   * Has the pool check a posted policy's program and plan the shapes in use for it, as
   * background tasks; waits `PREPARE_MS` at most (src/store/store.ts `setPolicy`).
   */
  prepareFor(program: Program): Promise<void>;
}

/** How many question shapes in use a new policy has planned before it becomes active. */
const RECENT_GOALS = 64;
/** How long a policy post waits for those plans. */
const PREPARE_MS = 1000;
/**
 * How long a plan may hold the event loop. Most plans take 1–2 ms, and a worker adds about as
 * much again (two messages, two threads woken); a plan not done by then is made in a worker.
 * Nothing is remembered of one that was not: the first plans of a process run before the JIT
 * has compiled the planner, and a GC pause may land in any.
 */
const IN_PLACE_MS = 4;

/**
 * Plans in place for up to `inPlaceMs`, then on `pool`; without a pool, in place whatever it
 * takes (no deadline then: planning holds the event loop).
 *
 *   const planning = createPlanning(pool, limits);
 *   const plan = await planning.plan({ program, bindings, goal }, Date.now() + 5000);
 */
export function createPlanning(
  pool: WorkerPool | null,
  limits: Limits,
  inPlaceMs = IN_PLACE_MS,
): Planning {
  /** The goals used last, least recent first. */
  const recent = new Map<string, { bindings: DataBindings; goal: Goal }>();
  /** Plans being made, by goal: concurrent requests of one shape share one task. */
  const inFlight = new Map<string, { request: PlanRequest; plan: Promise<Plan | PlanError> }>();

  function note({ bindings, goal }: PlanRequest): void {
    const key = goalKey(goal);
    recent.delete(key);
    recent.set(key, { bindings, goal });
    if (recent.size > RECENT_GOALS) recent.delete(recent.keys().next().value!);
  }

  const task = ({ program, bindings, goal }: PlanRequest): Task => ({
    kind: "plan",
    sources: program.sources,
    bindings,
    goal,
    limits,
  });

  async function made(request: PlanRequest, deadline: number): Promise<Plan | PlanError> {
    const outcome = await pool!.run(task(request), msUntil(deadline));
    const plan = planOf(outcome, request.program.sources);
    rememberPlan(request.program, request.bindings, request.goal, plan);
    return plan;
  }

  function pending(request: PlanRequest): Promise<Plan | PlanError> | undefined {
    const known = inFlight.get(goalKey(request.goal));
    if (known?.request.program !== request.program) return undefined;
    return known.request.bindings === request.bindings ? known.plan : undefined;
  }

  /**
   * The plan made here within `inPlaceMs` (a fresh planner: one stopped part way is
   * dropped), or null: past the bound, over a budget or too deep for this thread's stack, the
   * pool plans it and refuses as it would.
   */
  function inPlace(request: PlanRequest): Plan | PlanError | null {
    const { program, bindings, goal } = request;
    const until = performance.now() + inPlaceMs;
    let plan: Plan | PlanError;
    try {
      plan = withBudget(
        workBudget(limits),
        () => planGoal(createPlanner(program, bindings), goal),
        until,
      );
    } catch (error) {
      if (!(error instanceof PlanError)) return null;
      plan = error;
    }
    rememberPlan(program, bindings, goal, plan);
    return plan;
  }

  /**
   * A plan not made yet: made here if that takes at most `inPlaceMs`, else by the pool. (Started
   * on the pool at once as well, the worker competed with this thread for the two cores of the
   * bench machine, and both took longer: bench/RESULTS.md, "Plans in place".)
   */
  function fresh(request: PlanRequest, deadline: number): Promise<Plan | PlanError> {
    return pending(request) ?? Promise.resolve(inPlace(request) ?? shared(request, deadline));
  }

  function shared(request: PlanRequest, deadline: number): Promise<Plan | PlanError> {
    const key = goalKey(request.goal);
    const known = pending(request);
    if (known) return known;
    const entry = { request, plan: made(request, deadline) };
    inFlight.set(key, entry);
    const done = () => {
      if (inFlight.get(key) === entry) inFlight.delete(key);
    };
    entry.plan.then(done, done);
    return entry.plan;
  }

  return {
    async plan(request, deadline) {
      note(request);
      if (!pool) return cachedPlan(request.program, request.bindings, request.goal);
      const plan =
        knownPlan(request.program, request.bindings, request.goal) ??
        (await fresh(request, deadline));
      if (plan instanceof PlanError) throw plan;
      return plan;
    },

    async prepareFor(program) {
      if (!pool) return;
      pool.warm(program.sources);
      const plans = [...recent.values()].reverse().map(async ({ bindings, goal }) => {
        try {
          const request = { program, bindings, goal };
          const outcome = await pool.run(task(request), limits.requestMs, true);
          rememberPlan(program, bindings, goal, planOf(outcome, program.sources));
        } catch {
          // Refused (a budget, the deadline): the question that needs it plans it and says so.
        }
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, PREPARE_MS);
      });
      await Promise.race([Promise.all(plans), waited]);
      clearTimeout(timer);
    },
  };
}

/** A plan made by the pool, or the planner's refusal to remember; other refusals are thrown. */
function planOf(outcome: Outcome, sources: readonly SourceFile[]): Plan | PlanError {
  switch (outcome.kind) {
    case "plan":
      return outcome.plan;
    case "plan-error":
      return new PlanError(outcome.problem, at(outcome.span, sources));
    case "policy":
    case "explain-run":
    case "refused":
      throw refusalOf(outcome);
    default: {
      const _never: never = outcome;
      return _never;
    }
  }
}

/** A task's refusal as the reply it becomes. */
export function refusalOf(outcome: Outcome): ApiError {
  if (outcome.kind === "refused")
    return new ApiError(outcome.status, outcome.message, outcome.body);
  return new ApiError(500, `unexpected outcome \`${outcome.kind}\` of a task`);
}
