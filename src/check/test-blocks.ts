/**
 * `test` blocks and fixtures (docs/policy-language.md#tests): unique names, known fixtures, ground setup facts
 * that fit the fact signatures, and the variable rules of assertions.
 */
import type { GroundFact } from "../core/value.js";
import type { Assertion, Fact, Item, Test, Variable } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { canonicalFact, findFactProblem, termValue } from "./facts.js";
import { objectLiteralProblem } from "./literals.js";
import { checkDiagnostic } from "./problems.js";
import type { Program, TestCase } from "./program.js";
import { exprVariables, paramVariable } from "./walk.js";

/**
 * Checks fixtures and tests and returns the test cases with fixtures expanded.
 *
 * @example
 * checkTests(items, program, diagnostics)[0]?.facts; // [{ predicate: "has_role", args: [...] }]
 */
export function checkTests(
  items: readonly Item[],
  program: Pick<Program, "factSignatures" | "types">,
  diagnostics: Diagnostic[],
): TestCase[] {
  const fixtures = new Map<string, readonly GroundFact[]>();
  for (const item of items) {
    if (item.kind !== "fixture") continue;
    const facts = checkFacts(item.facts, program, diagnostics);
    if (fixtures.has(item.name.name)) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P403", kind: "duplicate-fixture", fixture: item.name.name },
          item.name.span,
        ),
      );
    } else {
      fixtures.set(item.name.name, facts);
    }
  }
  const tests: TestCase[] = [];
  const names = new Set<string>();
  for (const item of items) {
    if (item.kind !== "test") continue;
    const test = checkTest(item, fixtures, program, diagnostics);
    if (names.has(test.name)) {
      diagnostics.push(
        checkDiagnostic({ code: "P402", kind: "duplicate-test", test: test.name }, item.name.span),
      );
      continue;
    }
    names.add(test.name);
    tests.push(test);
  }
  return tests;
}

function checkTest(
  test: Test,
  fixtures: ReadonlyMap<string, readonly GroundFact[]>,
  program: Pick<Program, "factSignatures" | "types">,
  diagnostics: Diagnostic[],
): TestCase {
  const facts: GroundFact[] = [];
  for (const entry of test.setup) {
    if (entry.kind === "fact") {
      facts.push(...checkFacts([entry], program, diagnostics));
      continue;
    }
    const fixture = fixtures.get(entry.name.name);
    if (!fixture) {
      diagnostics.push(
        checkDiagnostic(
          {
            code: "P401",
            kind: "unknown-fixture",
            fixture: entry.name.name,
            test: test.name.value,
          },
          entry.name.span,
        ),
      );
      continue;
    }
    facts.push(...fixture);
  }
  for (const assertion of test.assertions) checkAssertion(assertion, diagnostics);
  return { name: test.name.value, facts, assertions: test.assertions, span: test.span };
}

/** Ground, well-typed facts of a setup or fixture; the others are reported and dropped. */
function checkFacts(
  facts: readonly Fact[],
  program: Pick<Program, "factSignatures" | "types">,
  diagnostics: Diagnostic[],
): GroundFact[] {
  const out: GroundFact[] = [];
  for (const fact of facts) {
    const ground = groundFact(fact, diagnostics);
    if (!ground) continue;
    const problem = findFactProblem(program, ground);
    if (problem) {
      const span = problem.argument === null ? fact.name.span : fact.args[problem.argument]!.span;
      diagnostics.push({ ...problem.diagnostic, span });
      continue;
    }
    out.push(canonicalFact(ground));
  }
  return out;
}

function groundFact(fact: Fact, diagnostics: Diagnostic[]): GroundFact | null {
  const args = [];
  for (const arg of fact.args) {
    if (arg.kind === "variable" || arg.kind === "builtin") {
      const found = { kind: arg.kind, name: arg.name };
      diagnostics.push(
        checkDiagnostic({ code: "P406", kind: "setup-not-ground", found }, arg.span),
      );
      return null;
    }
    // Malformed object literals are reported once, by the object literal check.
    if (arg.kind === "object" && objectLiteralProblem(arg)) return null;
    args.push(termValue(arg)!);
  }
  return { predicate: fact.name.name, args };
}

/**
 * The named (non-anonymous) variables of an assertion's query, distinct, in order.
 *
 * @example
 * assertionVariables(parsedAssertion(`assert f(a, _b, a: User);`)).map((v) => v.name); // ["a"]
 */
function assertionVariables(assertion: Assertion): Variable[] {
  const found = new Map<string, Variable>();
  for (const param of assertion.query.params) {
    const variable = paramVariable(param);
    if (variable && !variable.name.startsWith("_") && !found.has(variable.name)) {
      found.set(variable.name, variable);
    }
  }
  return [...found.values()];
}

function checkAssertion(assertion: Assertion, diagnostics: Diagnostic[]): void {
  const variables = assertionVariables(assertion);
  if (variables.length > 1) {
    diagnostics.push(
      checkDiagnostic(
        { code: "P404", kind: "assertion-variables", variables: variables.map((v) => v.name) },
        assertion.query.span,
      ),
    );
  }
  const iff = assertion.iff;
  if (!iff) return;
  if (assertion.negated) {
    diagnostics.push(checkDiagnostic({ code: "P405", kind: "assert-not-iff" }, assertion.span));
    return;
  }
  const variable = variables[0];
  if (!variable) {
    diagnostics.push(checkDiagnostic({ code: "P407", kind: "iff-without-variable" }, iff.span));
    return;
  }
  const reported = new Set<string>();
  for (const other of exprVariables(iff)) {
    if (other.name === variable.name || other.name.startsWith("_") || reported.has(other.name)) {
      continue;
    }
    reported.add(other.name);
    diagnostics.push(
      checkDiagnostic(
        { code: "P408", kind: "iff-other-variable", variable: variable.name, other: other.name },
        other.span,
      ),
    );
  }
}
