/**
 * What the policy checker reports, as one coded union, and its messages in one table. A check
 * names the problem and its data; `describeCheckProblem` is the only place that writes the
 * text, and `checkDiagnostic` makes the `Diagnostic` (severity from the code: W is a warning).
 * The stages after checking have their own table, src/source/problems.ts; why there are
 * several is in docs/architecture.md#errors.
 */
import { builtinSpelling } from "../builtins/registry.js";
import { type Diagnostic, error, tick, warning } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";

export type CheckProblem =
  // ---- declarations and blocks
  | {
      readonly code: "P101";
      readonly kind: "unknown-declaration";
      readonly key: string;
      readonly block: string;
    }
  | {
      readonly code: "P102";
      readonly kind: "declaration-not-list";
      readonly key: string;
      readonly block: string;
    }
  | { readonly code: "P102"; readonly kind: "relations-not-dictionary"; readonly block: string }
  | {
      readonly code: "P103";
      readonly kind: "relation-without-type";
      readonly relation: string;
      readonly block: string;
    }
  | {
      readonly code: "P104";
      readonly kind: "key-declared-twice";
      readonly key: string;
      readonly block: string;
    }
  | {
      readonly code: "P105";
      readonly kind: "term-declared-twice";
      readonly term: string;
      readonly block: string;
    }
  | {
      readonly code: "P106";
      readonly kind: "relation-undeclared-type";
      readonly relation: string;
      readonly block: string;
      readonly type: string;
    }
  | {
      readonly code: "P106";
      readonly kind: "relation-not-entity";
      readonly relation: string;
      readonly block: string;
      readonly type: string;
    }
  | { readonly code: "P107"; readonly kind: "global-twice" }
  | { readonly code: "P108"; readonly kind: "global-relations" }
  | {
      readonly code: "P109";
      readonly kind: "extends-undeclared";
      readonly type: string;
      readonly target: string;
    }
  | {
      readonly code: "P109";
      readonly kind: "extends-primitive";
      readonly type: string;
      readonly target: string;
    }
  | { readonly code: "P110"; readonly kind: "cyclic-extends"; readonly path: readonly string[] }
  | {
      readonly code: "P111";
      readonly kind: "reserved-type-name";
      readonly type: string;
      /** `global` itself rather than a built-in type. */
      readonly global: boolean;
    }
  | { readonly code: "P111"; readonly kind: "type-declared-twice"; readonly type: string }
  | { readonly code: "P112"; readonly kind: "abstract-value"; readonly type: string }
  | { readonly code: "P113"; readonly kind: "string-literal-needed"; readonly written: string }
  | { readonly code: "P113"; readonly kind: "integer-literal-needed"; readonly written: string }
  | { readonly code: "P113"; readonly kind: "boolean-literal-needed"; readonly written: string }
  | {
      readonly code: "P113";
      readonly kind: "entity-id-not-string";
      readonly type: string;
      /** The id as written, which the message quotes. */
      readonly id: string;
    }
  | { readonly code: "P113"; readonly kind: "entity-id-empty"; readonly type: string }
  // ---- shorthand rules
  | {
      readonly code: "P201";
      readonly kind: "undeclared-term";
      readonly term: string;
      readonly block: string;
      readonly global: boolean;
    }
  | {
      readonly code: "P202";
      readonly kind: "relation-as-head";
      readonly relation: string;
      readonly block: string;
    }
  | {
      readonly code: "P203";
      readonly kind: "not-a-relation";
      readonly relation: string;
      readonly block: string;
      /** Written as a variable (`on parent`) where the block has a relation of that name. */
      readonly unquoted: boolean;
    }
  | {
      readonly code: "P204";
      readonly kind: "not-in-related-type";
      readonly term: string;
      readonly type: string;
      readonly relation: string;
      readonly block: string;
    }
  | { readonly code: "P205"; readonly kind: "not-in-global"; readonly term: string }
  | { readonly code: "P206"; readonly kind: "on-in-global" }
  // ---- rules
  | { readonly code: "P301"; readonly kind: "negation-cycle"; readonly path: readonly string[] }
  | {
      readonly code: "P302";
      readonly kind: "only-under-not";
      readonly variable: string;
      readonly rule: string;
    }
  | {
      readonly code: "P305";
      readonly kind: "type-arities-disagree";
      readonly predicate: string;
      readonly first: number;
      readonly other: number;
    }
  | {
      readonly code: "P306";
      readonly kind: "arity-not-declared";
      readonly predicate: string;
      readonly arity: number;
      /** The declared arity. */
      readonly declared: number;
    }
  // ---- tests
  | {
      readonly code: "P401";
      readonly kind: "unknown-fixture";
      readonly fixture: string;
      readonly test: string;
    }
  | { readonly code: "P402"; readonly kind: "duplicate-test"; readonly test: string }
  | { readonly code: "P403"; readonly kind: "duplicate-fixture"; readonly fixture: string }
  | {
      readonly code: "P404";
      readonly kind: "assertion-variables";
      readonly variables: readonly string[];
    }
  | { readonly code: "P405"; readonly kind: "assert-not-iff" }
  | {
      readonly code: "P406";
      readonly kind: "setup-not-ground";
      /** What is not a value: a variable, or a builtin (read per question). */
      readonly found: { readonly kind: "variable" | "builtin"; readonly name: string };
    }
  | { readonly code: "P407"; readonly kind: "iff-without-variable" }
  | {
      readonly code: "P408";
      readonly kind: "iff-other-variable";
      readonly variable: string;
      readonly other: string;
    }
  // ---- facts
  | { readonly code: "P501"; readonly kind: "unknown-fact-predicate"; readonly predicate: string }
  | {
      readonly code: "P502";
      readonly kind: "fact-argument-type";
      readonly predicate: string;
      /** 0-based. */
      readonly position: number;
      readonly accepted: readonly string[];
      readonly type: string;
    }
  | { readonly code: "P503"; readonly kind: "fact-argument-empty" }
  | { readonly code: "P504"; readonly kind: "fact-argument-too-long"; readonly bytes: number }
  | { readonly code: "P505"; readonly kind: "fact-integer"; readonly id: string }
  | { readonly code: "P506"; readonly kind: "fact-boolean"; readonly id: string }
  // ---- warnings
  | { readonly code: "W001"; readonly kind: "undeclared-type"; readonly type: string }
  | { readonly code: "W002"; readonly kind: "matches-bang" }
  | {
      readonly code: "W009";
      readonly kind: "undeclared-assertion-name";
      readonly name: string;
      /** What the resource should declare it as. */
      readonly noun: "action" | "permission" | "role";
      readonly resource: string;
    };

