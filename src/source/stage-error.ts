/**
 * The error every stage after checking throws: a `Problem` of the one coded union
 * (src/source/problems.ts) with the span of the rule or literal that caused it, as a
 * `Diagnostic`. The message is `file:line:col: text` like checker errors in API replies;
 * `format` gives the underlined code frame of src/source/format.ts.
 */
import type { Diagnostic, DiagnosticCode } from "./diagnostic.js";
import { error } from "./diagnostic.js";
import { type FormatOptions, formatDiagnostic, formatDiagnosticLine } from "./format.js";
import { describeProblem, type Problem } from "./problems.js";
import type { SourceFile, Span } from "./source.js";

/** Where a problem is: a span and the policy's files that it points into. */
export interface Located {
  readonly span: Span;
  readonly sources: readonly SourceFile[];
}

/**
 * The span of `at` when it lies in one of its files; a synthetic span (a question's goal,
 * a rule the store's iteration made up) names no file of the policy and is dropped.
 */
function spanIn(at: Located | null | undefined): Span | undefined {
  if (!at) return undefined;
  return at.sources.some((source) => source.name === at.span.file) ? at.span : undefined;
}

export class StageError extends Error {
  override readonly name: string = "StageError";
  readonly code: DiagnosticCode;
  readonly diagnostic: Diagnostic;
  /** The files the span points into (empty without a span). */
  readonly sources: readonly SourceFile[];

  /** `summary` replaces the one-line message, for an error that stands for several diagnostics. */
  constructor(
    readonly problem: Problem,
    at?: Located | null,
    summary?: string,
  ) {
    const span = spanIn(at);
    const diagnostic = error(problem.code, describeProblem(problem), span);
    const sources = span ? at!.sources : [];
    super(summary ?? formatDiagnosticLine(diagnostic, sources));
    this.code = problem.code;
    this.diagnostic = diagnostic;
    this.sources = sources;
  }

  /**
   * The diagnostic with its code frame, as the CLI prints checker errors:
   *
   *   error[P703]: cannot compile a rule for `path` that calls `path` recursively …
   *    --> policy.polar:4:30
   *     |
   *   4 | path(x, z) if path(x, y) and path(y, z);
   *     |                              ^^^^^^^^^^
   */
  format(options: FormatOptions = {}): string {
    return formatDiagnostic(this.diagnostic, this.sources, options);
  }
}
