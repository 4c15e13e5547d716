/**
 * Where a question is planned (src/service/planning.ts): on the event loop when the planner is
 * done within its time bound, else in the worker pool, which refuses as it always did; and a
 * worker says a task's policy is checked only when it checked it (src/workers/work.ts).
 */
import { describe, expect, it } from "vitest";
import { resolveLimits } from "../src/api/limits.js";
import { localParts } from "../src/api/local.js";
import { ApiError } from "../src/api/service.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import { BudgetExceeded, WorkTimeUp, withBudget } from "../src/core/budget.js";
import { createPlanner, knownPlan, planGoal } from "../src/plan/plan.js";
import { createPlanning } from "../src/service/planning.js";
import type { WorkerPool } from "../src/workers/pool.js";
import { performTask, type Task } from "../src/workers/work.js";

const POLICY = `actor User {}
resource Org { roles = ["member", "admin"]; permissions = ["read"]; "read" if "member"; "member" if "admin"; }
resource Doc {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "read" on "org";
}
`;

const BINDINGS = `facts:
  "has_role(User:_, String:_, Org:_)":
    query: SELECT user_id, role, org_id FROM memberships
  "has_relation(Doc:_, String:org, Org:_)":
    query: SELECT id, org_id FROM docs
`;

/** A policy, the bindings and the goal of `authorize_query` for one of its questions. */
function request(policy = POLICY) {
  const program = checkPolicyOrThrow([{ name: "policy.polar", text: policy }]);
  const body = {
    query: {
      actor_type: "User",
      actor_id: "ada",
      action: "read",
      resource_type: "Doc",
      resource_id: "d1",
    },
    data_bindings: BINDINGS,
  };
  const { bindings, question } = localParts("authorize_query", program, body);
  return { program, bindings, goal: question.goal };
}

/** A pool that runs each task in place, as a worker would, and keeps the tasks it was given. */
function notingPool(tasks: Task[]): WorkerPool {
  return {
    run: async (task) => {
      tasks.push(task);
      return performTask(task);
    },
    warm: () => {},
    close: async () => {},
  };
}

/** A pool that takes each task and never answers, or answers every one with `refusal`. */
function stuckPool(tasks: Task[], refusal?: ApiError): WorkerPool {
  return {
    run: (task) => {
      tasks.push(task);
      return refusal ? Promise.reject(refusal) : new Promise(() => {});
    },
    warm: () => {},
    close: async () => {},
  };
}

/** Time bounds that no plan of these tests misses, and that every plan misses. */
const AMPLE_MS = 60_000;
const NO_MS = -1;

describe("planning in place", () => {
  it("plans a question within the bound on the event loop, without the pool", async () => {
    const tasks: Task[] = [];
    const planning = createPlanning(stuckPool(tasks), resolveLimits(), AMPLE_MS);
    const asked = request();
    const plan = await planning.plan(asked, Date.now() + 5000);
    expect(tasks).toEqual([]);
    expect(knownPlan(asked.program, asked.bindings, asked.goal)).toBe(plan);
    expect(plan).toEqual(planGoal(createPlanner(asked.program, asked.bindings), asked.goal));
  });

  it("needs no worker for a plan made in place, and says the pool's refusal past the bound", async () => {
    const busy = new ApiError(503, "the service is busy");
    const planning = createPlanning(stuckPool([], busy), resolveLimits(), AMPLE_MS);
    const asked = request();
    expect((await planning.plan(asked, Date.now() + 5000)).branches.length).toBeGreaterThan(0);
    // Past the bound, the pool's refusal is the answer.
    const late = createPlanning(stuckPool([], busy), resolveLimits(), NO_MS);
    await expect(late.plan(request(), Date.now() + 5000)).rejects.toBe(busy);
  });

  it("answers with the pool's plan past the bound", async () => {
    const tasks: Task[] = [];
    const planning = createPlanning(notingPool(tasks), resolveLimits(), NO_MS);
    const asked = request();
    const plan = await planning.plan(asked, Date.now() + 5000);
    expect(tasks.map((task) => task.kind)).toEqual(["plan"]);
    expect(knownPlan(asked.program, asked.bindings, asked.goal)).toBe(plan);
    expect(plan).toEqual(planGoal(createPlanner(asked.program, asked.bindings), asked.goal));
  });

  it("hands a plan over a budget to the pool, which refuses it as before", async () => {
    const tasks: Task[] = [];
    const limits = resolveLimits({ planSteps: 2 });
    const planning = createPlanning(notingPool(tasks), limits, AMPLE_MS);
    const refusal = await planning.plan(request(), Date.now() + 5000).catch((error) => error);
    expect(tasks.map((task) => task.kind)).toEqual(["plan"]);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).message).toMatch(/planSteps/);
  });

  it("stops the planner once its time bound has passed, and not before", () => {
    const asked = request();
    const budget = { planSteps: 1e6, branches: 1e6, evaluationSteps: 1 };
    const plan = () => planGoal(createPlanner(asked.program, asked.bindings), asked.goal);
    expect(() => withBudget(budget, plan, performance.now() - 1)).toThrow(WorkTimeUp);
    expect(withBudget(budget, plan, performance.now() + 60_000).branches.length).toBeGreaterThan(0);
    // A budget still refuses under a time bound.
    expect(() => withBudget({ ...budget, planSteps: 1 }, plan, Infinity)).toThrow(BudgetExceeded);
  });
});

describe("a worker's plan task", () => {
  it("says its policy is checked only when it checked it", () => {
    // A policy no other test of this process has checked.
    const text = `${POLICY}# ${Math.random()}\n`;
    const { bindings, goal } = request(text);
    const task: Task = {
      kind: "plan",
      sources: [{ name: "policy.polar", text }],
      bindings,
      goal,
      limits: resolveLimits(),
    };
    let checked = 0;
    expect(performTask(task, () => checked++).kind).toBe("plan");
    expect(checked).toBe(1);
    expect(performTask(task, () => checked++).kind).toBe("plan");
    expect(checked).toBe(1);
  });
});
