/**
 * Human and machine output for a test report: one line per test, failures indented under it.
 */
import { formatExplanation } from "./explain-format.js";
import type { AssertionFailure, TestReport, TestResult } from "./test-runner.js";

export interface ReportFormatOptions {
  /** ANSI colours; default off. */
  readonly color?: boolean;
}

/**
 * One line per test, failures indented under it, then a summary:
 * ```
 * PASS  owners inherit every lower role (4/4)
 * FAIL  broken (1/2)
 *       assert allow(User{"bo"}, "write", Workspace{"w1"});
 *         at policy.polar:12:3
 *         expected: at least one solution
 *         found: no solution
 *
 * 2 tests: 1 passed, 1 failed
 * ```
 */
export function formatTestReport(report: TestReport, options: ReportFormatOptions = {}): string {
  const paint = (code: string, text: string) =>
    options.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  const lines: string[] = [];
  for (const test of report.tests) {
    lines.push(testLine(test, paint));
    for (const failure of test.failures) {
      lines.push(...failureLines(failure, paint, options.color ?? false));
    }
  }
  const total = report.tests.length;
  if (total === 0) {
    lines.push("no tests found");
    return `${lines.join("\n")}\n`;
  }
  const passed = total - report.failedTests;
  const summary = `${total} ${total === 1 ? "test" : "tests"}: ${passed} passed, ${report.failedTests} failed`;
  lines.push("", report.passed ? paint("32", summary) : paint("1;31", summary));
  return `${lines.join("\n")}\n`;
}

type Paint = (code: string, text: string) => string;

function testLine(test: TestResult, paint: Paint): string {
  const status = test.passed ? paint("32", "PASS") : paint("1;31", "FAIL");
  return `${status}  ${test.name} (${test.passedAssertions}/${test.total})`;
}

function failureLines(failure: AssertionFailure, paint: Paint, color: boolean): string[] {
  const indent = "      ";
  const detail = `${indent}  `;
  const lines = [`${indent}${paint("1", failure.assertion.replace(/\s*\n\s*/g, " "))}`];
  if (failure.location) lines.push(`${detail}at ${failure.location}`);
  lines.push(`${detail}expected: ${failure.expected}`);
  lines.push(`${detail}found: ${paint("31", failure.found)}`);
  if (failure.queryOnly?.length) {
    lines.push(
      `${detail}values that satisfy the query but not the condition: ${failure.queryOnly.join(", ")}`,
    );
  }
  if (failure.explanation) {
    lines.push(`${detail}why:`);
    const tree = formatExplanation(failure.explanation, {
      color,
      indent: `${detail}  `,
    });
    lines.push(...tree.trimEnd().split("\n"));
  }
  if (failure.conditionOnly?.length) {
    lines.push(
      `${detail}values that satisfy the condition but not the query: ${failure.conditionOnly.join(", ")}`,
    );
  }
  return lines;
}

/**
 * The report as pretty-printed JSON (it is plain data already).
 *
 * @example
 * JSON.parse(testReportJson(runTests(program))).passed; // true
 */
export function testReportJson(report: TestReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
