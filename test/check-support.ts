/**
 * Helpers shared by the checker tests (test/check*.test.ts).
 */
import { expect } from "vitest";
import { type CheckResult, checkPolicy } from "../src/check/check.js";
import { ON_VARIABLE_PREFIX } from "../src/check/desugar.js";
import type { Clause, Program } from "../src/check/program.js";
import { stripSpans } from "../src/check/structural.js";
import type { Diagnostic, DiagnosticCode } from "../src/source/diagnostic.js";
import { formatDiagnostic } from "../src/source/format.js";
import type { SourceFile } from "../src/source/source.js";

export function check(text: string, name = "policy.polar"): CheckResult {
  return checkPolicy([{ name, text }]);
}

export function describeDiagnostics(result: CheckResult): string {
  return result.diagnostics.map((d) => formatDiagnostic(d, result.sources)).join("\n\n");
}

/** Checks `text` and returns the program, failing the test with code frames on errors. */
export function checkOk(text: string | readonly SourceFile[]): Program {
  const result = typeof text === "string" ? check(text) : checkPolicy(text);
  if (!result.ok) expect.fail(`expected the policy to check:\n${describeDiagnostics(result)}`);
  return result.program;
}

/** The source text a diagnostic underlines. */
export function underlined(result: CheckResult, diagnostic: Diagnostic): string {
  const span = diagnostic.span;
  if (!span) return "";
  const source = result.sources.find((s) => s.name === span.file);
  return source ? source.text.slice(span.start, span.end) : "";
}

/**
 * Asserts that checking `text` fails with a diagnostic of `code` underlining `text`, and
 * returns its message.
 */
export function expectError(
  policy: string,
  code: DiagnosticCode,
  underline: string,
  message?: string,
): string {
  const result = check(policy);
  expect(result.ok, describeDiagnostics(result)).toBe(false);
  const found = result.diagnostics.filter((d) => d.code === code);
  expect(found.length, `no ${code} in:\n${describeDiagnostics(result)}`).toBeGreaterThan(0);
  const first = found[0]!;
  expect(first.severity).toBe("error");
  expect(underlined(result, first)).toBe(underline);
  if (message !== undefined) expect(first.message).toBe(message);
  return first.message;
}

/** Flattens nested `and`/`or`, drops spans and renames `$onN` to `oN`. */
export function normalizeClause(clause: Clause): unknown {
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (node === null || typeof node !== "object") return node;
    const record = node as Record<string, unknown>;
    if (record.kind === "variable" && typeof record.name === "string") {
      const name = record.name.startsWith(ON_VARIABLE_PREFIX)
        ? `o${record.name.slice(ON_VARIABLE_PREFIX.length)}`
        : record.name;
      return { kind: "variable", name };
    }
    if ((record.kind === "and" || record.kind === "or") && Array.isArray(record.operands)) {
      const operands: unknown[] = [];
      for (const operand of record.operands.map(rename)) {
        const inner = operand as Record<string, unknown>;
        if (inner.kind === record.kind) operands.push(...(inner.operands as unknown[]));
        else operands.push(operand);
      }
      return { kind: record.kind, operands };
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key !== "span") copy[key] = rename(value);
    }
    return copy;
  };
  return rename(stripSpans({ name: clause.name, params: clause.params, body: clause.body }));
}

/** All clauses of a program except the default allow, in predicate then source order. */
export function allClauses(program: Program): Clause[] {
  return [...program.rules.values()].flat();
}
