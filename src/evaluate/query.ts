/**
 * The questions every endpoint asks, answered by the reference evaluator: the general query of
 * `/evaluate_query` and the convenience checks authorize, list, actions, authorize_resources.
 */
import { type PredicateKey, type Program, predicateKey } from "../check/program.js";
import {
  compareCodePoints,
  type GroundFact,
  isAbstractType,
  parseInteger,
  type Value,
} from "../core/value.js";
import type { Atom } from "./compile.js";
import { invalidQuery } from "./errors.js";
import { type FactIndex, type FactInput, indexFacts, toFactIndex } from "./facts.js";
import { createSession } from "./session.js";
import { ANY, anyOf, canonicalValue, fits, isWildcard, type Slot } from "./slot.js";
import { type Env, solveTop } from "./solve.js";
import type { Session } from "./tables.js";

/** Options of every question. */
export interface EvaluateOptions {
  /** Facts that count as stored facts for this question only. */
  readonly contextFacts?: readonly GroundFact[];
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
}

export interface QueryConstraint {
  readonly type: string;
  /** Null: any value of the type; otherwise one of these ids. */
  readonly ids: readonly string[] | null;
}

/** The `Query` object of `/evaluate_query` (docs/http-api.md#post-apievaluate_query). */
export interface Query {
  readonly predicate: readonly [string, readonly string[]];
  readonly calls?: readonly (readonly [string, readonly string[]])[];
  readonly constraints: Readonly<Record<string, QueryConstraint>>;
  readonly context_facts?: readonly GroundFact[];
}

/** One solution: an id per constrained variable, null when it holds for every value. */
export type QueryRow = Record<string, string | null>;

function session(program: Program, facts: FactInput, options: EvaluateOptions): Session {
  const layers: FactIndex[] = [toFactIndex(facts)];
  if (options.contextFacts?.length) layers.push(indexFacts(options.contextFacts));
  return createSession(program, layers, options.now ? { now: options.now } : {});
}

/**
 * Answers an `/evaluate_query` question: one row per solution of the conjunction of `predicate`
 * and `calls`, with every constrained variable. Constraint types match exactly (no subtypes).
 *
 * @example
 * query(program, facts, {
 *   predicate: ["allow", ["u", "a", "t"]],
 *   constraints: { u: { type: "User", ids: ["ada"] }, a: { type: "String", ids: null },
 *                  t: { type: "Ticket", ids: ["t1"] } },
 * }); // [{ u: "ada", a: "view", t: "t1" }, ...]
 */
export function query(
  program: Program,
  facts: FactInput,
  question: Query,
  options: EvaluateOptions = {},
): QueryRow[] {
  const calls = [question.predicate, ...(question.calls ?? [])];
  const atoms: Atom[] = calls.map(([name, variables]) => {
    const predicate = knownPredicate(program, name, variables.length);
    for (const variable of variables) {
      if (!Object.hasOwn(question.constraints, variable)) {
        throw invalidQuery({ code: "P601", kind: "unconstrained-variable", variable });
      }
    }
    return {
      kind: "call",
      predicate,
      args: variables.map((name) => ({ kind: "var", name })),
    };
  });
  const variables = Object.keys(question.constraints);
  for (const variable of variables) {
    const { type, ids } = question.constraints[variable]!;
    validateConstraint(variable, type, ids);
    atoms.push(
      ids === null
        ? { kind: "matches", variable: { kind: "var", name: variable }, type }
        : {
            kind: "in",
            element: { kind: "var", name: variable },
            list: ids.map((id) => ({ kind: "const", value: canonicalValue({ type, id }) })),
            span: null,
          },
    );
  }
  const contextFacts = [...(question.context_facts ?? []), ...(options.contextFacts ?? [])];
  const evaluation = session(program, facts, { ...options, contextFacts });
  const rows: QueryRow[] = [];
  const seen = new Set<string>();
  solveTop(evaluation, atoms, new Map(), (env) => {
    const row = toRow(program, question.constraints, variables, env);
    const key = row && JSON.stringify(variables.map((variable) => row[variable]));
    if (row && !seen.has(key!)) {
      seen.add(key!);
      rows.push(row);
    }
  });
  return rows;
}

function knownPredicate(program: Program, name: string, arity: number): PredicateKey {
  if (typeof name !== "string" || name === "")
    throw invalidQuery({ code: "P601", kind: "missing-predicate" });
  const key = predicateKey(name, arity);
  if (program.rules.has(key) || program.factSignatures.has(key)) return key;
  const arities = [...program.rules.keys(), ...program.factSignatures.keys()]
    .filter((known) => known.slice(0, known.lastIndexOf("/")) === name)
    .map((known) => known.slice(known.lastIndexOf("/") + 1));
  throw invalidQuery({ code: "P601", kind: "unknown-predicate", name, arity, arities });
}

function validateConstraint(variable: string, type: string, ids: readonly string[] | null): void {
  if (typeof type !== "string" || type === "") {
    throw invalidQuery({ code: "P601", kind: "empty-type", variable });
  }
  if (isAbstractType(type)) {
    throw invalidQuery({ code: "P601", kind: "abstract-type", type });
  }
  for (const id of ids ?? []) {
    if (typeof id !== "string" || id === "") {
      throw invalidQuery({ code: "P601", kind: "empty-id", variable });
    }
    validateId({ type, id });
  }
}

