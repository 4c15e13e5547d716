/**
 * What reading a policy's text reports (lexing, syntax, the atoms the grammar accepts but
 * Polar does not), as one coded union, and its messages in one table. The lexer and the
 * parser name the problem and its data; `describeParseProblem` is the only place that
 * writes the text. Why each stage has its own table is in docs/architecture.md#errors.
 */
import { type Diagnostic, error, tick } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import { excerpt } from "./literals.js";

export type ParseProblem =
  | { readonly code: "P001"; readonly kind: "unexpected-character"; readonly char: string }
  | { readonly code: "P002"; readonly kind: "unterminated-string" }
  | { readonly code: "P003"; readonly kind: "line-break-in-string" }
  | { readonly code: "P004"; readonly kind: "float-literal"; readonly image: string }
  | { readonly code: "P005"; readonly kind: "integer-too-large"; readonly image: string }
  | {
      readonly code: "P006";
      readonly kind: "unexpected-token";
      readonly image: string;
      /** What would have been accepted, phrased by src/polar/parser-errors.ts; null: nothing specific. */
      readonly expected: string | null;
    }
  | { readonly code: "P006"; readonly kind: "missing-semicolon"; readonly after: string }
  | { readonly code: "P007"; readonly kind: "unexpected-end"; readonly expected: string | null }
  | { readonly code: "P008"; readonly kind: "double-equals" }
  | { readonly code: "P008"; readonly kind: "isa" }
  | {
      readonly code: "P008";
      readonly kind: "attribute-lookup";
      readonly object: string;
      readonly field: string;
    }
  | { readonly code: "P009"; readonly kind: "nesting-too-deep"; readonly levels: number }
  | { readonly code: "P009"; readonly kind: "item-too-deep" }
  | { readonly code: "P010"; readonly kind: "dangling-colons"; readonly name: string }
  | { readonly code: "P303"; readonly kind: "in-needs-list" }
  | { readonly code: "P304"; readonly kind: "matches-needs-variable" }
  | { readonly code: "P307"; readonly kind: "lone-term"; readonly text: string };

export type ParseProblemKind = ParseProblem["kind"];

/**
 * The one-line message of a parse problem; long source text is shortened (`excerpt`).
 *
 *   describeParseProblem({ code: "P008", kind: "double-equals" }) // "`==` is not supported; use `=`"
 */
export function describeParseProblem(problem: ParseProblem): string {
  switch (problem.kind) {
    case "unexpected-character":
      return `unexpected character ${tick(problem.char)}`;
    case "unterminated-string":
      return "unterminated string literal";
    case "line-break-in-string":
      return "line break inside string literal";
    case "float-literal":
      return `float literals are not supported: ${tick(excerpt(problem.image))}`;
    case "integer-too-large":
      return `integer literal ${tick(excerpt(problem.image))} does not fit in 64 bits`;
    case "unexpected-token":
      return `unexpected ${tick(excerpt(problem.image))}${expecting(problem.expected)}`;
    case "missing-semicolon":
      return `missing \`;\` after ${tick(excerpt(problem.after))}`;
    case "unexpected-end":
      return `unexpected end of input${expecting(problem.expected)}`;
    case "double-equals":
      return "`==` is not supported; use `=`";
    case "isa":
      return "`isa` is not supported; use `matches`";
    case "attribute-lookup": {
      const [name, field] = [excerpt(problem.object), excerpt(problem.field)];
      return (
        `attribute lookups like ${tick(`${name}.${field}`)} are not supported; ` +
        `use a fact such as ${tick(`has_${field}(${name}, ${field})`)}`
      );
    }
    case "nesting-too-deep":
      return `nesting deeper than ${problem.levels} levels`;
    case "item-too-deep":
      return "this item is nested too deeply to parse";
    case "dangling-colons":
      return `name ${tick(excerpt(problem.name))} cannot end in \`::\``;
    case "in-needs-list":
      return "`in` needs a literal list";
    case "matches-needs-variable":
      return "`matches` needs a variable on its left";
    case "lone-term":
      return `${tick(excerpt(problem.text))} alone is not a condition`;
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

function expecting(expected: string | null): string {
  return expected ? `; expected ${expected}` : "";
}

/** The error diagnostic of a parse problem at `span`. */
export function parseDiagnostic(problem: ParseProblem, span: Span): Diagnostic {
  return error(problem.code, describeParseProblem(problem), span);
}
