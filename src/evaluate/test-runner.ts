/**
 * Runs a policy's `test` blocks (docs/policy-language.md#tests, docs/policy-language.md#project-decisions 10 and 12). Each test sees the
 * policy plus only its own setup facts; `?=` inline queries run against the policy alone, under
 * a synthetic test named `inline queries`. Results are plain data; see `report.ts` for output.
 */

import type { Program, TestCase } from "../check/program.js";
import { predicateKey } from "../check/program.js";
import { BudgetExceeded } from "../core/budget.js";
import {
  compareCodePoints,
  formatValue,
  type GroundFact,
  stringValue,
  type Value,
} from "../core/value.js";
import type { Assertion, Expr } from "../polar/ast.js";
import { tick } from "../source/diagnostic.js";
import { positionOf, type Span } from "../source/source.js";
import {
  type Atom,
  compileClause,
  compileExpr,
  compileParam,
  constantsOfConjunctions,
  type TermIR,
} from "./compile.js";
import { EvaluationError } from "./errors.js";
import { explainCall } from "./explain.js";
import type { ExplainNode } from "./explain-node.js";
import { type FactIndex, indexFacts } from "./facts.js";
import { createSession } from "./session.js";
import {
  anyOf,
  canonicalValue,
  fits,
  intersect,
  isWildcard,
  type Slot,
  slotKey,
  type Wildcard,
} from "./slot.js";
import { hasSolution, solveTop } from "./solve.js";
import type { Session } from "./tables.js";

export const INLINE_QUERIES_TEST = "inline queries";

export interface AssertionFailure {
  /** The assertion's source text, e.g. `assert allow(User{"bo"}, "read", Doc{"d"});`. */
  readonly assertion: string;
  /** `file:line:col`, when known. */
  readonly location: string | null;
  readonly expected: string;
  readonly found: string;
  /** For `iff`: values that satisfy the query but not the condition. */
  readonly queryOnly?: readonly string[];
  /** For `iff`: values that satisfy the condition but not the query. */
  readonly conditionOnly?: readonly string[];
  /** The evaluation error that made the assertion fail, if any. */
  readonly error?: string;
  /**
   * Why: the proof of the solution an `assert_not` found, or what was tried for an `assert`
   * that found none (see docs/explain.md).
   */
  readonly explanation?: ExplainNode;
}

export interface TestResult {
  readonly name: string;
  readonly passed: boolean;
  readonly total: number;
  readonly passedAssertions: number;
  readonly failures: readonly AssertionFailure[];
}

export interface TestReport {
  readonly passed: boolean;
  readonly tests: readonly TestResult[];
  readonly failedTests: number;
}

export interface TestRunOptions {
  /** The clock builtins read, in Unix seconds. */
  readonly now?: () => bigint;
}

/**
 * Runs every test block of a checked program, then the inline queries.
 *
 * @example
 * const report = runTests(checkPolicyOrThrow(sources));
 * report.tests.map((t) => `${t.name}: ${t.passed}`);
 */
export function runTests(program: Program, options: TestRunOptions = {}): TestReport {
  const tests = program.tests.map((test) => runTestCase(program, test, options));
  if (program.inlineQueries.length > 0) {
    const failures = program.inlineQueries.flatMap((inline) => {
      const failure = runInlineQuery(program, inline.expr, inline.span, options);
      return failure ? [failure] : [];
    });
    tests.push(result(INLINE_QUERIES_TEST, program.inlineQueries.length, failures));
  }
  const failedTests = tests.filter((test) => !test.passed).length;
  return { passed: failedTests === 0, tests, failedTests };
}

function result(name: string, total: number, failures: AssertionFailure[]): TestResult {
  return {
    name,
    passed: failures.length === 0,
    total,
    passedAssertions: total - failures.length,
    failures,
  };
}

/**
 * Runs one test block in isolation: the policy plus only the test's setup facts.
 *
 * @example
 * runTestCase(program, program.tests[0]!).failures; // [] when every assertion holds
 */
export function runTestCase(
  program: Program,
  test: TestCase,
  options: TestRunOptions = {},
): TestResult {
  const failures: AssertionFailure[] = [];
  const index = indexFacts(test.facts);
  for (const assertion of test.assertions) {
    const failure = runAssertion(program, index, test.facts, assertion, options);
    if (failure) failures.push(failure);
  }
  return result(test.name, test.assertions.length, failures);
}

interface Located {
  readonly assertion: string;
  readonly location: string | null;
}

