/**
 * The explanation tree (docs/explain.md): one node per goal, rule attempt, fact or builtin, and
 * how goals, terms and values are written in it. Values are written as Polar literals (strings
 * with Polar's escapes), so a goal's text parses back as Polar; a wildcard is `_` or `_: Type`.
 */
import { builtinSpelling } from "../builtins/registry.js";
import type { Clause, Program } from "../check/program.js";
import type { Value } from "../core/value.js";
import type { Expr, Term } from "../polar/ast.js";
import { positionOf } from "../source/source.js";
import { compileTerm } from "./compile.js";
import { isWildcard, type Slot } from "./slot.js";
import type { Env } from "./solve.js";

/** Where a fact came from: the fact store, the request's context facts, data bindings, a test. */
export type FactSource = "stored" | "context" | "local" | "setup";

/** The clause a node used: where it starts (1-based) and its source text. */
export interface ExplainRule {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly text: string;
}

/** A fact leaf, arguments in the API's wire form (`{ "type": "Integer", "id": "5" }`). */
export interface ExplainFact {
  readonly predicate: string;
  readonly args: readonly Value[];
  readonly source: FactSource;
}

export interface ExplainNode {
  readonly goal: string;
  readonly holds: boolean;
  readonly rule?: ExplainRule;
  readonly fact?: ExplainFact;
  readonly note?: string;
  readonly children: readonly ExplainNode[];
}

/** The answer to "why (not)?": the answer, and its proof or what was tried. */
export interface Explanation {
  readonly allowed: boolean;
  readonly explanation: ExplainNode;
}

/** A node; `rule`, `fact` and `note` only when present. */
export function node(
  goal: string,
  holds: boolean,
  children: readonly ExplainNode[],
  extra: { rule?: ExplainRule | undefined; fact?: ExplainFact; note?: string | undefined } = {},
): ExplainNode {
  return {
    goal,
    holds,
    ...(extra.rule && { rule: extra.rule }),
    ...(extra.fact && { fact: extra.fact }),
    ...(extra.note && { note: extra.note }),
    children,
  };
}

/** The clause's place and text; none for the implicit default `allow`. */
export function ruleOf(program: Program, clause: Clause): ExplainRule | undefined {
  if (clause.origin === "default_allow") return undefined;
  const source = program.sources.find((candidate) => candidate.name === clause.span.file);
  if (!source) return undefined;
  const { line, column } = positionOf(source, clause.span.start);
  return {
    file: clause.span.file,
    line,
    column,
    text: source.text.slice(clause.span.start, clause.span.end),
  };
}

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  '"': '\\"',
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\0": "\\0",
};

/** A Polar string literal: `"it's \"x\""`. */
function polarString(text: string): string {
  return `"${text.replace(/[\\"\n\r\t\0]/g, (char) => ESCAPES[char]!)}"`;
}

/** `"read"`, `5`, `true`, `User{"ada"}`; an id no literal can write: `Integer{"x"}`. */
function valueText(value: Value): string {
  switch (value.type) {
    case "String":
      return polarString(value.id);
    case "Integer":
      return /^-?[0-9]+$/.test(value.id) ? value.id : `Integer{${polarString(value.id)}}`;
    case "Boolean":
      return value.id === "true" || value.id === "false"
        ? value.id
        : `Boolean{${polarString(value.id)}}`;
    default:
      return `${value.type}{${polarString(value.id)}}`;
  }
}

/** A value, or a wildcard: `_` (any value) or `_: User`. */
export function slotText(slot: Slot): string {
  if (!isWildcard(slot)) return valueText(slot);
  return slot.types.length === 0 ? "_" : `_: ${slot.types.join(" & ")}`;
}

export function callText(name: string, args: readonly Slot[]): string {
  return `${name}(${args.map(slotText).join(", ")})`;
}

/**
 * An expression as Polar source with the bound variables replaced by their values (the text of
 * a `not` node). Unbound variables keep their names; builtins stay as written.
 */
export function exprText(expr: Expr, env: Env): string {
  const term = (t: Term) => termText(t, env);
  const inner = (operand: Expr) =>
    operand.kind === "or" || operand.kind === "and"
      ? `(${exprText(operand, env)})`
      : exprText(operand, env);
  switch (expr.kind) {
    case "or":
      return expr.operands.map((operand) => exprText(operand, env)).join(" or ");
    case "and":
      return expr.operands
        .map((operand) => (operand.kind === "or" ? inner(operand) : exprText(operand, env)))
        .join(" and ");
    case "not":
      return `not ${inner(expr.operand)}`;
    case "call":
      return `${expr.name.name}(${expr.args.map(term).join(", ")})`;
    case "compare":
      return `${term(expr.left)} ${expr.op} ${term(expr.right)}`;
    case "in":
      return `${term(expr.element)} in [${expr.list.map(term).join(", ")}]`;
    case "matches":
      return `${term(expr.variable)} matches ${expr.type.name}`;
    case "bool":
      return String(expr.value);
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

function termText(term: Term, env: Env): string {
  switch (term.kind) {
    case "variable": {
      const slot = env.get(term.name);
      return slot && !isWildcard(slot) ? valueText(slot) : term.name;
    }
    case "builtin":
      return builtinSpelling(term.name);
    default: {
      const compiled = compileTerm(term);
      return compiled.kind === "const" ? valueText(compiled.value) : "_";
    }
  }
}
