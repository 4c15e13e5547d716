/**
 * Everything the playground computes, without the page: check a policy, read facts written one
 * per line in Polar syntax, answer a question with the reference evaluator, explain it, print
 * the question's SQL and run the policy's tests. Imports only browser-safe modules of the
 * library (no Node built-ins; docs/playground.md).
 */

import { authorizeQuestion, listQuestion, localStatement } from "../../src/api/questions.js";
import { checkBindings } from "../../src/bindings/check.js";
import type { DataBindings } from "../../src/bindings/types.js";
import { checkPolicyText } from "../../src/check/check.js";
import { checkFact, termValue } from "../../src/check/facts.js";
import type { Program } from "../../src/check/program.js";
import type { GroundFact, Value } from "../../src/core/value.js";
import { DIALECT_NAMES, dialectNamed } from "../../src/dialects/registry.js";
import { explain } from "../../src/evaluate/explain.js";
import { formatExplanation } from "../../src/evaluate/explain-format.js";
import { ExplanationTooLarge } from "../../src/evaluate/explain-json.js";
import type { ExplainNode } from "../../src/evaluate/explain-node.js";
import { authorize, list } from "../../src/evaluate/query.js";
import { runTests } from "../../src/evaluate/test-runner.js";
import { inMemoryCentralFacts } from "../../src/plan/resolve/central-facts.js";
import { parsePolicy } from "../../src/polar/parse.js";
import type { Diagnostic } from "../../src/source/diagnostic.js";
import { positionOf, type SourceFile } from "../../src/source/source.js";

export { DIALECT_NAMES };

/** A diagnostic as the page lists it: where it is as a line and column (1-based). */
export interface Problem {
  readonly code: string;
  readonly severity: "error" | "warning";
  readonly message: string;
  readonly line: number;
  readonly column: number;
  /** Offset into the editor's text, for moving the cursor. */
  readonly offset: number;
}

export interface PolicyState {
  readonly program: Program | null;
  readonly problems: readonly Problem[];
}

const POLICY_FILE = "policy.polar";

function problemOf(diagnostic: Diagnostic, source: SourceFile, base = 0, lineBase = 0): Problem {
  const offset = diagnostic.span ? Math.max(0, diagnostic.span.start - base) : 0;
  const position = diagnostic.span ? positionOf(source, diagnostic.span.start) : null;
  return {
    code: diagnostic.code,
    severity: diagnostic.severity,
    message: diagnostic.message,
    line: (position?.line ?? 1) - lineBase,
    column: position?.column ?? 1,
    offset,
  };
}

/** Checks the policy editor's text. */
export function checkPolicySource(text: string): PolicyState {
  const result = checkPolicyText(text, POLICY_FILE);
  const source = { name: POLICY_FILE, text };
  const problems = result.diagnostics.map((d) => problemOf(d, source));
  return { program: result.ok ? result.program : null, problems };
}

export interface FactsState {
  readonly facts: readonly GroundFact[];
  readonly problems: readonly Problem[];
}

const FACTS_FILE = "facts.polar";
const FACT_PREFIX = 'test "facts" { setup { ';

/**
 * Facts written one per line in Polar syntax (`has_role(User{"bob"}, "member", Org{"acme"})`,
 * a trailing `;` optional, `#` comments and blank lines ignored), each checked against the
 * policy's fact signatures when there is a checked policy.
 */
export function readFacts(text: string, program: Program | null): FactsState {
  const facts: GroundFact[] = [];
  const problems: Problem[] = [];
  let lineStart = 0;
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const start = lineStart;
    lineStart += raw.length + 1;
    const body = raw.replace(/#.*$/, "").trim().replace(/;$/, "");
    if (body === "") continue;
    const at = (code: string, message: string, column = 1): Problem => ({
      code,
      severity: "error",
      message,
      line,
      column,
      offset: start + column - 1,
    });
    const wrapped = `${FACT_PREFIX}${body}; } }`;
    const parsed = parsePolicy({ name: FACTS_FILE, text: wrapped });
    const syntax = parsed.diagnostics.find((d) => d.severity === "error");
    if (syntax) {
      const column = syntax.span ? Math.max(1, syntax.span.start - FACT_PREFIX.length + 1) : 1;
      // Past the fact is the `;` this function added: for the user, the line ended.
      const pastEnd = column > body.length;
      const message = pastEnd
        ? syntax.message.replace(/^unexpected `;`/, "unexpected end of line")
        : syntax.message;
      problems.push(at(syntax.code, message, Math.min(column, raw.length + 1)));
      continue;
    }
    const test = parsed.ast.items.find((item) => item.kind === "test");
    const entry = test?.kind === "test" ? test.setup : [];
    const fact = entry.length === 1 && entry[0]!.kind === "fact" ? entry[0]! : null;
    if (!fact) {
      problems.push(
        at("P006", 'expected one fact, like `has_role(User{"bob"}, "member", Org{"acme"})`'),
      );
      continue;
    }
    const args: Value[] = [];
    for (const term of fact.args) {
      const value = termValue(term);
      if (!value) {
        problems.push(at("P406", "facts must be ground (no variables)"));
        break;
      }
      args.push(value);
    }
    if (args.length !== fact.args.length) continue;
    const ground: GroundFact = { predicate: fact.name.name, args };
    const problem = program ? checkFact(program, ground) : null;
    if (problem) {
      problems.push(at(problem.code, problem.message));
      continue;
    }
    facts.push(ground);
  }
  return { facts, problems };
}

