/**
 * Questions as the compiler takes them: a planner goal, the request's ids (params), what the
 * statement returns (its shape) and the request's context facts. Every endpoint, local or
 * central, builds one of these from its parsed body and hands it to `localStatement` with a
 * parsed data bindings object; nothing here reads or writes text.
 */
import type { DataBindings } from "../bindings/types.js";
import { type Program, predicateKey } from "../check/program.js";
import {
  type GroundFact,
  isAbstractType,
  isPrimitiveType,
  parseInteger,
  type Value,
} from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import type { Shape } from "../lower/lower.js";
import type { Goal, GoalCall, GoalVariable } from "../plan/goal.js";
import { cachedPlan } from "../plan/plan.js";
import type { CentralFacts } from "../plan/resolve/central-facts.js";
import { printPlan, type Statement } from "../print/statement.js";
import { checkContextFacts, LocalQueryError } from "./context-facts.js";

export { LocalQueryError };

export interface LocalQuestion {
  readonly goal: Goal;
  /** Ids of each param variable of the goal. */
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly shape: Shape;
  readonly contextFacts: readonly GroundFact[];
}

interface StatementOptions {
  readonly dialect?: Dialect;
  /** Stored facts that are not in the caller's database; none by default. */
  readonly central?: CentralFacts;
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
  /** Values as cast placeholders with their texts apart, instead of literals. */
  readonly writing?: "literals" | "parameters";
  /** False prints afresh, neither reusing nor keeping a text printed for the shape. */
  readonly cacheText?: boolean;
}

/**
 * The statement that answers a question over these bindings.
 *
 *   localStatement(program, bindings, authorizeQuestion(program, query)).sql
 */
export function localStatement(
  program: Program,
  bindings: DataBindings,
  question: LocalQuestion,
  options: StatementOptions = {},
): Statement {
  const plan = cachedPlan(program, bindings, question.goal);
  return printPlan(plan, bindings, question.params, question.shape, {
    ...options,
    sources: program.sources,
    contextFacts: question.contextFacts,
  });
}

/** The parts of an authorize, actions or list body that make a question. */
interface AllowQuery {
  readonly actor_type: string;
  readonly actor_id: string;
  readonly action?: string;
  readonly resource_type: string;
  readonly resource_id?: string;
  readonly context_facts: readonly GroundFact[];
}

const ALLOW: readonly string[] = ["actor", "action", "resource"];

function allowQuestion(
  program: Program,
  query: AllowQuery,
  action: GoalVariable,
  resource: GoalVariable,
  outputs: readonly string[],
  shape: Shape,
  outer: string | null = null,
): LocalQuestion {
  const answerable = !isAbstractType(query.actor_type) && !isAbstractType(query.resource_type);
  const params = new Map<string, readonly string[]>([["actor", [query.actor_id]]]);
  if (query.resource_id !== undefined) params.set("resource", [query.resource_id]);
  return {
    goal: allowGoal(answerable, query.actor_type, action, resource, outputs, outer),
    params,
    shape,
    contextFacts: checkContextFacts(program, query.context_facts),
  };
}

/**
 * The goal of an allow question, the same object for the same parts: the plan cache and the
 * service key a goal by its text (src/plan/goal.ts `goalKey`), computed once per object.
 */
function allowGoal(
  answerable: boolean,
  actorType: string,
  action: GoalVariable,
  resource: GoalVariable,
  outputs: readonly string[],
  outer: string | null,
): Goal {
  const parts = [
    String(answerable),
    actorType,
    ...variableParts(action),
    ...variableParts(resource),
  ];
  parts.push(...outputs, outer ?? "");
  // Each part with its length first: no two lists of parts give one key.
  const key = parts.map((part) => `${part.length}:${part}`).join("");
  let goal = allowGoals.get(key);
  if (!goal) {
    goal = {
      calls: answerable ? [{ name: "allow", args: ALLOW }] : [],
      variables: new Map([
        ["actor", { kind: "param", type: actorType, many: false }],
        ["action", action],
        ["resource", resource],
      ]),
      outputs,
      outer,
    };
    if (allowGoals.size >= MAX_ALLOW_GOALS) allowGoals.clear();
    allowGoals.set(key, goal);
  }
  return goal;
}

const allowGoals = new Map<string, Goal>();
/** Allow goals kept; the map starts again past this (actions and types come from callers). */
const MAX_ALLOW_GOALS = 1000;

function variableParts(variable: GoalVariable): string[] {
  switch (variable.kind) {
    case "literal":
      return ["L", variable.value.type, variable.value.id];
    case "param":
      return [variable.many ? "M" : "P", variable.type];
    case "free":
      return ["F", variable.type];
    default: {
      const _never: never = variable;
      return _never;
    }
  }
}

/** May the actor do `action` on the resource: one row, boolean column `allowed`. */
export function authorizeQuestion(
  program: Program,
  query: AllowQuery & { readonly action: string; readonly resource_id: string },
): LocalQuestion {
  return allowQuestion(
    program,
    query,
    { kind: "literal", value: { type: "String", id: query.action } },
    { kind: "param", type: query.resource_type, many: false },
    [],
    { kind: "exists", column: "allowed" },
  );
}

