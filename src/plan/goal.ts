/**
 * A question as the planner sees it: a conjunction of calls over question variables, each
 * either a literal known when planning, a parameter whose ids arrive when printing, or free.
 * Every endpoint (authorize, actions, list, evaluate_query) is a goal.
 */
import type { Value } from "../core/value.js";

export type GoalVariable =
  /** A single primitive value: part of the plan's shape, prunes clauses (`"read"`). */
  | { readonly kind: "literal"; readonly value: Value }
  /**
   * Ids supplied when printing (actor and resource ids, `ids` lists): one id, or a list read
   * as a row source when `many`.
   */
  | { readonly kind: "param"; readonly type: string; readonly many: boolean }
  /** Any value of exactly this type. */
  | { readonly kind: "free"; readonly type: string };

export interface GoalCall {
  readonly name: string;
  readonly args: readonly string[];
}

export interface Goal {
  readonly calls: readonly GoalCall[];
  readonly variables: ReadonlyMap<string, GoalVariable>;
  /** The variables the plan outputs, in order. */
  readonly outputs: readonly string[];
  /**
   * A variable the caller's rows can bind (filter mode, `list_query`): used when nothing else
   * can, e.g. under `not` over a universal rule.
   */
  readonly outer: string | null;
}

/** A string that identifies the goal's shape: equal keys, interchangeable plans. */
export function goalKey(goal: Goal): string {
  // A request asks it of its goal more than once (the service's recent goals, the plan cache).
  let key = keys.get(goal);
  if (key === undefined) {
    key = keyOf(goal);
    keys.set(goal, key);
  }
  return key;
}

const keys = new WeakMap<Goal, string>();

function keyOf(goal: Goal): string {
  const variables = [...goal.variables].map(([name, variable]) => {
    switch (variable.kind) {
      case "literal":
        return [name, "L", variable.value.type, variable.value.id];
      case "param":
        return [name, variable.many ? "M" : "P", variable.type];
      case "free":
        return [name, "F", variable.type];
      default: {
        const _never: never = variable;
        return _never;
      }
    }
  });
  return JSON.stringify([
    goal.calls.map((c) => [c.name, c.args]),
    variables,
    goal.outputs,
    goal.outer,
  ]);
}

/** The type a question variable has in every answer. */
export function goalVariableType(variable: GoalVariable): string {
  return variable.kind === "literal" ? variable.value.type : variable.type;
}