/** A question from the three inputs: a resource of `Type:id` authorizes, `Type` lists. */
export type Question =
  | {
      readonly kind: "authorize";
      readonly actor: Value;
      readonly action: string;
      readonly resource: Value;
    }
  | {
      readonly kind: "list";
      readonly actor: Value;
      readonly action: string;
      readonly resourceType: string;
    };

const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function typedValue(text: string, role: string): Value {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  if (colon <= 0) throw new Error(`the ${role} must be \`Type:id\`, got \`${trimmed}\``);
  const type = trimmed.slice(0, colon);
  let id = trimmed.slice(colon + 1);
  if (id.startsWith('"') && id.endsWith('"') && id.length >= 2) id = id.slice(1, -1);
  if (!TYPE_NAME.test(type) || id === "") {
    throw new Error(`the ${role} must be \`Type:id\`, got \`${trimmed}\``);
  }
  return { type, id };
}

/** Reads the question inputs; throws an `Error` saying which input is wrong. */
export function readQuestion(actor: string, action: string, resource: string): Question {
  const actorValue = typedValue(actor, "actor");
  const actionName = action.trim();
  if (actionName === "") throw new Error("the action is empty");
  const resourceText = resource.trim();
  if (TYPE_NAME.test(resourceText)) {
    return { kind: "list", actor: actorValue, action: actionName, resourceType: resourceText };
  }
  return {
    kind: "authorize",
    actor: actorValue,
    action: actionName,
    resource: typedValue(resourceText, "resource"),
  };
}

export type Answer =
  | {
      readonly kind: "authorize";
      readonly allowed: boolean;
      readonly text: string;
      readonly explanation: string;
    }
  | {
      readonly kind: "list";
      readonly ids: readonly string[];
      readonly text: string;
      readonly explanation: string;
    };

/** Nodes of a tree the page prints: the service's default `explainNodes` (docs/limits.md). */
const SHOWN_NODES = 100_000;

/** The tree as text, or why it is not shown (printed without recursion, at any depth). */
function shownTree(tree: ExplainNode): string {
  try {
    return formatExplanation(tree, { maxNodes: SHOWN_NODES });
  } catch (error) {
    if (!(error instanceof ExplanationTooLarge)) throw error;
    return `the explanation has more than ${SHOWN_NODES} nodes; it is not shown`;
  }
}

/** The reference evaluator's answer over the facts; an explanation for authorize questions. */
export function answer(program: Program, facts: readonly GroundFact[], question: Question): Answer {
  if (question.kind === "authorize") {
    const allowed = authorize(program, facts, question.actor, question.action, question.resource);
    const tree = explain(program, question, facts);
    return {
      kind: "authorize",
      allowed,
      text: allowed ? "allowed" : "denied",
      explanation: shownTree(tree.explanation),
    };
  }
  const ids = list(program, facts, question.actor, question.action, question.resourceType);
  // Each listed id has a proof: explain them one by one (a few at most).
  const shown = ids.slice(0, 5).filter((id) => id !== "*");
  const explanation = shown
    .map((id) => {
      const resource = { type: question.resourceType, id };
      return shownTree(explain(program, { ...question, resource }, facts).explanation);
    })
    .join("\n");
  return {
    kind: "list",
    ids,
    text: ids.join("\n"),
    explanation: explanation || `no ${question.resourceType} is allowed`,
  };
}

