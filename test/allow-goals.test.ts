/**
 * Allow questions share their goal object when their parts are equal (src/api/questions.ts
 * `allowGoal`), so the goal's key is computed once; parts that differ never share one.
 */
import { describe, expect, it } from "vitest";
import { actionsQuestion, authorizeQuestion, listQuestion } from "../src/api/questions.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import { type Goal, goalKey } from "../src/plan/goal.js";

const program = checkPolicyOrThrow([
  { name: "p.polar", text: 'actor User {}\nresource Doc { permissions = ["read"]; }' },
]);

const ask = (actor_type: string, action: string, resource_type: string) =>
  authorizeQuestion(program, {
    actor_type,
    actor_id: "1",
    action,
    resource_type,
    resource_id: "2",
    context_facts: [],
  }).goal;

describe("allow goals", () => {
  it("are one object for one shape, whatever the ids", () => {
    const first = authorizeQuestion(program, {
      actor_type: "User",
      actor_id: "alice",
      action: "read",
      resource_type: "Doc",
      resource_id: "1",
      context_facts: [],
    });
    const second = authorizeQuestion(program, {
      actor_type: "User",
      actor_id: "bob",
      action: "read",
      resource_type: "Doc",
      resource_id: "2",
      context_facts: [],
    });
    expect(second.goal).toBe(first.goal);
    expect(second.params.get("actor")).toEqual(["bob"]);
  });

  it("differ between endpoints of the same parts", () => {
    const query = { actor_type: "User", actor_id: "1", resource_type: "Doc", context_facts: [] };
    const goals = [
      authorizeQuestion(program, { ...query, action: "read", resource_id: "2" }).goal,
      actionsQuestion(program, { ...query, resource_id: "2" }).goal,
      listQuestion(program, { ...query, action: "read" }, "id").goal,
    ];
    expect(new Set(goals.map(goalKey)).size).toBe(3);
  });

  it("are shared exactly when the parts are equal", () => {
    // Every action and resource type of up to 3 of the characters a key built by joining parts
    // with a separator would confuse (action `x:P` and type `` against `x` and `P:`).
    const texts = [""];
    for (let length = 1; length <= 3; length++) {
      for (const text of texts.filter((t) => t.length === length - 1)) {
        for (const unit of [":", "P", "x"]) texts.push(text + unit);
      }
    }
    const goals = new Map<object, [string, string]>();
    for (const action of texts) {
      for (const resource of texts) {
        const goal = ask("User", action, resource);
        expect(goals.get(goal) ?? [action, resource]).toEqual([action, resource]);
        goals.set(goal, [action, resource]);
        expect(ask("User", action, resource)).toBe(goal);
        expect(goal.variables.get("action")).toEqual({
          kind: "literal",
          value: { type: "String", id: action },
        });
      }
    }
    expect(goals.size).toBe(texts.length ** 2);
    expect(new Set([...goals.keys()].map((goal) => goalKey(goal as Goal))).size).toBe(goals.size);
  });
});
