/**
 * The refusals of the stages after checking (planning, lowering, printing, evaluation, the
 * store's iteration) as one coded union, and their messages in one table; also the verdict of
 * the checker or the bindings reader on a whole input, when a caller wants an exception (their
 * single diagnostics have tables of their own: src/check/problems.ts, src/bindings/problems.ts).
 * A throw site names the problem and its data; `describeProblem` is the only place that writes
 * the text. Each variant fixes its code (src/source/diagnostic.ts), so a code cannot drift from
 * its problem; only `invalid-policy` takes the code of the policy's first error.
 * docs/architecture.md#errors says how a problem becomes a `Diagnostic` with a span.
 */
import { type DiagnosticCode, tick } from "./diagnostic.js";

export type Problem =
  // ---- P601: the question itself is malformed (no span: it is not in the policy)
  | { readonly code: "P601"; readonly kind: "unconstrained-variable"; readonly variable: string }
  | { readonly code: "P601"; readonly kind: "missing-predicate" }
  | {
      readonly code: "P601";
      readonly kind: "unknown-predicate";
      readonly name: string;
      readonly arity: number;
      /** Arities the predicate has, for the hint. */
      readonly arities: readonly string[];
    }
  | { readonly code: "P601"; readonly kind: "empty-type"; readonly variable: string }
  | { readonly code: "P601"; readonly kind: "abstract-type"; readonly type: string }
  | { readonly code: "P601"; readonly kind: "empty-id"; readonly variable: string }
  | { readonly code: "P601"; readonly kind: "invalid-integer"; readonly id: string }
  | { readonly code: "P601"; readonly kind: "invalid-boolean"; readonly id: string }
  | { readonly code: "P601"; readonly kind: "incomplete-value"; readonly role: string }
  | { readonly code: "P601"; readonly kind: "empty-resource-type" }
  | {
      readonly code: "P601";
      readonly kind: "invalid-request";
      /** The field, dotted (`query.actor_id`); empty for the body itself. */
      readonly path: string;
      readonly reason: string;
    }
  | {
      readonly code: "P601";
      readonly kind: "unknown-dialect";
      readonly name: string;
      /** The allowed names as the message lists them. */
      readonly allowed: string;
    }
  | { readonly code: "P601"; readonly kind: "invalid-context-fact"; readonly reason: string }
  | { readonly code: "P601"; readonly kind: "context-fact-nul"; readonly predicate: string }
  // ---- P602: an answer that holds for unboundedly many values
  | {
      readonly code: "P602";
      readonly kind: "unbounded";
      /** `not`, or the operator or atom kind that reads the value. */
      readonly operator: string;
      readonly variable: string;
      /** The rule it occurs in, null for the question; absent when the evaluator cannot say. */
      readonly rule?: string | null;
    }
  | {
      readonly code: "P602";
      readonly kind: "unbounded-head";
      readonly rule: string;
      readonly variable: string;
    }
  | { readonly code: "P602"; readonly kind: "negation-cycle"; readonly predicate: string }
  | { readonly code: "P602"; readonly kind: "negation-through-itself" }
  // ---- P702: SQL needs a type nothing determines
  | {
      readonly code: "P702";
      readonly kind: "unknown-type";
      readonly variable: string;
      /** The rule, null for the question. */
      readonly rule: string | null;
    }
  | { readonly code: "P702"; readonly kind: "type-needed"; readonly position: number }
  | {
      readonly code: "P702";
      readonly kind: "type-combinations";
      readonly predicate: string;
      readonly combinations: number;
    }
  // ---- P703: a policy shape the SQL path cannot compile
  | { readonly code: "P703"; readonly kind: "nonlinear"; readonly predicate: string }
  | {
      readonly code: "P703";
      readonly kind: "nonlinear-mutual";
      readonly predicate: string;
      readonly members: readonly string[];
    }
  | {
      readonly code: "P703";
      readonly kind: "recursion-arguments";
      readonly predicate: string;
      readonly mutual: boolean;
    }
  | { readonly code: "P703"; readonly kind: "recursion-through-any"; readonly predicate: string }
  | { readonly code: "P703"; readonly kind: "call-reads-any"; readonly predicate: string }
  | {
      readonly code: "P703";
      readonly kind: "unwritable-value";
      readonly type: string;
      readonly id: string;
    }
  | {
      readonly code: "P703";
      readonly kind: "dialect-recursive-reads";
      readonly dialect: string;
      /**
       * Reads of recursive CTEs in SELECTs of a UNION (src/lower/union-reads.ts), and the most
       * of one of them.
       */
      readonly reads: number;
      readonly max: number;
      readonly predicate: string;
      readonly predicateReads: number;
    }
  | {
      readonly code: "P703";
      readonly kind: "dialect-step-reads-itself";
      readonly dialect: string;
      readonly predicate: string;
    }
  | { readonly code: "P703"; readonly kind: "store-recursion-any"; readonly predicate: string }
  // ---- P712: the store's iteration ran out of budget
  | {
      readonly code: "P712";
      readonly kind: "fixpoint-rounds";
      readonly predicates: readonly string[];
      readonly rounds: number;
    }
  | {
      readonly code: "P712";
      readonly kind: "fixpoint-rows";
      readonly predicates: readonly string[];
      readonly rows: number;
    }
  // ---- P713: a value has no literal in the dialect
  | LiteralProblem
  // ---- the fact store refuses a write before it starts (src/store/store.ts); `fact` is the
  // fact as written (`has_role(User{"ada"}, …)`)
  | { readonly code: "P507"; readonly kind: "fact-nul"; readonly fact: string }
  | {
      readonly code: "P508";
      readonly kind: "fact-arity";
      readonly fact: string;
      readonly limit: number;
    }
  | {
      readonly code: "P509";
      readonly kind: "pattern-id-without-type";
      readonly predicate: string;
      /** 1-based. */
      readonly position: number;
    }
  | {
      /** The fact checker's (P501–P506). */
      readonly code: DiagnosticCode;
      readonly kind: "invalid-fact";
      readonly fact: string;
      /** The fact checker's message. */
      readonly reason: string;
    }
  // ---- the front end's verdict on a whole input, when a caller wants an exception
  | {
      /** The first error's: the catalogue has no code for "invalid policy". */
      readonly code: DiagnosticCode;
      readonly kind: "invalid-policy";
      /** The first error's message; null without errors. */
      readonly first: string | null;
      readonly errors: number;
    }
  | {
      readonly code: "P701";
      readonly kind: "invalid-data-bindings";
      readonly first: string | null;
      readonly errors: number;
    };

