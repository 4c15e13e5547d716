/**
 * What reading and checking data bindings reports, as one coded union, and its messages in
 * one table: the reader (`parse.ts`, `signature.ts`, `query.ts`), the checks against the
 * policy (`check.ts`) and against a database (`verify.ts`) name the problem and its data;
 * `describeBindingsProblem` is the only place that writes the text and its hint. Why the
 * checker and the back end have tables of their own is in docs/architecture.md#errors.
 */
import { type Diagnostic, error, tick, warning } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import { type DatabaseProblem, describeDatabaseProblem } from "./database-problems.js";

/** Why a binding query cannot be pasted; completes "query of binding `sig` …". */
export type QueryDefect =
  | { readonly kind: "unterminated"; readonly what: string }
  | { readonly kind: "empty" }
  | { readonly kind: "several-statements" }
  | {
      readonly kind: "not-select";
      /** The first word, null when there is none. */
      readonly found: string | null;
    }
  | { readonly kind: "unbalanced" }
  | { readonly kind: "parameter"; readonly parameter: string };

/** A fact signature that does not parse (P706); `signature` is the text as written. */
export type SignatureProblem =
  | { readonly code: "P706"; readonly kind: "invalid-signature"; readonly signature: string }
  | { readonly code: "P706"; readonly kind: "signature-missing-type"; readonly signature: string }
  | {
      readonly code: "P706";
      readonly kind: "signature-invalid-type";
      readonly type: string;
      readonly signature: string;
    }
  | {
      readonly code: "P706";
      readonly kind: "signature-abstract-type";
      readonly type: string;
      readonly signature: string;
    }
  | { readonly code: "P706"; readonly kind: "signature-nul"; readonly signature: string }
  | {
      readonly code: "P706";
      readonly kind: "signature-invalid-integer";
      readonly value: string;
      readonly signature: string;
    }
  | {
      readonly code: "P706";
      readonly kind: "signature-invalid-boolean";
      readonly value: string;
      readonly signature: string;
    }
  | {
      readonly code: "P706";
      readonly kind: "signature-empty-id";
      readonly type: string;
      readonly signature: string;
    };

