/**
 * Local authorization as library functions: each takes exactly the HTTP body of its endpoint
 * (docs/http-api.md, "Local authorization"), validates it with the exported zod schemas and
 * returns `{ sql }`, one statement without placeholders. The `…Expression` forms return Kysely
 * expressions to compose into a larger query, with the request's values as parameters.
 *
 * Parsed data bindings are kept per text, plans per (program, bindings, question shape), and
 * printed statements per plan shape: a repeated question only writes its values.
 */
import type { ExpressionWrapper, OperationNode, SqlBool } from "kysely";
import type { z } from "zod";
import { checkBindings } from "../bindings/check.js";
import { DataBindingsError, parseDataBindings } from "../bindings/parse.js";
import type { DataBindings } from "../bindings/types.js";
import type { Program } from "../check/program.js";
import type { Dialect } from "../dialects/dialect.js";
import {
  type AllowedValues,
  DEFAULT_DIALECT,
  type DialectName,
  dialectList,
  dialectNamed,
} from "../dialects/registry.js";
import { cachedPlan } from "../plan/plan.js";
import type { CentralFacts } from "../plan/resolve/central-facts.js";
import { condition, subquery, withParameters } from "../print/compose.js";
import { lowerPlan } from "../print/statement.js";
import {
  actionsQuestion,
  authorizeQuestion,
  evaluateQuestion,
  LocalQueryError,
  type LocalQuestion,
  listQuestion,
  localStatement,
} from "./questions.js";
import {
  type ActionsQueryRequest,
  type AuthorizeQueryRequest,
  actionsQueryRequestSchema,
  authorizeQueryRequestSchema,
  type EvaluateQueryLocalRequest,
  evaluateQueryLocalRequestSchema,
  type ListQueryRequest,
  listQueryRequestSchema,
} from "./wire.js";

export { LocalQueryError } from "./questions.js";

export interface LocalOptions {
  /** The engine the SQL is for; `postgres` by default. */
  readonly dialect?: DialectName;
  /** Stored facts that are not in the caller's database; none by default. */
  readonly central?: CentralFacts;
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
  /** False prints afresh, neither reusing nor keeping a text printed for the question's shape. */
  readonly cacheText?: boolean;
  /**
   * Check the data bindings against the policy (`checkBindings`: undeclared types, column
   * counts) before compiling; default true.
   */
  readonly checkBindings?: boolean;
}

// ---------------------------------------------------------------- inputs

interface SafeParser<T> {
  safeParse(input: unknown):
    | { success: true; data: T }
    | {
        success: false;
        error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
      };
}

function parseBody<T>(schema: SafeParser<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  throw new LocalQueryError({
    code: "P601",
    kind: "invalid-request",
    path,
    reason: issue.message.toLowerCase(),
  });
}

const MAX_CACHED_BINDINGS = 64;
const bindingsCache = new Map<string, DataBindings>();
const checkedCache = new WeakMap<Program, Map<string, DataBindings>>();

/**
 * Parsed data bindings, kept by text (and by program when checked against it) so that plans
 * can be kept by bindings object. Throws `DataBindingsError` listing every error.
 */
export function bindingsFor(
  program: Program,
  text: string,
  options: Pick<LocalOptions, "checkBindings"> & { readonly syntax?: DialectName } = {},
): DataBindings {
  const syntax = options.syntax ?? DEFAULT_DIALECT;
  const key = `${syntax}\u0000${text}`;
  if (options.checkBindings === false) {
    const known = bindingsCache.get(key);
    if (known) return known;
    const parsed = parseDataBindings(text, { syntax });
    if (bindingsCache.size >= MAX_CACHED_BINDINGS) bindingsCache.clear();
    bindingsCache.set(key, parsed);
    return parsed;
  }
  let cache = checkedCache.get(program);
  if (!cache) {
    cache = new Map();
    checkedCache.set(program, cache);
  }
  const known = cache.get(key);
  if (known) return known;
  const checked = checkBindings(program, text, { warnings: false, syntax });
  if (!checked.bindings) throw new DataBindingsError(checked.diagnostics, checked.source);
  if (cache.size >= MAX_CACHED_BINDINGS) cache.clear();
  cache.set(key, checked.bindings);
  return checked.bindings;
}

/** The option's dialect, else the body's `dialect` field, else PostgreSQL. */
function dialectFor(
  options: LocalOptions,
  request: { readonly dialect?: string | undefined },
): Dialect<DialectName> {
  const name = options.dialect ?? request.dialect ?? DEFAULT_DIALECT;
  const dialect = dialectNamed(name);
  if (!dialect) {
    throw new LocalQueryError({
      code: "P601",
      kind: "unknown-dialect",
      name: String(name),
      allowed: dialectList(),
    });
  }
  return dialect;
}