function locate(program: Program, span: Span): Located {
  const source = program.sources.find((candidate) => candidate.name === span.file);
  if (!source) return { assertion: "", location: span.file || null };
  const { line, column } = positionOf(source, span.start);
  return {
    assertion: source.text.slice(span.start, span.end),
    location: `${span.file}:${line}:${column}`,
  };
}

function fail(
  program: Program,
  span: Span,
  details: Omit<AssertionFailure, "assertion" | "location">,
): AssertionFailure {
  return { ...locate(program, span), ...details };
}

/** Evaluation errors (and a too-deep recursion) fail the assertion; anything else is a bug. */
function errorFailure(program: Program, span: Span, error: unknown): AssertionFailure {
  if (error instanceof BudgetExceeded) throw error;
  if (!(error instanceof EvaluationError || error instanceof RangeError)) throw error;
  const message = error.message;
  return fail(program, span, { expected: "an answer", found: `error: ${message}`, error: message });
}

function runInlineQuery(
  program: Program,
  expr: Expr,
  span: Span,
  options: TestRunOptions,
): AssertionFailure | null {
  try {
    const session = newSession(program, indexFacts([]), options);
    if (hasSolution(session, compileExpr(expr), new Map())) return null;
    return fail(program, span, { expected: "at least one solution", found: "no solution" });
  } catch (error) {
    return errorFailure(program, span, error);
  }
}

function newSession(program: Program, facts: FactIndex, options: TestRunOptions) {
  return createSession(program, [facts], options.now ? { now: options.now } : {});
}

/** An assertion's query as atoms, plus its one named variable (if any) and that one's types. */
interface AssertionQuery {
  readonly atoms: readonly Atom[];
  readonly variable: string | null;
  readonly types: readonly string[];
}

function assertionQuery(assertion: Assertion): AssertionQuery | string {
  const atoms: Atom[] = [];
  const args: TermIR[] = [];
  const named = new Set<string>();
  const types: string[] = [];
  assertion.query.params.forEach((param, i) => {
    const { term, type } = compileParam(param);
    // `_: T` still constrains the type: give it a hidden variable for the `matches`.
    const arg: TermIR =
      term.kind === "anon" && type !== null ? { kind: "var", name: `#${i}` } : term;
    args.push(arg);
    if (arg.kind === "var" && type !== null) {
      atoms.push({ kind: "matches", variable: arg, type });
    }
    if (term.kind === "var" && !term.name.startsWith("_")) {
      named.add(term.name);
      if (type !== null) types.push(type);
    }
  });
  const predicate = predicateKey(assertion.query.name.name, args.length);
  atoms.push({ kind: "call", predicate, args });
  if (named.size > 1) {
    return `assertion has more than one variable: ${[...named].map(tick).join(", ")}`;
  }
  const [variable = null] = named;
  if (assertion.iff && assertion.negated) return "`assert_not` cannot be combined with `iff`";
  if (assertion.iff && variable === null) return "`iff` needs a variable in the assertion";
  return { atoms, variable, types };
}

function runAssertion(
  program: Program,
  index: FactIndex,
  facts: readonly GroundFact[],
  assertion: Assertion,
  options: TestRunOptions,
): AssertionFailure | null {
  const shape = assertionQuery(assertion);
  if (typeof shape === "string") {
    return fail(program, assertion.span, {
      expected: "a valid assertion",
      found: `error: ${shape}`,
      error: shape,
    });
  }
  try {
    const session = newSession(program, index, options);
    if (assertion.iff) return checkIff(program, session, facts, assertion, assertion.iff, shape);
    const answers = variableAnswers(session, shape);
    if (!assertion.negated) {
      if (answers.count > 0) return null;
      return fail(program, assertion.span, {
        expected: "at least one solution",
        found: "no solution",
        ...explanationOf(program, index, assertion, session),
      });
    }
    if (answers.count === 0) return null;
    const found =
      shape.variable === null
        ? "the query holds"
        : `${shape.variable} = ${answers.slots.map(formatSlot).join(", ")}`;
    return fail(program, assertion.span, {
      expected: "no solution",
      found,
      ...explanationOf(program, index, assertion, session),
    });
  } catch (error) {
    return errorFailure(program, assertion.span, error);
  }
}