function validateId(value: Value): void {
  if (value.type === "Integer" && parseInteger(value.id) === null) {
    throw invalidQuery({ code: "P601", kind: "invalid-integer", id: value.id });
  }
  if (value.type === "Boolean" && value.id !== "true" && value.id !== "false") {
    throw invalidQuery({ code: "P601", kind: "invalid-boolean", id: value.id });
  }
}

/** The row of a solution, or null when a value does not have exactly the constrained type. */
function toRow(
  program: Program,
  constraints: Query["constraints"],
  variables: readonly string[],
  env: Env,
): QueryRow | null {
  const row: QueryRow = {};
  for (const variable of variables) {
    const { type } = constraints[variable]!;
    const slot = env.get(variable) ?? ANY;
    const id = exactId(program, slot, type);
    if (id === undefined) return null;
    row[variable] = id;
  }
  return row;
}

/** The id of a value of exactly `type`, null for a wildcard covering `type`, else undefined. */
function exactId(program: Program, slot: Slot, type: string): string | null | undefined {
  if (!isWildcard(slot)) return slot.type === type ? slot.id : undefined;
  return fits(program, { type, id: "" }, slot) ? null : undefined;
}

export function checkValue(value: Value, role: string): Value {
  if (typeof value?.type !== "string" || value.type === "" || typeof value.id !== "string") {
    throw invalidQuery({ code: "P601", kind: "incomplete-value", role });
  }
  if (value.id === "") throw invalidQuery({ code: "P601", kind: "incomplete-value", role });
  validateId(value);
  return canonicalValue(value);
}

function allowAnswers(
  evaluation: Session,
  actor: Slot,
  action: Slot,
  resource: Slot,
): readonly (readonly Slot[])[] {
  const answers: (readonly Slot[])[] = [];
  const atom: Atom = {
    kind: "call",
    predicate: predicateKey("allow", 3),
    args: [
      { kind: "var", name: "actor" },
      { kind: "var", name: "action" },
      { kind: "var", name: "resource" },
    ],
  };
  const env = new Map<string, Slot>([
    ["actor", actor],
    ["action", action],
    ["resource", resource],
  ]);
  solveTop(evaluation, [atom], env, (solution) => {
    answers.push([solution.get("actor")!, solution.get("action")!, solution.get("resource")!]);
  });
  return answers;
}

/**
 * Whether `allow(actor, action, resource)` holds. Unknown actions and types answer false.
 *
 * @example
 * authorize(program, facts, { type: "User", id: "ada" }, "read", { type: "Workspace", id: "w1" });
 */
export function authorize(
  program: Program,
  facts: FactInput,
  actor: Value,
  action: string,
  resource: Value,
  options: EvaluateOptions = {},
): boolean {
  const evaluation = session(program, facts, options);
  return allowed(evaluation, actor, action, resource);
}

function allowed(evaluation: Session, actor: Value, action: string, resource: Value): boolean {
  const answers = allowAnswers(
    evaluation,
    checkValue(actor, "actor"),
    { type: "String", id: action },
    checkValue(resource, "resource"),
  );
  return answers.length > 0;
}

/**
 * Ids of exactly `resourceType` that `actor` may `action`, sorted by code point; `"*"` when
 * every value of the type is allowed (a wildcard answer).
 *
 * @example
 * list(program, facts, { type: "User", id: "ada" }, "read", "Workspace"); // ["w1"]
 */
export function list(
  program: Program,
  facts: FactInput,
  actor: Value,
  action: string,
  resourceType: string,
  options: EvaluateOptions = {},
): string[] {
  if (typeof resourceType !== "string" || resourceType === "") {
    throw invalidQuery({ code: "P601", kind: "empty-resource-type" });
  }
  const evaluation = session(program, facts, options);
  const answers = allowAnswers(
    evaluation,
    checkValue(actor, "actor"),
    { type: "String", id: action },
    anyOf(resourceType),
  );
  return sortedIds(answers.map((answer) => exactId(program, answer[2]!, resourceType)));
}

/**
 * The actions `actor` may perform on `resource`, sorted; `"*"` for a wildcard action.
 *
 * @example
 * actions(program, facts, { type: "User", id: "ada" }, { type: "Workspace", id: "w1" });
 * // ["invite", "read", "write"]
 */
export function actions(
  program: Program,
  facts: FactInput,
  actor: Value,
  resource: Value,
  options: EvaluateOptions = {},
): string[] {
  const evaluation = session(program, facts, options);
  const answers = allowAnswers(
    evaluation,
    checkValue(actor, "actor"),
    ANY,
    checkValue(resource, "resource"),
  );
  return sortedIds(answers.map((answer) => exactId(program, answer[1]!, "String")));
}

/**
 * The resources `actor` may `action`, in input order with duplicates kept.
 *
 * @example
 * authorizeResources(program, facts, ada, "read", [w1, w2, w1]); // [w1, w1]
 */
export function authorizeResources(
  program: Program,
  facts: FactInput,
  actor: Value,
  action: string,
  resources: readonly Value[],
  options: EvaluateOptions = {},
): Value[] {
  // One session: the tables computed for one resource serve the others.
  const evaluation = session(program, facts, options);
  return resources.filter((resource) => allowed(evaluation, actor, action, resource));
}

function sortedIds(ids: readonly (string | null | undefined)[]): string[] {
  const distinct = new Set<string>();
  for (const id of ids) {
    if (id !== undefined) distinct.add(id ?? "*");
  }
  return [...distinct].sort(compareCodePoints);
}