// ---------------------------------------------------------------- the four questions

/** Each endpoint's body as its schema accepts it. */
interface AcceptedBodies {
  readonly authorize_query: z.output<typeof authorizeQueryRequestSchema>;
  readonly actions_query: z.output<typeof actionsQueryRequestSchema>;
  readonly list_query: z.output<typeof listQueryRequestSchema>;
  readonly evaluate_query_local: z.output<typeof evaluateQueryLocalRequestSchema>;
}

export type LocalEndpoint = keyof AcceptedBodies;

/** How each endpoint validates its body and which question the body asks. */
const ENDPOINTS: {
  readonly [E in LocalEndpoint]: {
    readonly schema: SafeParser<AcceptedBodies[E]>;
    question(program: Program, body: AcceptedBodies[E], bindings: DataBindings): LocalQuestion;
  };
} = {
  authorize_query: {
    schema: authorizeQueryRequestSchema,
    question: (program, body) => authorizeQuestion(program, body.query),
  },
  actions_query: {
    schema: actionsQueryRequestSchema,
    question: (program, body) => actionsQuestion(program, body.query),
  },
  list_query: {
    schema: listQueryRequestSchema,
    question: (program, body) => listQuestion(program, body.query, body.column),
  },
  evaluate_query_local: {
    schema: evaluateQueryLocalRequestSchema,
    question: (program, body, bindings) =>
      evaluateQuestion(program, bindings, body.query, body.mode),
  },
};

/**
 * The dialect, bindings and question of a local endpoint's body, validated: the library
 * functions below print them; the service plans and prints them in steps of its own
 * (src/service/local.ts).
 */
export function localParts<E extends LocalEndpoint>(
  endpoint: E,
  program: Program,
  body: unknown,
  options: LocalOptions = {},
): { dialect: Dialect; bindings: DataBindings; question: LocalQuestion } {
  const { schema, question } = ENDPOINTS[endpoint];
  const request = parseBody(schema, body);
  const dialect = dialectFor(options, request);
  const bindings = bindingsFor(program, request.data_bindings, {
    ...options,
    syntax: dialect.name,
  });
  return { dialect, bindings, question: question(program, request, bindings) };
}

/** The endpoint's `{ sql }`: one statement, values written as literals. */
function localSql(
  endpoint: LocalEndpoint,
  program: Program,
  body: unknown,
  options: LocalOptions,
): { sql: string } {
  const { bindings, question, dialect } = localParts(endpoint, program, body, options);
  const { dialect: _name, ...rest } = options;
  return { sql: localStatement(program, bindings, question, { ...rest, dialect }).sql };
}

/** The endpoint's statement as a tree with its values as parameters, for composing. */
function localTree(
  endpoint: LocalEndpoint,
  program: Program,
  body: unknown,
  options: LocalOptions,
): { node: OperationNode; question: LocalQuestion } {
  const { bindings, question, dialect } = localParts(endpoint, program, body, options);
  const plan = cachedPlan(program, bindings, question.goal);
  const { node, runtime } = lowerPlan(plan, bindings, question.params, question.shape, {
    sources: program.sources,
    dialect,
    contextFacts: question.contextFacts,
    ...(options.central && { central: options.central }),
    ...(options.now && { now: options.now }),
  });
  return { node: withParameters(dialect, node, runtime), question };
}

// ---------------------------------------------------------------- authorize_query

/**
 * `POST /authorize_query`: one row, boolean column `allowed`.
 *
 *   authorizeQuery(program, { query: { actor_type: "User", actor_id: "17", action: "view",
 *     resource_type: "Ticket", resource_id: "101" }, data_bindings: yaml })
 *   // { sql: "with\n  polar_c0(…) as not materialized (…)\n select exists (…) as allowed" }
 */
export function authorizeQuery(
  program: Program,
  body: AuthorizeQueryRequest,
  options: LocalOptions = {},
): { sql: string } {
  return localSql("authorize_query", program, body, options);
}

export type { AllowedValues } from "../dialects/registry.js";

/** `allowed` of a dialect (src/dialects/registry.ts): `AllowedValue<"sqlite">` is `0 | 1`. */
export type AllowedValue<D extends DialectName> = AllowedValues[D];

