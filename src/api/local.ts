/**
 * Local authorization as library functions: each takes exactly the HTTP body of its endpoint
 * (api-and-local-sql §3.5), validates it with the exported zod schemas, and returns `{ sql }`.
 * The `…Expression` forms return the statement as a Kysely expression to compose into a
 * larger query; `compiledQuery` turns one into `{ sql, parameters }`.
 *
 * Plans are cached per (program, data bindings text, question shape); a repeated question
 * only substitutes values and prints.
 */
import type { RawBuilder } from "kysely";
import { parseDataBindings } from "../bindings/parse.js";
import type { DataBindings } from "../bindings/types.js";
import { type Program, predicateKey } from "../check/program.js";
import {
  type GroundFact,
  isAbstractType,
  isPrimitiveType,
  parseInteger,
  type Value,
} from "../core/value.js";
import type { Goal, GoalCall, GoalVariable } from "../plan/goal.js";
import { cachedPlan } from "../plan/plan.js";
import { tick } from "../source/diagnostic.js";
import type { CentralFacts } from "../sql/central-facts.js";
import type { Shape } from "../sql/emit.js";
import { postgres } from "../sql/kysely.js";
import { printPlan, sqlText } from "../sql/print.js";
import { checkContextFacts, LocalQueryError } from "./context-facts.js";
import {
  actionsQueryRequestSchema,
  authorizeQueryRequestSchema,
  evaluateQueryLocalRequestSchema,
  listQueryRequestSchema,
} from "./schemas.js";

export interface LocalOptions {
  /** Stored facts that are not in the caller's database; none by default. */
  readonly central?: CentralFacts;
  /** Unix seconds for `@current_unix_time`; defaults to the system clock. */
  readonly now?: () => bigint;
  /** Values as `$n` parameters collected here instead of literals (see `PrintOptions`). */
  readonly parameters?: string[];
  /** See `PrintOptions.cacheText`. */
  readonly cacheText?: boolean;
}

export { LocalQueryError };

type Statement = RawBuilder<unknown>;

// ---------------------------------------------------------------- inputs

function parseBody<T>(
  schema: {
    safeParse(input: unknown):
      | { success: true; data: T }
      | {
          success: false;
          error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
        };
  },
  body: unknown,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  throw new LocalQueryError(
    `invalid request: ${path ? `${tick(path)}: ` : ""}${issue.message.toLowerCase()}`,
  );
}

const bindingsCache = new Map<string, DataBindings>();
const MAX_CACHED_BINDINGS = 64;

/** Parsed data bindings, cached by text so that plans can be cached by bindings object. */
function bindingsFor(text: string): DataBindings {
  const known = bindingsCache.get(text);
  if (known) return known;
  const parsed = parseDataBindings(text);
  if (bindingsCache.size >= MAX_CACHED_BINDINGS) bindingsCache.clear();
  bindingsCache.set(text, parsed);
  return parsed;
}

interface Question {
  readonly goal: Goal;
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly shape: Shape;
}

function print(
  program: Program,
  dataBindings: string,
  question: Question,
  contextFacts: readonly GroundFact[],
  options: LocalOptions,
): Statement {
  const bindings = bindingsFor(dataBindings);
  const plan = cachedPlan(program, bindings, question.goal);
  return printPlan(plan, bindings, question.params, question.shape, {
    contextFacts: checkContextFacts(program, contextFacts),
    ...(options.central && { central: options.central }),
    ...(options.now && { now: options.now }),
    ...(options.parameters && { parameters: options.parameters }),
    ...(options.cacheText === false && { cacheText: false }),
  });
}

/** No question variable may have an abstract type; such a question has no answer. */
function concrete(...types: string[]): boolean {
  return types.every((type) => !isAbstractType(type));
}

const ALLOW: readonly string[] = ["actor", "action", "resource"];

function allowGoal(
  variables: [string, GoalVariable][],
  outputs: readonly string[],
  outer: string | null,
  answerable: boolean,
): Goal {
  return {
    calls: answerable ? [{ name: "allow", args: ALLOW }] : [],
    variables: new Map(variables),
    outputs,
    outer,
  };
}

// ---------------------------------------------------------------- authorize_query

/**
 * The `authorize_query` statement as a Kysely expression: one row, boolean column `allowed`.
 *
 *   db.selectFrom(authorizeQueryExpression(program, body).as("a")).select("a.allowed")
 */
export function authorizeQueryExpression(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): Statement {
  const request = parseBody(authorizeQueryRequestSchema, body);
  const q = request.query;
  const goal = allowGoal(
    [
      ["actor", { kind: "param", type: q.actor_type, many: false }],
      ["action", { kind: "literal", value: { type: "String", id: q.action } }],
      ["resource", { kind: "param", type: q.resource_type, many: false }],
    ],
    [],
    null,
    concrete(q.actor_type, q.resource_type),
  );
  const params = new Map([
    ["actor", [q.actor_id]],
    ["resource", [q.resource_id]],
  ]);
  return print(
    program,
    request.data_bindings,
    { goal, params, shape: { kind: "exists", column: "allowed" } },
    q.context_facts,
    options,
  );
}

/**
 * `POST /authorize_query`.
 *
 *   authorizeQuery(program, { query: { actor_type: "User", actor_id: "17", action: "view",
 *     resource_type: "Ticket", resource_id: "101" }, data_bindings: yaml })
 *   // { sql: "WITH polar_c0(…) AS NOT MATERIALIZED (…) SELECT EXISTS (…) AS allowed" }
 */
export function authorizeQuery(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): { sql: string } {
  return { sql: sqlText(authorizeQueryExpression(program, body, options)) };
}

