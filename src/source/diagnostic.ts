import type { Span } from "./source.js";

/**
 * Stable diagnostic codes. Codes never change meaning once released; new ones are appended.
 * P0xx lexing and syntax, P1xx declarations and blocks, P2xx shorthand, P3xx rules,
 * P4xx tests, P5xx facts, P6xx queries and evaluation, P7xx data bindings and SQL, W warnings.
 */
export type DiagnosticCode =
  // lexing and syntax
  | "P001" // unexpected character
  | "P002" // unterminated string literal
  | "P003" // line break inside string literal
  | "P004" // float literals are not supported
  | "P005" // integer literal does not fit in 64 bits
  | "P006" // unexpected token (syntax error)
  | "P007" // unexpected end of input
  | "P008" // unsupported operator or construct (==, isa, dot lookup, ...)
  | "P009" // nesting too deep
  | "P010" // name ending in `::`
  // declarations and blocks
  | "P101" // unknown declaration key
  | "P102" // declaration shape
  | "P103" // relation has no type
  | "P104" // key declared more than once in a block
  | "P105" // name declared more than once across roles, permissions, relations
  | "P106" // relation refers to undeclared type
  | "P107" // only one global block
  | "P108" // global may declare only roles and permissions
  | "P109" // extends undeclared type
  | "P110" // cyclic extends
  | "P111" // type declared twice with different declarations
  | "P112" // cannot create a value of abstract type
  | "P113" // entity ids are strings / wrong literal kind in an object literal
  // shorthand
  | "P201" // undeclared term
  | "P202" // relation cannot be the head of a shorthand rule
  | "P203" // not a relation of the block's type
  | "P204" // term not declared in the related type
  | "P205" // not declared in the global block
  | "P206" // `on` cannot be used in the global block
  // rules
  | "P301" // negation cycle
  | "P302" // unsafe variable under not
  | "P303" // `in` needs a literal list
  | "P304" // `matches` needs a variable on its left
  | "P305" // `type` declarations disagree on arity
  | "P306" // used with a different arity than its `type` declarations
  | "P307" // a lone term is not a condition
  // tests
  | "P401" // unknown fixture
  | "P402" // duplicate test name
  | "P403" // duplicate fixture name
  | "P404" // assertion has more than one variable
  | "P405" // assert_not cannot be combined with iff
  | "P406" // setup facts must be ground
  | "P407" // iff without a variable
  | "P408" // iff condition mentions another variable
  // facts
  | "P501" // unknown predicate
  | "P502" // argument type mismatch
  | "P503" // fact arguments need a non-empty type and id
  | "P504" // fact argument exceeds 384 bytes
  | "P505" // Integer id is not a 64-bit integer
  | "P506" // Boolean id is not true or false
  | "P507" // a fact to store holds NUL
  | "P508" // a fact to store has more arguments than the store holds
  | "P509" // a delete pattern gives an id without a type
  // queries and evaluation
  | "P601" // invalid query
  | "P602" // cannot evaluate over an unbounded value
  // data bindings and SQL
  | "P701" // invalid data bindings
  | "P702" // cannot infer a type for SQL
  | "P703" // policy shape the SQL path cannot compile
  | "P704" // data bindings are not valid YAML
  | "P705" // unknown key in data bindings
  | "P706" // invalid fact signature in data bindings
  | "P707" // no longer reported: a binding for an undeclared type is W010
  | "P708" // binding query's column count differs from its signature
  | "P709" // the database rejects a binding query or cannot be read
  | "P710" // binding column type does not fit the slot's type or `sql_types`
  | "P711" // a `keys` entry is not unique or names an unknown table or column
  | "P712" // a recursion computed in the store exceeded its budget of rounds or rows
  | "P713" // a value or name has no literal in the dialect (NUL, bad integer, long identifier)
  // warnings
  | "W001" // undeclared type treated as an entity type
  | "W002" // matches! treated as matches
  | "W003" // rule flag ignored
  | "W004" // binding that no rule reads (unused relation, role or attribute name)
  | "W005" // fact the policy reads that no binding (or central fact) produces
  | "W006" // `sql_types` / `keys` entry that nothing uses
  | "W007" // key unique in the data today but not enforced by a constraint
  | "W008" // binding column type that may not compare with the slot's values
  | "W009" // test assertion names an action, permission or role its resource does not declare
  | "W010"; // binding for a type the policy does not declare (ignored)

export type Severity = "error" | "warning";

/** A problem found in user input: data, never an exception. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  /** One line, lowercase, no trailing period, names in backticks. */
  readonly message: string;
  readonly span?: Span;
  readonly help?: string;
}

export function error(
  code: DiagnosticCode,
  message: string,
  span?: Span,
  help?: string,
): Diagnostic {
  return { code, severity: "error", message, ...(span && { span }), ...(help && { help }) };
}

export function warning(
  code: DiagnosticCode,
  message: string,
  span?: Span,
  help?: string,
): Diagnostic {
  return { code, severity: "warning", message, ...(span && { span }), ...(help && { help }) };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** Wraps `name` in backticks, the house style for user input inside messages. */
export function tick(name: string | number | bigint): string {
  return `\`${name}\``;
}