/** Why a value has no literal (src/print): the text, an identifier or a type name. */
export type LiteralProblem =
  | {
      readonly code: "P713";
      readonly kind: "literal-nul";
      readonly what: "string" | "identifier";
      /** What cannot hold it (`PostgreSQL text`); null when the message need not say. */
      readonly holder: string | null;
      readonly from?: ValueFrom;
    }
  | {
      readonly code: "P713";
      readonly kind: "literal-surrogate";
      readonly what: "string" | "identifier";
      readonly from?: ValueFrom;
    }
  | { readonly code: "P713"; readonly kind: "empty-identifier" }
  | {
      readonly code: "P713";
      readonly kind: "long-identifier";
      readonly name: string;
      readonly limit: number;
      readonly unit: "bytes" | "characters";
      readonly engine: string;
    }
  | {
      readonly code: "P713";
      readonly kind: "literal-integer";
      readonly id: string;
      readonly from?: ValueFrom;
    }
  | {
      readonly code: "P713";
      readonly kind: "literal-boolean";
      readonly id: string;
      readonly from?: ValueFrom;
    }
  | { readonly code: "P713"; readonly kind: "invalid-sql-type-name"; readonly sqlType: string };

/**
 * Set when the value is one of the request's (a question's id, the clock a builtin reads):
 * the refusal then has no place in the policy, and its message says where the value came from.
 * A constant of the policy has a span instead (src/print/value-refusal.ts).
 */