export type BindingsProblem =
  | SignatureProblem
  // ---- the document (P701, P704, P705)
  | { readonly code: "P704"; readonly kind: "invalid-yaml"; readonly reason: string }
  | { readonly code: "P705"; readonly kind: "unknown-section"; readonly key: string }
  | {
      readonly code: "P705";
      readonly kind: "unknown-binding-key";
      readonly key: string;
      readonly signature: string;
    }
  | { readonly code: "P701"; readonly kind: "document-not-mapping" }
  | {
      readonly code: "P701";
      readonly kind: "section-not-mapping";
      readonly section: "facts" | "sql_types" | "keys";
    }
  | { readonly code: "P701"; readonly kind: "duplicate-section"; readonly section: string }
  | { readonly code: "P701"; readonly kind: "binding-without-query"; readonly signature: string }
  | { readonly code: "P701"; readonly kind: "binding-not-mapping"; readonly signature: string }
  | { readonly code: "P701"; readonly kind: "query-not-string"; readonly signature: string }
  | { readonly code: "P701"; readonly kind: "duplicate-binding"; readonly signature: string }
  | {
      readonly code: "P701";
      readonly kind: "invalid-query";
      readonly signature: string;
      readonly defect: QueryDefect;
    }
  | { readonly code: "P701"; readonly kind: "sql-type-not-string"; readonly type: string }
  | { readonly code: "P701"; readonly kind: "invalid-type-name"; readonly type: string }
  | {
      readonly code: "P701";
      readonly kind: "sql-type-for-builtin";
      readonly type: string;
      readonly abstract: boolean;
    }
  | { readonly code: "P701"; readonly kind: "duplicate-sql-type"; readonly type: string }
  | {
      readonly code: "P701";
      readonly kind: "invalid-sql-type";
      readonly sqlType: string;
      readonly type: string;
    }
  | { readonly code: "P701"; readonly kind: "key-not-columns"; readonly table: string }
  | { readonly code: "P701"; readonly kind: "invalid-key-table"; readonly table: string }
  | { readonly code: "P701"; readonly kind: "duplicate-key-table"; readonly table: string }
  | {
      readonly code: "P701";
      readonly kind: "invalid-key-column";
      readonly column: string;
      readonly table: string;
    }
  // ---- against the policy
  | {
      readonly code: "W010";
      readonly kind: "undeclared-binding-type";
      readonly type: string;
      readonly signature: string;
      /** `; did you mean …?` or "" (src/source/suggest.ts). */
      readonly suggestion: string;
    }
  | {
      readonly code: "P708";
      readonly kind: "column-count";
      readonly signature: string;
      readonly columns: number;
      readonly slots: number;
      /** Counted by the database rather than in the query's text. */
      readonly database: boolean;
    }
  | {
      readonly code: "W004";
      readonly kind: "unread-predicate";
      readonly predicate: string;
      readonly suggestion: string;
    }
  | {
      readonly code: "W004";
      readonly kind: "unread-arity";
      readonly predicate: string;
      /** The arities rules read it with, ascending. */
      readonly arities: readonly number[];
      readonly signature: string;
      readonly arity: number;
    }
  | {
      readonly code: "W004";
      readonly kind: "unread-constant";
      readonly noun: "role" | "relation" | "permission" | "value";
      readonly value: string;
      readonly signature: string;
      readonly suggestion: string;
    }
  | {
      readonly code: "W004";
      readonly kind: "unread-types";
      readonly predicate: string;
      readonly signature: string;
    }
  | {
      readonly code: "W005";
      readonly kind: "unproduced-fact";
      /** The fact pattern, as `has_role(User:_, _, Org:_)`. */
      readonly fact: string;
      /** Central facts were given and do not produce it either. */
      readonly central: boolean;
      /** `file:line:col` of the rule that reads it. */
      readonly rule: string;
    }
  | {
      readonly code: "W006";
      readonly kind: "unknown-sql-type";
      readonly type: string;
      readonly suggestion: string;
    }
  | { readonly code: "W006"; readonly kind: "unused-key"; readonly table: string }
  | DatabaseProblem;

export type BindingsProblemKind = BindingsProblem["kind"];

/** The hint of a binding the policy cannot use (W004, W010). */
const IGNORED = "the binding is ignored, as Oso ignores bindings no rule reads";

/** The message and hint of a problem. */
export interface Described {
  /** One line, lowercase, no trailing period, names in backticks. */
  readonly message: string;
  readonly help?: string;
}

/**
 * The message of a bindings problem and, for some, a hint.
 *
 *   describeBindingsProblem({ code: "P701", kind: "duplicate-binding", signature: "is_open(Doc:_)" })
 *   // { message: "duplicate binding `is_open(Doc:_)`" }
 */