export type CheckProblemKind = CheckProblem["kind"];

/**
 * The one-line message of a checker problem: lowercase, no trailing period, names in backticks.
 *
 *   describeCheckProblem({ code: "P402", kind: "duplicate-test", test: "owners" })
 *   // "duplicate test name `owners`"
 */
export function describeCheckProblem(problem: CheckProblem): string {
  switch (problem.kind) {
    case "unknown-declaration":
      return `unknown declaration ${tick(problem.key)} in ${tick(problem.block)}; expected \`roles\`, \`permissions\` or \`relations\``;
    case "declaration-not-list":
      return `${tick(problem.key)} in ${tick(problem.block)} must be a list of strings`;
    case "relations-not-dictionary":
      return `\`relations\` in ${tick(problem.block)} must be a dictionary like \`{ project: Project }\``;
    case "relation-without-type":
      return `relation ${tick(problem.relation)} in ${tick(problem.block)} has no type`;
    case "key-declared-twice":
      return `${tick(problem.key)} is declared more than once in ${tick(problem.block)}`;
    case "term-declared-twice":
      return `${tick(problem.term)} is declared more than once in ${tick(problem.block)}`;
    case "relation-undeclared-type":
      return `relation ${tick(problem.relation)} in ${tick(problem.block)} refers to undeclared type ${tick(problem.type)}`;
    case "relation-not-entity":
      return `relation ${tick(problem.relation)} in ${tick(problem.block)} must refer to an actor or resource type, not ${tick(problem.type)}`;
    case "global-twice":
      return "only one `global` block is allowed";
    case "global-relations":
      return "`global` may declare only `roles` and `permissions`";
    case "extends-undeclared":
      return `${tick(problem.type)} extends undeclared type ${tick(problem.target)}`;
    case "extends-primitive":
      return `${tick(problem.type)} cannot extend primitive type ${tick(problem.target)}`;
    case "cyclic-extends":
      return `cyclic \`extends\`: ${problem.path.map(tick).join(" -> ")}`;
    case "reserved-type-name":
      return `${tick(problem.type)} is ${problem.global ? "the name of the `global` block" : "a built-in type"} and cannot be declared`;
    case "type-declared-twice":
      return `${tick(problem.type)} is declared twice with different declarations`;
    case "abstract-value":
      return `cannot create a value of abstract type ${tick(problem.type)}`;
    case "string-literal-needed":
      return `a \`String\` value needs a string literal, got ${tick(problem.written)}`;
    case "integer-literal-needed":
      return `an \`Integer\` value needs an integer literal, got ${tick(problem.written)}`;
    case "boolean-literal-needed":
      return `a \`Boolean\` value needs \`true\` or \`false\`, got ${tick(problem.written)}`;
    case "entity-id-not-string":
      return `entity ids are strings: write ${tick(`${problem.type}{${JSON.stringify(problem.id)}}`)}`;
    case "entity-id-empty":
      return `entity ids must be non-empty: ${tick(`${problem.type}{""}`)}`;
    case "undeclared-term": {
      const kinds = problem.global ? "a role or permission" : "a role, permission or relation";
      return `undeclared term ${tick(problem.term)} in ${tick(problem.block)}; declare it as ${kinds}`;
    }
    case "relation-as-head":
      return `relation ${tick(problem.relation)} cannot be the head of a shorthand rule in ${tick(problem.block)}`;
    case "not-a-relation":
      return `${tick(problem.relation)} is not a relation of ${tick(problem.block)}`;
    case "not-in-related-type":
      return `${tick(problem.term)} is not declared in ${tick(problem.type)} (reached through ${tick(problem.relation)} of ${tick(problem.block)})`;
    case "not-in-global":
      return `${tick(problem.term)} is not declared in the \`global\` block`;
    case "on-in-global":
      return "`on` cannot be used in the `global` block";
    case "negation-cycle":
      return `negation cycle: ${problem.path.map(tick).join(" -> ")}`;
    case "only-under-not":
      return `variable ${tick(problem.variable)} in a rule for ${tick(problem.rule)} appears only under \`not\`; bind it in a positive call or rename it ${tick(`_${problem.variable}`)}`;
    case "type-arities-disagree":
      return `\`type\` declarations for ${tick(problem.predicate)} disagree on arity: ${problem.first} and ${problem.other}`;
    case "arity-not-declared":
      return `${tick(problem.predicate)} is used with ${problem.arity} arguments but its \`type\` declarations have ${problem.declared}`;
    case "unknown-fixture":
      return `unknown fixture ${tick(problem.fixture)} in test ${tick(problem.test)}`;
    case "duplicate-test":
      return `duplicate test name ${tick(problem.test)}`;
    case "duplicate-fixture":
      return `duplicate fixture name ${tick(problem.fixture)}`;
    case "assertion-variables":
      return `assertion has more than one variable: ${problem.variables.map(tick).join(", ")}`;
    case "assert-not-iff":
      return "`assert_not` cannot be combined with `iff`";
    case "setup-not-ground": {
      const { kind, name } = problem.found;
      const found = kind === "builtin" ? tick(builtinSpelling(name)) : `variable ${tick(name)}`;
      return `setup facts must be ground; found ${found}`;
    }
    case "iff-without-variable":
      return "`iff` needs a variable in the query";
    case "iff-other-variable":
      return `the \`iff\` condition may mention only ${tick(problem.variable)}, not ${tick(problem.other)}`;
    case "unknown-fact-predicate":
      return `unknown predicate ${tick(problem.predicate)}`;
    case "fact-argument-type":
      return `argument ${problem.position + 1} of ${tick(problem.predicate)} must be ${alternatives(problem.accepted)}, got ${tick(problem.type)}`;
    case "fact-argument-empty":
      return "fact arguments need a non-empty type and id";
    case "fact-argument-too-long":
      return `fact argument exceeds ${problem.bytes} bytes`;
    case "fact-integer":
      return `\`Integer\` id ${tick(problem.id)} is not a 64-bit integer`;
    case "fact-boolean":
      return `\`Boolean\` id ${tick(problem.id)} is not \`true\` or \`false\``;
    case "undeclared-type":
      return `undeclared type ${tick(problem.type)}; treating it as an entity type`;
    case "matches-bang":
      return "`matches!` is treated as `matches`";
    case "undeclared-assertion-name": {
      const article = problem.noun === "action" ? "an" : "a";
      return `${tick(problem.name)} is not ${article} ${problem.noun} of ${tick(problem.resource)}`;
    }
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

/** `` `A` ``, `` `A` or `B` ``, `` `A`, `B` or `C` ``. */
function alternatives(types: readonly string[]): string {
  const ticked = types.map(tick);
  if (ticked.length <= 1) return ticked[0] ?? "";
  return `${ticked.slice(0, -1).join(", ")} or ${ticked[ticked.length - 1]}`;
}

/**
 * The diagnostic of a checker problem at `span`. `help` is a suggestion computed where the
 * problem was found (`didYouMean` of src/source/suggest.ts); the table's own hint wins.
 *
 *   checkDiagnostic({ code: "P206", kind: "on-in-global" }, span)
 *   // { code: "P206", severity: "error", message: "`on` cannot be used in the `global` block", span }
 */
export function checkDiagnostic(problem: CheckProblem, span?: Span, help?: string): Diagnostic {
  const hint =
    problem.kind === "not-a-relation" && problem.unquoted
      ? `write the relation name in quotes: "${problem.relation}"`
      : help;
  const make = problem.code.startsWith("W") ? warning : error;
  return make(problem.code, describeCheckProblem(problem), span, hint);
}
