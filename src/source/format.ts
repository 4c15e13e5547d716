import type { Diagnostic } from "./diagnostic.js";
import { lineText, positionOf, type SourceFile, type Span } from "./source.js";

export interface FormatOptions {
  /** ANSI colours; default off. */
  readonly color?: boolean;
}

/** `file:line:col: ` for a diagnostic with a known position, else "". */
function locationPrefix(diagnostic: Diagnostic, sources: readonly SourceFile[]): string {
  const span = diagnostic.span;
  if (!span) return "";
  const where = spanLocation(span, sources);
  return where ? `${where}: ` : "";
}

/** `file:line:col` of a span, or only `file` when it names none of `sources`. */
export function spanLocation(span: Span, sources: readonly SourceFile[]): string {
  const source = sources.find((s) => s.name === span.file);
  if (!source) return span.file;
  const { line, column } = positionOf(source, span.start);
  return `${span.file}:${line}:${column}`;
}

/**
 * One line: `file:line:col: message`, the form used in API error messages; with `code`,
 * `file:line:col: error[P708]: message`.
 */
export function formatDiagnosticLine(
  diagnostic: Diagnostic,
  sources: readonly SourceFile[],
  options: { readonly code?: boolean } = {},
): string {
  const code = options.code ? `${diagnostic.severity}[${diagnostic.code}]: ` : "";
  return `${locationPrefix(diagnostic, sources)}${code}${diagnostic.message}`;
}

/**
 * A diagnostic with a code frame that underlines its span:
 * ```
 * error[P201]: undeclared term `editor` in `Ticket`; declare it as a role, permission or relation
 *  --> policy.polar:3:14
 *   |
 * 3 |   "edit" if "editor";
 *   |             ^^^^^^^^
 *   = help: ...
 * ```
 */
export function formatDiagnostic(
  diagnostic: Diagnostic,
  sources: readonly SourceFile[],
  options: FormatOptions = {},
): string {
  const paint = (code: string, text: string) =>
    options.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  const severityColor = diagnostic.severity === "error" ? "1;31" : "1;33";
  const lines = [
    `${paint(severityColor, `${diagnostic.severity}[${diagnostic.code}]`)}: ${diagnostic.message}`,
  ];
  const span = diagnostic.span;
  const source = span && sources.find((s) => s.name === span.file);
  if (span && source) {
    const start = positionOf(source, span.start);
    const end = positionOf(source, Math.max(span.start, span.end - 1));
    const gutter = String(end.line).length;
    const pad = " ".repeat(gutter);
    lines.push(`${pad}${paint("1;34", "-->")} ${span.file}:${start.line}:${start.column}`);
    lines.push(`${pad} ${paint("1;34", "|")}`);
    // Show at most the first three lines of a multi-line span.
    const lastShown = Math.min(end.line, start.line + 2);
    for (let line = start.line; line <= lastShown; line++) {
      const text = lineText(source, line).replace(/\t/g, " ");
      const from = line === start.line ? start.column - 1 : 0;
      const to =
        line === end.line ? Math.max(end.column, from + 1) : Math.max(text.length, from + 1);
      const number = String(line).padStart(gutter);
      lines.push(`${paint("1;34", `${number} |`)} ${text}`);
      lines.push(
        `${pad} ${paint("1;34", "|")} ${" ".repeat(from)}${paint(severityColor, "^".repeat(to - from))}`,
      );
    }
  } else if (span?.file) {
    lines.push(` --> ${span.file}`);
  }
  if (diagnostic.help) lines.push(`${pad(span, sources)} = help: ${diagnostic.help}`);
  return lines.join("\n");
}

function pad(span: Diagnostic["span"], sources: readonly SourceFile[]): string {
  const source = span && sources.find((s) => s.name === span.file);
  if (!span || !source) return "";
  return " ".repeat(String(positionOf(source, Math.max(span.start, span.end - 1)).line).length);
}