export function describeBindingsProblem(problem: BindingsProblem): Described {
  switch (problem.kind) {
    case "invalid-signature":
    case "signature-missing-type":
    case "signature-invalid-type":
    case "signature-abstract-type":
    case "signature-nul":
    case "signature-invalid-integer":
    case "signature-invalid-boolean":
    case "signature-empty-id":
      return { message: describeSignatureProblem(problem) };
    case "invalid-yaml":
      return { message: `invalid YAML in data bindings: ${problem.reason}` };
    case "unknown-section":
      return {
        message: `unknown key ${tick(problem.key)} in data bindings; expected \`facts\`, \`sql_types\` or \`keys\``,
      };
    case "unknown-binding-key":
      return {
        message: `unknown key ${tick(problem.key)} in binding ${tick(problem.signature)}; expected \`query\``,
      };
    case "document-not-mapping":
      return {
        message: "data bindings must be a mapping with keys `facts`, `sql_types` and `keys`",
      };
    case "section-not-mapping": {
      const what =
        problem.section === "facts"
          ? "fact signatures to queries"
          : problem.section === "keys"
            ? "table names to key columns"
            : "type names to SQL type names";
      return { message: `${tick(problem.section)} must be a mapping from ${what}` };
    }
    case "duplicate-section":
      return { message: `duplicate key ${tick(problem.section)} in data bindings` };
    case "binding-without-query":
      return { message: `binding ${tick(problem.signature)} has no query` };
    case "binding-not-mapping":
      return { message: `binding ${tick(problem.signature)} must be a mapping with a \`query\`` };
    case "query-not-string":
      return { message: `query of binding ${tick(problem.signature)} must be a string` };
    case "duplicate-binding":
      return { message: `duplicate binding ${tick(problem.signature)}` };
    case "invalid-query":
      return {
        message: `query of binding ${tick(problem.signature)} ${describeQueryDefect(problem.defect)}`,
      };
    case "sql-type-not-string":
      return { message: `\`sql_types\` entry ${tick(problem.type)} must be a string` };
    case "invalid-type-name":
      return { message: `invalid type name ${tick(problem.type)} in \`sql_types\`` };
    case "sql-type-for-builtin":
      return {
        message: `\`sql_types\` cannot give an SQL type to ${problem.abstract ? "abstract" : "primitive"} type ${tick(problem.type)}; list entity types`,
      };
    case "duplicate-sql-type":
      return { message: `duplicate type ${tick(problem.type)} in \`sql_types\`` };
    case "invalid-sql-type":
      return {
        message: `invalid SQL type ${tick(problem.sqlType)} for ${tick(problem.type)} in \`sql_types\`; expected a type name such as \`integer\`, \`uuid\` or \`varchar(64)\``,
      };
    case "key-not-columns":
      return {
        message: `\`keys\` entry ${tick(problem.table)} must be a column name or a list of them`,
      };
    case "invalid-key-table":
      return {
        message: `invalid table name ${tick(problem.table)} in \`keys\`; expected \`table\` or \`schema.table\``,
      };
    case "duplicate-key-table":
      return { message: `duplicate table ${tick(problem.table)} in \`keys\`` };
    case "invalid-key-column":
      return {
        message: `invalid column name ${tick(problem.column)} for ${tick(problem.table)} in \`keys\``,
      };
    case "undeclared-binding-type":
      return {
        message: `type ${tick(problem.type)} in binding ${tick(problem.signature)} is not declared by the policy${problem.suggestion}`,
        help: IGNORED,
      };
    case "column-count":
      return problem.database
        ? {
            message: `query of binding ${tick(problem.signature)} returns ${plural(problem.columns, "column")} in the database, but its signature has ${plural(problem.slots, "`_` slot")}`,
          }
        : {
            message: `query of binding ${tick(problem.signature)} returns ${plural(problem.columns, "column")}, but its signature has ${plural(problem.slots, "`_` slot")}`,
            help: "a binding query returns one column per `_` of its signature, in order; constants such as `String:owner` take no column",
          };
    case "unread-predicate":
      return {
        message: `no rule of the policy reads ${tick(problem.predicate)}${problem.suggestion}`,
        help: IGNORED,
      };
    case "unread-arity": {
      const one = problem.arities.length === 1 && problem.arities[0] === 1;
      return {
        message: `rules read ${tick(problem.predicate)} with ${problem.arities.join(" or ")} ${one ? "argument" : "arguments"}, but binding ${tick(problem.signature)} has ${problem.arity}`,
        help: IGNORED,
      };
    }
    case "unread-constant":
      return {
        message: `no rule reads ${problem.noun} ${tick(problem.value)} of binding ${tick(problem.signature)}${problem.suggestion}`,
        help: IGNORED,
      };
    case "unread-types":
      return {
        message: `no rule reads ${tick(problem.predicate)} with the types of binding ${tick(problem.signature)}`,
        help: IGNORED,
      };
    case "unproduced-fact": {
      const fact = tick(problem.fact);
      return {
        message: problem.central
          ? `neither a binding nor a central fact produces ${fact}, which the policy reads`
          : `no binding produces ${fact}, which the policy reads; unless a central fact does, rules that need it never hold`,
        help: `read by the rule at ${problem.rule}`,
      };
    }
    case "unknown-sql-type":
      return {
        message: `\`sql_types\` names type ${tick(problem.type)}, which the policy does not declare${problem.suggestion}`,
        help: "the entry is ignored",
      };
    case "unused-key":
      return {
        message: `no binding reads table ${tick(problem.table)} with a plain scan (\`SELECT … FROM table [WHERE …]\`), so its key is not used`,
      };
    case "query-rejected":
    case "computed-column":
    case "column-not-primitive":
    case "column-may-not-compare":
    case "untyped-column":
    case "sql-type-mismatch":
    case "key-table-missing":
    case "key-columns-missing":
    case "key-not-unique":
    case "key-not-enforced":
      return describeDatabaseProblem(problem);
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

/** The message of a fact signature that does not parse (P706). */
function describeSignatureProblem(problem: SignatureProblem): string {
  switch (problem.kind) {
    case "invalid-signature":
      return `invalid fact signature ${tick(problem.signature)}`;
    case "signature-missing-type":
      return `missing type before \`:\` ${inSignature(problem.signature)}`;
    case "signature-invalid-type":
      return `invalid type name ${tick(problem.type)} ${inSignature(problem.signature)}`;
    case "signature-abstract-type":
      return `abstract type ${tick(problem.type)} ${inSignature(problem.signature)}; bindings need a concrete type`;
    case "signature-nul":
      return `constant ${inSignature(problem.signature)} contains U+0000 (NUL)`;
    case "signature-invalid-integer":
      return `invalid Integer constant ${tick(problem.value)} ${inSignature(problem.signature)}`;
    case "signature-invalid-boolean":
      return `invalid Boolean constant ${tick(problem.value)} ${inSignature(problem.signature)}; expected \`true\` or \`false\``;
    case "signature-empty-id":
      return `empty ${tick(problem.type)} id ${inSignature(problem.signature)}`;
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

/**
 * The rest of "query of binding `sig` …" for a query that cannot be pasted.
 *
 *   describeQueryDefect({ kind: "empty" }) // "is empty"
 */
export function describeQueryDefect(defect: QueryDefect): string {
  switch (defect.kind) {
    case "unterminated":
      return `has an unterminated ${defect.what}`;
    case "empty":
      return "is empty";
    case "several-statements":
      return "must be one statement; found `;` before its end";
    case "not-select": {
      const found = defect.found === null ? "" : `; found ${tick(defect.found)}`;
      return `must be a single SELECT-like statement starting with SELECT, WITH, VALUES or TABLE${found}`;
    }
    case "unbalanced":
      return "has unbalanced parentheses";
    case "parameter":
      return `uses parameter ${tick(defect.parameter)}; binding queries cannot take parameters`;
    default: {
      const _never: never = defect;
      return _never;
    }
  }
}

function inSignature(signature: string): string {
  return `in fact signature ${tick(signature)}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/**
 * The diagnostic of a bindings problem at `span` (severity from the code: W is a warning).
 *
 *   bindingsDiagnostic({ code: "P701", kind: "duplicate-binding", signature: "is_open(Doc:_)" }, span)
 */
export function bindingsDiagnostic(problem: BindingsProblem, span?: Span): Diagnostic {
  const { message, help } = describeBindingsProblem(problem);
  const make = problem.code.startsWith("W") ? warning : error;
  return make(problem.code, message, span, help);
}