// ---------------------------------------------------------------- actions_query

/** The `actions_query` statement: one row per permitted action, column `actions`. */
export function actionsQueryExpression(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): Statement {
  const request = parseBody(actionsQueryRequestSchema, body);
  const q = request.query;
  const goal = allowGoal(
    [
      ["actor", { kind: "param", type: q.actor_type, many: false }],
      ["action", { kind: "free", type: "String" }],
      ["resource", { kind: "param", type: q.resource_type, many: false }],
    ],
    ["action"],
    null,
    concrete(q.actor_type, q.resource_type),
  );
  const params = new Map([
    ["actor", [q.actor_id]],
    ["resource", [q.resource_id]],
  ]);
  return print(
    program,
    request.data_bindings,
    { goal, params, shape: { kind: "actions" } },
    q.context_facts,
    options,
  );
}

/**
 * `POST /actions_query`.
 *
 *   actionsQuery(program, { query: { actor_type: "User", actor_id: "17",
 *     resource_type: "Ticket", resource_id: "101" }, data_bindings: yaml })
 *   // { sql: "… SELECT DISTINCT a.actions FROM (…) AS a(actions)" }
 */
export function actionsQuery(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): { sql: string } {
  return { sql: sqlText(actionsQueryExpression(program, body, options)) };
}

// ---------------------------------------------------------------- list_query

/** The `list_query` fragment `<column> IN (…)`, a boolean expression. */
export function listQueryExpression(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): Statement {
  const request = parseBody(listQueryRequestSchema, body);
  const q = request.query;
  const goal = allowGoal(
    [
      ["actor", { kind: "param", type: q.actor_type, many: false }],
      ["action", { kind: "literal", value: { type: "String", id: q.action } }],
      ["resource", { kind: "free", type: q.resource_type }],
    ],
    ["resource"],
    "resource",
    concrete(q.actor_type, q.resource_type),
  );
  const params = new Map([["actor", [q.actor_id]]]);
  return print(
    program,
    request.data_bindings,
    { goal, params, shape: { kind: "filter", column: request.column } },
    q.context_facts,
    options,
  );
}

/**
 * `POST /list_query`.
 *
 *   listQuery(program, { query: { actor_type: "User", actor_id: "17", action: "view",
 *     resource_type: "Ticket" }, column: "tickets.id", data_bindings: yaml })
 *   // { sql: "tickets.id IN (WITH … SELECT f0.arg0 FROM …)" }
 */
export function listQuery(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): { sql: string } {
  return { sql: sqlText(listQueryExpression(program, body, options)) };
}

// ---------------------------------------------------------------- evaluate_query_local

function knownPredicate(program: Program, bindings: DataBindings, call: GoalCall): void {
  const key = predicateKey(call.name, call.args.length);
  if (program.rules.has(key) || program.factSignatures.has(key)) return;
  if (
    bindings.bindings.some((b) => b.predicate === call.name && b.slots.length === call.args.length)
  )
    return;
  throw new LocalQueryError(`unknown predicate ${tick(key)}`);
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

/** The `evaluate_query_local` statement (select or filter mode). */
export function evaluateQueryLocalExpression(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): Statement {
  const request = parseBody(evaluateQueryLocalRequestSchema, body);
  const { query, mode } = request;
  const bindings = bindingsFor(request.data_bindings);
  const calls: GoalCall[] = [query.predicate, ...query.calls].map(([name, args]) => ({
    name,
    args,
  }));
  for (const call of calls) {
    knownPredicate(program, bindings, call);
    for (const arg of call.args) {
      if (!Object.hasOwn(query.constraints, arg))
        throw new LocalQueryError(`variable ${tick(arg)} has no constraint`);
    }
  }
  const variables = new Map<string, GoalVariable>();
  const params = new Map<string, readonly string[]>();
  let answerable = true;
  for (const [name, constraint] of Object.entries(query.constraints)) {
    const { type, ids } = constraint;
    if (isAbstractType(type)) {
      throw new LocalQueryError(`query variables need a concrete type, not ${tick(type)}`);
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
      const values = [
        ...new Set(
          ids.flatMap((id) => {
            const value = isPrimitiveType(type) ? primitiveValue(type, id) : { type, id };
            return value ? [value.id] : [];
          }),
        ),
      ];
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
    if (!variables.has(output))
      throw new LocalQueryError(`variable ${tick(output)} has no constraint`);
  }
  const goal: Goal = { calls: answerable ? calls : [], variables, outputs, outer };
  return print(
    program,
    request.data_bindings,
    { goal, params, shape },
    query.context_facts,
    options,
  );
}

/**
 * `POST /evaluate_query_local`.
 *
 *   evaluateQueryLocal(program, { query, data_bindings: yaml,
 *     mode: { mode: "select", query_vars_to_output_column_names: { var_tk: "ticket_id" } } })
 *   // { sql: "… SELECT DISTINCT f0.arg0 AS \"ticket_id\" FROM …" }
 */
export function evaluateQueryLocal(
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): { sql: string } {
  return { sql: sqlText(evaluateQueryLocalExpression(program, body, options)) };
}

// ---------------------------------------------------------------- composition

/**
 * A statement compiled by Kysely. Every value is inlined as a literal, so `parameters` is
 * empty; the text can be embedded into statements that use their own placeholders.
 *
 *   const { sql, parameters } = compiledQuery(listQueryExpression(program, body));
 */
export function compiledQuery(statement: Statement): {
  sql: string;
  parameters: readonly unknown[];
} {
  const compiled = statement.compile(postgres);
  return { sql: compiled.sql, parameters: compiled.parameters };
}