type ValueFrom = "request";

export type ProblemKind = Problem["kind"];

/** The end of a literal refusal's message for a value of the request. */
function fromText(from: ValueFrom | undefined): string {
  return from === "request" ? ", in a value of the request" : "";
}

/** How the refusals of non-linear recursion end: where it is answered instead. */
const ITERATED = "; the central service answers it by iteration (docs/fixpoint.md)";

const CTE_CANNOT_FOLLOW =
  "its recursive calls use arguments in ways one recursive CTE cannot follow";

/**
 * The one-line message of a problem: lowercase, no trailing period, names in backticks.
 *
 *   describeProblem({ code: "P703", kind: "nonlinear", predicate: "path" })
 *   // "cannot compile a rule for `path` that calls `path` recursively more than once in …"
 */
export function describeProblem(problem: Problem): string {
  switch (problem.kind) {
    case "unconstrained-variable":
      return `variable ${tick(problem.variable)} has no constraint`;
    case "missing-predicate":
      return "a query needs a predicate name";
    case "unknown-predicate": {
      const known = [...new Set(problem.arities)].sort();
      const hint = known.length
        ? `; ${tick(problem.name)} takes ${known.join(" or ")} arguments`
        : "";
      return `unknown predicate ${tick(`${problem.name}/${problem.arity}`)}${hint}`;
    }
    case "empty-type":
      return `variable ${tick(problem.variable)} needs a non-empty type`;
    case "abstract-type":
      return `query variables need a concrete type, not ${tick(problem.type)}`;
    case "empty-id":
      return `variable ${tick(problem.variable)} has an empty id`;
    case "invalid-integer":
      return `${tick("Integer")} id ${tick(problem.id)} is not a 64-bit integer`;
    case "invalid-boolean":
      return `${tick("Boolean")} id ${tick(problem.id)} is not \`true\` or \`false\``;
    case "incomplete-value":
      return `the ${problem.role} needs a non-empty type and id`;
    case "empty-resource-type":
      return "the resource type must be non-empty";
    case "invalid-request":
      return `invalid request: ${problem.path ? `${tick(problem.path)}: ` : ""}${problem.reason}`;
    case "unknown-dialect":
      return `unknown dialect ${tick(problem.name)}; use one of ${problem.allowed}`;
    case "invalid-context-fact":
      return `context fact: ${problem.reason}`;
    case "context-fact-nul":
      return `context fact: ${tick(problem.predicate)} has an argument with a NUL character, which PostgreSQL text cannot hold`;
    case "unbounded":
      return `cannot evaluate ${tick(problem.operator)} over an unbounded value of ${tick(problem.variable)}${ruleContext(problem.rule)}`;
    case "unbounded-head":
      return `cannot evaluate a rule for ${tick(problem.rule)} over an unbounded value of ${tick(problem.variable)}, which appears more than once in its head`;
    case "negation-cycle":
      return `cannot evaluate \`not\` over ${tick(problem.predicate)}: negation cycle`;
    case "negation-through-itself":
      return "cannot evaluate `not` over a predicate that depends on itself through it";
    case "unknown-type":
      return `cannot infer the type of ${tick(problem.variable)}${ruleContext(problem.rule)}; add \`${problem.variable} matches T\``;
    case "type-needed":
      return `argument ${problem.position + 1} needs a type`;
    case "type-combinations":
      return `cannot infer the argument types of a call to ${tick(problem.predicate)} (${problem.combinations} combinations); add \`x matches T\` for its variables`;
    case "nonlinear":
      return `cannot compile a rule for ${tick(problem.predicate)} that calls ${tick(problem.predicate)} recursively more than once in one conjunction${ITERATED}`;
    case "nonlinear-mutual":
      return `cannot compile a rule for ${tick(problem.predicate)} that calls the mutual recursion of ${problem.members.map(tick).join(", ")} more than once in one conjunction${ITERATED}`;
    case "recursion-arguments":
      return `cannot compile the ${problem.mutual ? "mutual " : ""}recursion of ${tick(problem.predicate)}: ${CTE_CANNOT_FOLLOW}`;
    case "recursion-through-any":
      return `cannot compile the recursion of ${tick(problem.predicate)} through a rule that holds for every value of an argument`;
    case "call-reads-any":
      return `cannot compile a call of ${tick(problem.predicate)} whose answer holds for every value of an argument that other conditions use`;
    case "unwritable-value":
      return `cannot write the ${tick(problem.type)} value ${tick(problem.id)} in SQL for its column type`;
    case "dialect-recursive-reads":
      return (
        `the ${problem.dialect} dialect cannot run this question: it reads recursive relations ` +
        `${problem.reads} times in SELECTs of a UNION (${problem.predicateReads} of them the recursion of ` +
        `${tick(problem.predicate)}), and MariaDB plans more than ${problem.max} such reads in ` +
        "exponential time and memory (docs/dialects.md)"
      );
    case "dialect-step-reads-itself":
      return (
        `the ${problem.dialect} dialect cannot express a step of the recursion of ` +
        `${tick(problem.predicate)} whose negation or list membership reads the recursive ` +
        "relation itself"
      );
    case "store-recursion-any":
      return `cannot compute the recursion of ${tick(problem.predicate)} in the store: a rule holds for every value of an argument`;
    case "fixpoint-rounds":
      return `the recursion of ${problem.predicates.map(tick).join(", ")} did not reach its fixpoint within ${problem.rounds} rounds`;
    case "fixpoint-rows":
      return `the recursion of ${problem.predicates.map(tick).join(", ")} holds more than ${problem.rows} rows`;
    case "literal-nul":
      return `${problem.what} contains U+0000${problem.holder === null ? "" : ` (NUL), which ${problem.holder} cannot hold`}${fromText(problem.from)}`;
    case "literal-surrogate":
      return `${problem.what} contains an unpaired UTF-16 surrogate${fromText(problem.from)}`;
    case "empty-identifier":
      return "identifier is empty";
    case "long-identifier":
      return `identifier ${tick(problem.name)} is longer than ${problem.limit} ${problem.unit}, the ${problem.engine} limit`;
    case "literal-integer":
      return `${tick(problem.id)} is not a 64-bit integer${fromText(problem.from)}`;
    case "literal-boolean":
      return `${tick(problem.id)} is not a boolean${fromText(problem.from)}`;
    case "invalid-sql-type-name":
      return `invalid SQL type name ${tick(problem.sqlType)}`;
    case "fact-nul":
      return `facts cannot contain NUL characters: ${tick(problem.fact)}`;
    case "fact-arity":
      return `facts with more than ${problem.limit} arguments are not supported: ${tick(problem.fact)}`;
    case "pattern-id-without-type":
      return `argument ${problem.position} of a ${tick(problem.predicate)} delete pattern has an id but no type`;
    case "invalid-fact":
      return `${problem.reason}: ${tick(problem.fact)}`;
    case "invalid-policy":
    case "invalid-data-bindings": {
      const none = problem.kind === "invalid-policy" ? "invalid policy" : "invalid data bindings";
      if (problem.first === null) return none;
      return `${problem.first} (${problem.errors} ${problem.errors === 1 ? "error" : "errors"})`;
    }
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

/** ` in a rule for `has_role``, ` in the query`, or nothing when the rule is not known. */
function ruleContext(rule: string | null | undefined): string {
  if (rule === undefined) return "";
  return rule === null ? " in the query" : ` in a rule for ${tick(rule)}`;
}