export interface BindingsState {
  /**
   * What the SQL reads: the bindings the policy can use (a binding it cannot use is a warning
   * and is ignored), none when the document has errors. With none, the SQL reads the facts.
   */
  readonly bindings: DataBindings;
  /** The document has errors: its bindings are not read until they are fixed. */
  readonly hasErrors: boolean;
  readonly problems: readonly Problem[];
}

const BINDINGS_FILE = "bindings.yaml";

export const NO_BINDINGS: DataBindings = { bindings: [], sqlTypes: new Map(), keys: new Map() };

/**
 * Checks the data bindings (YAML) against the policy when there is a checked one; a fact the
 * policy reads that neither a binding nor the facts list produces is a warning (W005).
 */
export function checkBindingsSource(
  program: Program | null,
  text: string,
  facts: readonly GroundFact[],
): BindingsState {
  const checked = checkBindings(program, text, {
    fileName: BINDINGS_FILE,
    central: inMemoryCentralFacts(facts),
  });
  const source = { name: BINDINGS_FILE, text };
  return {
    bindings: checked.bindings ?? NO_BINDINGS,
    hasErrors: !checked.ok,
    problems: checked.diagnostics.map((d) => problemOf(d, source)),
  };
}

/** A binding reads this fact from the tables: its predicate, arity, types and constants fit. */
function readFromTables(bindings: DataBindings, fact: GroundFact): boolean {
  return bindings.bindings.some(
    (binding) =>
      binding.predicate === fact.predicate &&
      binding.slots.length === fact.args.length &&
      binding.slots.every((slot, i) => {
        const arg = fact.args[i]!;
        return slot.type === arg.type && (slot.kind === "column" || slot.value === arg.id);
      }),
  );
}

export interface SqlText {
  readonly sql: string;
  /** Column of the single row (`allowed`) or of each row (`id`). */
  readonly column: string;
}

/**
 * The statement that answers the question over the bindings, in the dialect: facts a binding
 * reads come from the tables; the other facts are inlined (central facts), all of them when no
 * binding is usable, as `polar-sql sql --facts` does. A list question selects the ids, column
 * `id`.
 */
export function questionSql(
  program: Program,
  bindings: DataBindings,
  facts: readonly GroundFact[],
  question: Question,
  dialectName: string,
): SqlText {
  const dialect = dialectNamed(dialectName);
  if (!dialect) throw new Error(`unknown dialect \`${dialectName}\``);
  const central = inMemoryCentralFacts(facts.filter((f) => !readFromTables(bindings, f)));
  const options = { dialect, central, cacheText: false } as const;
  const query = {
    actor_type: question.actor.type,
    actor_id: question.actor.id,
    action: question.action,
    context_facts: [],
  };
  if (question.kind === "authorize") {
    const asked = authorizeQuestion(program, {
      ...query,
      resource_type: question.resource.type,
      resource_id: question.resource.id,
    });
    return { sql: localStatement(program, bindings, asked, options).sql, column: "allowed" };
  }
  const listed = listQuestion(program, { ...query, resource_type: question.resourceType }, "id");
  const selecting = {
    ...listed,
    goal: { ...listed.goal, outer: null },
    shape: { kind: "select", names: ["id"] },
  } as const;
  return { sql: localStatement(program, bindings, selecting, options).sql, column: "id" };
}

/** The rows of a run as the answer's text: `allowed`/`denied`, or sorted ids one per line. */
export function rowsText(column: string, rows: readonly Record<string, unknown>[]): string {
  if (column === "allowed") {
    return rows[0]?.[column] === true ? "allowed" : "denied";
  }
  const ids = rows.map((row) => String(row[column]));
  return [...new Set(ids)].sort(compareCodePoints).join("\n");
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface TestOutcome {
  readonly name: string;
  readonly passed: boolean;
  readonly summary: string;
  /** Why each failing assertion failed, with its explanation. */
  readonly reasons: readonly string[];
}

/** Runs the policy's `test` blocks. */
export function policyTests(program: Program): readonly TestOutcome[] {
  return runTests(program).tests.map((test) => ({
    name: test.name,
    passed: test.passed,
    summary: `${test.passedAssertions}/${test.total} assertions pass`,
    reasons: test.failures.map((failure) => {
      const head = `${failure.assertion} expected ${failure.expected}, found ${failure.found}`;
      const why = failure.error ?? (failure.explanation ? shownTree(failure.explanation) : "");
      return why ? `${head}\n${why}` : head;
    }),
  }));
}
