/**
 * Object literal checks (docs/policy-language.md#values-and-types): no values of abstract types, entity ids are non-empty
 * strings, and `String{…}`, `Integer{…}`, `Boolean{…}` wrap a literal of their own kind.
 * Also the `matches!` warning, which rides on the same walk.
 */
import type { Item, ObjectLit } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { type CheckProblem, checkDiagnostic } from "./problems.js";
import { visitItem } from "./walk.js";

/**
 * Reports every malformed object literal in `items`.
 *
 * @example
 * // allow(_, "read", Team{1});
 * checkObjectLiterals(items, diagnostics); // entity ids are strings: write `Team{"1"}`
 */
export function checkObjectLiterals(items: readonly Item[], diagnostics: Diagnostic[]): void {
  for (const item of items) {
    visitItem(item, {
      term: (term) => {
        if (term.kind !== "object") return;
        const problem = objectLiteralProblem(term);
        if (problem) diagnostics.push(problem);
      },
    });
  }
}

/**
 * The problem with one object literal, or null.
 *
 * @example
 * objectLiteralProblem(parsedLiteral(`Team{1}`))?.code; // "P113"
 */
export function objectLiteralProblem(literal: ObjectLit): Diagnostic | null {
  const type = literal.type.name;
  const inner = literal.value;
  const written = inner.kind === "string" ? JSON.stringify(inner.value) : String(inner.value);
  const at = (problem: CheckProblem) => checkDiagnostic(problem, literal.span);
  switch (type) {
    case "Actor":
    case "Resource":
      return at({ code: "P112", kind: "abstract-value", type });
    case "String":
      return inner.kind === "string"
        ? null
        : at({ code: "P113", kind: "string-literal-needed", written });
    case "Integer":
      return inner.kind === "integer"
        ? null
        : at({ code: "P113", kind: "integer-literal-needed", written });
    case "Boolean":
      return inner.kind === "boolean"
        ? null
        : at({ code: "P113", kind: "boolean-literal-needed", written });
    default:
      if (inner.kind !== "string") {
        return at({ code: "P113", kind: "entity-id-not-string", type, id: String(inner.value) });
      }
      if (inner.value === "") return at({ code: "P113", kind: "entity-id-empty", type });
      return null;
  }
}

/**
 * Warns about each `matches!` (treated as `matches`, docs/policy-language.md#project-decisions, decision 6), unless `diagnostics`
 * already holds that warning (from the parser).
 *
 * @example
 * // p(x) if x matches! User;
 * warnMatchesBang(items, diagnostics); // W002 `matches!` is treated as `matches`
 */
export function warnMatchesBang(items: readonly Item[], diagnostics: Diagnostic[]): void {
  const known = new Set(
    diagnostics.filter((d) => d.code === "W002" && d.span).map((d) => d.span!.start),
  );
  for (const item of items) {
    visitItem(item, {
      matches: (atom) => {
        if (!atom.bang || known.has(atom.span.start)) return;
        diagnostics.push(checkDiagnostic({ code: "W002", kind: "matches-bang" }, atom.span));
      },
    });
  }
}