/**
 * The `authorize_query` statement as a Kysely subquery whose `allowed` is typed for the
 * dialect: named in `options`, else in the body, else PostgreSQL. A body whose `dialect` is
 * any string gets `boolean | 0 | 1`.
 *
 *   db.selectFrom(authorizeQueryExpression(program, body).as("a")).select("a.allowed") // boolean
 *   authorizeQueryExpression(program, body, { dialect: "sqlite" }) // { allowed: 0 | 1 }
 */
export function authorizeQueryExpression<D extends DialectName>(
  program: Program,
  body: AuthorizeQueryRequest,
  options: LocalOptions & { readonly dialect: D },
): ExpressionWrapper<never, never, { allowed: AllowedValue<D> }>;
export function authorizeQueryExpression<D extends DialectName = "postgres">(
  program: Program,
  body: AuthorizeQueryRequest & { readonly dialect?: D },
  options?: LocalOptions & { readonly dialect?: undefined },
): ExpressionWrapper<never, never, { allowed: AllowedValue<D> }>;
export function authorizeQueryExpression(
  program: Program,
  body: AuthorizeQueryRequest,
  options?: LocalOptions,
): ExpressionWrapper<never, never, { allowed: AllowedValue<DialectName> }>;
export function authorizeQueryExpression(
  program: Program,
  body: AuthorizeQueryRequest,
  options: LocalOptions = {},
): ExpressionWrapper<never, never, { allowed: AllowedValue<DialectName> }> {
  return subquery(localTree("authorize_query", program, body, options).node);
}

// ---------------------------------------------------------------- actions_query

/**
 * `POST /actions_query`: one row per permitted action, column `actions`.
 *
 *   actionsQuery(program, { query: { actor_type: "User", actor_id: "17",
 *     resource_type: "Ticket", resource_id: "101" }, data_bindings: yaml })
 *   // { sql: "… select distinct a.actions from (…) as a" }
 */
export function actionsQuery(
  program: Program,
  body: ActionsQueryRequest,
  options: LocalOptions = {},
): { sql: string } {
  return localSql("actions_query", program, body, options);
}

/** The `actions_query` statement as a Kysely subquery (column `actions`, text on every engine). */
export function actionsQueryExpression(
  program: Program,
  body: ActionsQueryRequest,
  options: LocalOptions = {},
): ExpressionWrapper<never, never, { actions: string }> {
  return subquery(localTree("actions_query", program, body, options).node);
}

// ---------------------------------------------------------------- list_query

/**
 * `POST /list_query`: the fragment `<column> IN (…)` for a WHERE clause.
 *
 *   listQuery(program, { query: { actor_type: "User", actor_id: "17", action: "view",
 *     resource_type: "Ticket" }, column: "tickets.id", data_bindings: yaml })
 *   // { sql: "tickets.id in (with … select f0.arg0 from …)" }
 */
export function listQuery(
  program: Program,
  body: ListQueryRequest,
  options: LocalOptions = {},
): { sql: string } {
  return localSql("list_query", program, body, options);
}

/**
 * The `list_query` fragment as a boolean Kysely expression.
 *
 *   db.selectFrom("tickets").selectAll().where(listQueryExpression(program, body))
 */
export function listQueryExpression(
  program: Program,
  body: ListQueryRequest,
  options: LocalOptions = {},
): ExpressionWrapper<never, never, SqlBool> {
  return condition(localTree("list_query", program, body, options).node);
}

// ---------------------------------------------------------------- evaluate_query_local

/**
 * `POST /evaluate_query_local`, in select or filter mode.
 *
 *   evaluateQueryLocal(program, { query, data_bindings: yaml,
 *     mode: { mode: "select", query_vars_to_output_column_names: { var_tk: "ticket_id" } } })
 *   // { sql: "… select distinct f0.arg0 as \"ticket_id\" from …" }
 */
export function evaluateQueryLocal(
  program: Program,
  body: EvaluateQueryLocalRequest,
  options: LocalOptions = {},
): { sql: string } {
  return localSql("evaluate_query_local", program, body, options);
}

/**
 * The `evaluate_query_local` statement as a Kysely expression: a subquery in select mode
 * (one column per output), a boolean expression in filter mode.
 */
export function evaluateQueryLocalExpression(
  program: Program,
  body: EvaluateQueryLocalRequest,
  options: LocalOptions = {},
):
  | ExpressionWrapper<never, never, Record<string, unknown>>
  | ExpressionWrapper<never, never, SqlBool> {
  const { node, question } = localTree("evaluate_query_local", program, body, options);
  if (question.shape.kind === "filter") return condition(node);
  return subquery<Record<string, unknown>>(node);
}