/** The assertion's call explained over the setup facts; nothing when that fails. */
function explanationOf(
  program: Program,
  facts: FactIndex,
  assertion: Assertion,
  session: Session,
): { explanation?: ExplainNode } {
  const args = assertion.query.params.map((param): Slot => {
    const { term, type } = compileParam(param);
    if (term.kind === "const") return term.value;
    if (term.kind === "builtin") return session.builtins[term.name];
    return anyOf(type);
  });
  try {
    const layers = [{ source: "setup" as const, facts }];
    const now = () => session.inputs.now;
    return {
      explanation: explainCall(program, layers, assertion.query.name.name, args, { now }).node,
    };
  } catch {
    return {};
  }
}

/** Solutions of the assertion's query: how many, and the distinct values of its variable. */
function variableAnswers(session: Session, query: AssertionQuery) {
  const slots: Slot[] = [];
  const seen = new Set<string>();
  let count = 0;
  solveTop(session, query.atoms, new Map(), (env) => {
    count++;
    const slot = query.variable === null ? undefined : env.get(query.variable);
    if (slot && !seen.has(slotKey(slot))) {
      seen.add(slotKey(slot));
      slots.push(slot);
    }
  });
  slots.sort((a, b) => compareCodePoints(formatSlot(a), formatSlot(b)));
  return { count, slots };
}

/**
 * `assert q(…, v, …) iff C`: over the active domain (literals of the policy's rules, declared
 * role, permission and relation names, the setup facts, the assertion and `C`, filtered by the
 * variable's types) the values satisfying `q` must be exactly those satisfying `C`. A wildcard
 * answer covers every candidate it admits.
 */
function checkIff(
  program: Program,
  session: Session,
  facts: readonly GroundFact[],
  assertion: Assertion,
  condition: Expr,
  query: AssertionQuery,
): AssertionFailure | null {
  const variable = query.variable!;
  const answers = variableAnswers(session, query).slots;
  const conditionBody = compileExpr(condition);
  const domain: Value[] = [...policyConstants(program)];
  for (const fact of facts) domain.push(...fact.args.map(canonicalValue));
  constantsOfConjunctions([query.atoms], domain);
  constantsOfConjunctions(conditionBody, domain);
  for (const answer of answers) if (!isWildcard(answer)) domain.push(answer);
  const candidates = new Map<string, Value>();
  for (const value of domain) {
    const typed = query.types.every((type) => fits(program, value, { kind: "any", types: [type] }));
    if (typed) candidates.set(slotKey(value), value);
  }
  const queryOnly: string[] = [];
  const conditionOnly: string[] = [];
  const inQuery: string[] = [];
  const inCondition: string[] = [];
  for (const candidate of candidates.values()) {
    const byQuery = answers.some((answer) => intersect(program, answer, candidate) !== null);
    const byCondition = hasSolution(session, conditionBody, new Map([[variable, candidate]]));
    const text = formatValue(candidate);
    if (byQuery) inQuery.push(text);
    if (byCondition) inCondition.push(text);
    if (byQuery && !byCondition) queryOnly.push(text);
    if (byCondition && !byQuery) conditionOnly.push(text);
  }
  if (queryOnly.length === 0 && conditionOnly.length === 0) return null;
  const set = (values: string[]) => `{${values.sort(compareCodePoints).join(", ")}}`;
  return fail(program, assertion.span, {
    expected: `${variable} in ${set(inCondition)}`,
    found: `${variable} in ${set(inQuery)}`,
    queryOnly: queryOnly.sort(compareCodePoints),
    conditionOnly: conditionOnly.sort(compareCodePoints),
  });
}

const constantsCache = new WeakMap<Program, readonly Value[]>();

/** Every literal in the policy's clauses, and the role, permission and relation names. */
function policyConstants(program: Program): readonly Value[] {
  let constants = constantsCache.get(program);
  if (!constants) {
    const found: Value[] = [];
    for (const meta of program.resources.values()) {
      const names = [...meta.roles, ...meta.permissions, ...Object.keys(meta.relations)];
      found.push(...names.map(stringValue));
    }
    for (const clauses of program.rules.values()) {
      for (const clause of clauses) {
        const compiled = compileClause(clause);
        for (const { term } of compiled.head) if (term.kind === "const") found.push(term.value);
        constantsOfConjunctions(compiled.body, found);
      }
    }
    constants = found;
    constantsCache.set(program, constants);
  }
  return constants;
}

/** `"read"`, `User{"ada"}`, `any \`User\``, `any value`. */
export function formatSlot(slot: Slot): string {
  if (!isWildcard(slot)) return formatValue(slot);
  return describeWildcard(slot);
}

function describeWildcard(wildcard: Wildcard): string {
  return wildcard.types.length === 0 ? "any value" : `any ${wildcard.types.map(tick).join(" & ")}`;
}