/** The actor's actions on the resource: one row per action, column `actions`. */
export function actionsQuestion(
  program: Program,
  query: AllowQuery & { readonly resource_id: string },
): LocalQuestion {
  return allowQuestion(
    program,
    query,
    { kind: "free", type: "String" },
    { kind: "param", type: query.resource_type, many: false },
    ["action"],
    { kind: "actions" },
  );
}

/** The resources of a type the actor may act on, as `<column> IN (…)`. */
export function listQuestion(
  program: Program,
  query: AllowQuery & { readonly action: string },
  column: string,
): LocalQuestion {
  return allowQuestion(
    program,
    query,
    { kind: "literal", value: { type: "String", id: query.action } },
    { kind: "free", type: query.resource_type },
    ["resource"],
    { kind: "filter", column },
    "resource",
  );
}

/** `evaluate_query`'s query object. */
export interface EvaluateQuery {
  readonly predicate: readonly [string, readonly string[]];
  readonly calls: readonly (readonly [string, readonly string[]])[];
  readonly constraints: Readonly<
    Record<string, { readonly type: string; readonly ids: readonly string[] | null }>
  >;
  readonly context_facts: readonly GroundFact[];
}

/** What `evaluate_query` returns: named columns (select) or a filter over the caller's column. */
type EvaluateMode =
  | {
      readonly mode: "select";
      readonly query_vars_to_output_column_names: Readonly<Record<string, string>>;
    }
  | { readonly mode: "filter"; readonly query_var: string; readonly output_column_name: string };

/** An `evaluate_query` question in select or filter mode. */
export function evaluateQuestion(
  program: Program,
  bindings: DataBindings,
  query: EvaluateQuery,
  mode: EvaluateMode,
): LocalQuestion {
  // A conjunction holds a repeated call once: keep the first of each (name, args).
  const distinct = new Map<string, GoalCall>();
  for (const [name, args] of [query.predicate, ...query.calls]) {
    const key = JSON.stringify([name, args]);
    if (!distinct.has(key)) distinct.set(key, { name, args });
  }
  const calls = [...distinct.values()];
  for (const call of calls) {
    knownPredicate(program, bindings, call);
    for (const arg of call.args) {
      if (!Object.hasOwn(query.constraints, arg)) {
        throw new LocalQueryError({ code: "P601", kind: "unconstrained-variable", variable: arg });
      }
    }
  }
  const variables = new Map<string, GoalVariable>();
  const params = new Map<string, readonly string[]>();
  let answerable = true;
  for (const [name, { type, ids }] of Object.entries(query.constraints)) {
    if (isAbstractType(type)) {
      throw new LocalQueryError({ code: "P601", kind: "abstract-type", type });
    }
    if (ids === null) {
      variables.set(name, { kind: "free", type });
    } else if (isPrimitiveType(type) && ids.length === 1) {
      const value = primitiveValue(type, ids[0]!);
      if (value) variables.set(name, { kind: "literal", value });
      else {
        answerable = false;
        variables.set(name, { kind: "free", type });
      }
    } else {
      const values = isPrimitiveType(type)
        ? [
            ...new Set(
              ids.flatMap((id) => {
                const value = primitiveValue(type, id);
                return value ? [value.id] : [];
              }),
            ),
          ]
        : [...new Set(ids)];
      variables.set(name, { kind: "param", type, many: values.length !== 1 });
      params.set(name, values);
    }
  }
  let outputs: string[];
  let shape: Shape;
  let outer: string | null = null;
  if (mode.mode === "select") {
    outputs = Object.keys(mode.query_vars_to_output_column_names);
    const names = outputs.map((v) => mode.query_vars_to_output_column_names[v]!);
    shape = names.length === 0 ? { kind: "exists", column: "result" } : { kind: "select", names };
  } else {
    outputs = [mode.query_var];
    outer = mode.query_var;
    shape = { kind: "filter", column: mode.output_column_name };
  }
  for (const output of outputs) {
    if (!variables.has(output)) {
      throw new LocalQueryError({
        code: "P601",
        kind: "unconstrained-variable",
        variable: output,
      });
    }
  }
  return {
    goal: { calls: answerable ? calls : [], variables, outputs, outer },
    params,
    shape,
    contextFacts: checkContextFacts(program, query.context_facts),
  };
}

function knownPredicate(program: Program, bindings: DataBindings, call: GoalCall): void {
  const key = predicateKey(call.name, call.args.length);
  if (program.rules.has(key) || program.factSignatures.has(key)) return;
  const bound = bindings.bindings.some(
    (b) => b.predicate === call.name && b.slots.length === call.args.length,
  );
  if (!bound) {
    throw new LocalQueryError({
      code: "P601",
      kind: "unknown-predicate",
      name: call.name,
      arity: call.args.length,
      arities: [],
    });
  }
}

/** A primitive id as a value, or null when no value of the type has this id. */
function primitiveValue(type: string, id: string): Value | null {
  if (type === "Integer") {
    const parsed = parseInteger(id);
    return parsed === null ? null : { type, id: parsed.toString() };
  }
  if (type === "Boolean") return id === "true" || id === "false" ? { type, id } : null;
  return { type, id };
}
