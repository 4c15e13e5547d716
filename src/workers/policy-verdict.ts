/**
 * Whether a posted policy may become the active one: it checks, fits the limits
 * (docs/limits.md) and passes its own tests. Runs in a worker thread (src/workers/worker.ts) so a
 * costly policy never holds the event loop; a refusal is the `ApiError` the client receives.
 */

import {
  budgetError,
  checkPolicyShape,
  type Limits,
  limitError,
  workBudget,
} from "../api/limits.js";
import { ApiError } from "../api/service.js";
import { type CheckResult, checkPolicy } from "../check/check.js";
import { BudgetExceeded, withBudget } from "../core/budget.js";
import { runTests } from "../evaluate/test-runner.js";
import { formatDiagnosticLine } from "../source/format.js";
import type { SourceFile } from "../source/source.js";

/**
 * The policy's warnings as a message suffix (empty without warnings); throws the refusal.
 *
 *   judgePolicy([{ name: "p.polar", text: src }], DEFAULT_LIMITS, null) // "" or " (warnings: …)"
 */
export function judgePolicy(
  sources: readonly SourceFile[],
  limits: Limits,
  now: bigint | null,
  failFast = false,
  check: (sources: readonly SourceFile[]) => CheckResult = checkPolicy,
): string {
  const bytes = sources.reduce((total, file) => total + Buffer.byteLength(file.text), 0);
  if (bytes > limits.policyBytes) {
    throw limitError("policyBytes", limits.policyBytes, `the policy has ${bytes} bytes`);
  }
  const checked = check(sources);
  if (!checked.ok) {
    const errors = checked.diagnostics.filter((d) => d.severity === "error");
    const lines = errors.map((d) => formatDiagnosticLine(d, sources));
    const count = `(${errors.length} error${errors.length === 1 ? "" : "s"})`;
    throw new ApiError(400, `${lines[0]} ${count}`, {
      error_type: "Validation",
      errors: lines.map((message) => ({ error_type: "ValidationFailed", message })),
    });
  }
  checkPolicyShape(checked.program, limits);
  let report: ReturnType<typeof runTests>;
  try {
    report = withBudget(workBudget(limits), () =>
      runTests(checked.program, now === null ? {} : { now: () => now }),
    );
  } catch (error) {
    if (error instanceof BudgetExceeded) throw budgetError(error);
    throw error;
  }
  if (!report.passed) {
    const failures = report.tests.flatMap((test) =>
      test.failures.map((f) => ({
        error_type: "AssertionFailed",
        message: `test \`${test.name}\` failed: ${assertionText(f.assertion)}${f.error ? ` (${f.error})` : ""}`,
      })),
    );
    const errors = failFast ? failures.slice(0, 1) : failures;
    throw new ApiError(400, errors[0]?.message ?? "policy tests failed", {
      error_type: "TestsFailed",
      test_results: {
        success: false,
        errors,
        tests: report.tests.map((t) => ({
          name: t.name,
          passed: t.passedAssertions,
          total: t.total,
        })),
      },
    });
  }
  const warnings = checked.diagnostics.filter((d) => d.severity === "warning");
  return warnings.length
    ? ` (warnings: ${warnings.map((d) => formatDiagnosticLine(d, sources)).join("; ")})`
    : "";
}

/** `assert allow(…);` as the API shows it: `allow(…)`; `assert_not` keeps its keyword. */
function assertionText(source: string): string {
  return source
    .trim()
    .replace(/;$/, "")
    .replace(/^assert\s+/, "");
}
