/**
 * Turns clauses and expressions of the checked Program into the evaluator's small IR: head
 * parameters, and bodies in disjunctive normal form (a list of conjunctions of atoms) so that
 * each conjunction can be scheduled freely (docs/policy-language.md#fixpoint-semantics). `not` keeps its operand whole.
 */
import type { BuiltinName } from "../builtins/registry.js";
import type { Clause, PredicateKey } from "../check/program.js";
import { predicateKey } from "../check/program.js";
import { booleanValue, entity, integerValue, stringValue, type Value } from "../core/value.js";
import type { CompareOp, Expr, ObjectLit, Param, Term } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import { canonicalValue } from "./slot.js";

export type TermIR =
  | { readonly kind: "const"; readonly value: Value }
  | { readonly kind: "builtin"; readonly name: BuiltinName }
  | { readonly kind: "var"; readonly name: string }
  /** `_`: a fresh variable at each occurrence. */
  | { readonly kind: "anon" };

export interface CallAtom {
  readonly kind: "call";
  readonly predicate: PredicateKey;
  readonly args: readonly TermIR[];
}
interface UnifyAtom {
  readonly kind: "unify";
  readonly left: TermIR;
  readonly right: TermIR;
  /** The comparison as written, for errors. */
  readonly span: Span;
}
export interface CompareAtom {
  readonly kind: "compare";
  readonly op: Exclude<CompareOp, "=">;
  readonly left: TermIR;
  readonly right: TermIR;
  readonly span: Span;
}
interface InAtom {
  readonly kind: "in";
  readonly element: TermIR;
  readonly list: readonly TermIR[];
  /** Null for the membership a question's id list adds. */
  readonly span: Span | null;
}
interface MatchesAtom {
  readonly kind: "matches";
  readonly variable: TermIR;
  readonly type: string;
}
export interface NotAtom {
  readonly kind: "not";
  readonly body: readonly Conjunction[];
  /** Named variables of the operand; those bound outside must be concrete. */
  readonly variables: readonly string[];
  /** The operand as written (explanations print it). */
  readonly operand: Expr;
  /** The `not` as written, for errors. */
  readonly span: Span;
}
export type Atom = CallAtom | UnifyAtom | CompareAtom | InAtom | MatchesAtom | NotAtom;
export type Conjunction = readonly Atom[];

interface HeadParam {
  readonly term: TermIR;
  /** The specializer of `x: T` / `_: T`. */
  readonly type: string | null;
}

export interface CompiledClause {
  readonly head: readonly HeadParam[];
  /** Variables named in more than one head position (their wildcards cannot be answers). */
  readonly repeated: ReadonlySet<string>;
  /** Bodiless rules have one empty conjunction. */
  readonly body: readonly Conjunction[];
}

const clauseCache = new WeakMap<Clause, CompiledClause>();
const exprCache = new WeakMap<Expr, readonly Conjunction[]>();

export function compileClause(clause: Clause): CompiledClause {
  let compiled = clauseCache.get(clause);
  if (!compiled) {
    const head = clause.params.map(compileParam);
    const seen = new Set<string>();
    const repeated = new Set<string>();
    for (const { term } of head) {
      if (term.kind !== "var") continue;
      if (seen.has(term.name)) repeated.add(term.name);
      seen.add(term.name);
    }
    compiled = { head, repeated, body: clause.body ? compileExpr(clause.body) : [[]] };
    clauseCache.set(clause, compiled);
  }
  return compiled;
}

export function compileParam(param: Param): HeadParam {
  if (param.kind === "typed") return { term: compileTerm(param.variable), type: param.type.name };
  return { term: compileTerm(param), type: null };
}

export function compileTerm(term: Term): TermIR {
  switch (term.kind) {
    case "string":
      return { kind: "const", value: stringValue(term.value) };
    case "integer":
      return { kind: "const", value: integerValue(term.value) };
    case "boolean":
      return { kind: "const", value: booleanValue(term.value) };
    case "object":
      return { kind: "const", value: objectValue(term) };
    case "builtin":
      return { kind: "builtin", name: term.name };
    case "variable":
      return term.name === "_" ? { kind: "anon" } : { kind: "var", name: term.name };
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

/** `User{"ada"}` is an entity; `Integer{3}`, `String{"x"}`, `Boolean{true}` are primitives. */
function objectValue(object: ObjectLit): Value {
  const type = object.type.name;
  const literal = object.value.value;
  switch (type) {
    case "String":
      return stringValue(String(literal));
    case "Integer":
      return canonicalValue({ type, id: String(literal) });
    case "Boolean":
      return { type, id: String(literal) };
    default:
      return entity(type, String(literal));
  }
}

/** The body of `expr` in disjunctive normal form (cached per node). */
export function compileExpr(expr: Expr): readonly Conjunction[] {
  let compiled = exprCache.get(expr);
  if (!compiled) {
    compiled = toDnf(expr);
    exprCache.set(expr, compiled);
  }
  return compiled;
}

function toDnf(expr: Expr): Conjunction[] {
  switch (expr.kind) {
    case "or":
      return expr.operands.flatMap((operand) => [...compileExpr(operand)]);
    case "and": {
      let result: Conjunction[] = [[]];
      for (const operand of expr.operands) {
        const alternatives = compileExpr(operand);
        result = result.flatMap((left) => alternatives.map((right) => [...left, ...right]));
      }
      return result;
    }
    case "not":
      return [
        [
          {
            kind: "not",
            body: compileExpr(expr.operand),
            variables: [...namedVariables(expr.operand)],
            operand: expr.operand,
            span: expr.span,
          },
        ],
      ];
    case "call":
      return [
        [
          {
            kind: "call",
            predicate: predicateKey(expr.name.name, expr.args.length),
            args: expr.args.map(compileTerm),
          },
        ],
      ];
    case "compare": {
      const left = compileTerm(expr.left);
      const right = compileTerm(expr.right);
      if (expr.op === "=") return [[{ kind: "unify", left, right, span: expr.span }]];
      return [[{ kind: "compare", op: expr.op, left, right, span: expr.span }]];
    }
    case "in":
      return [
        [
          {
            kind: "in",
            element: compileTerm(expr.element),
            list: expr.list.map(compileTerm),
            span: expr.span,
          },
        ],
      ];
    case "matches":
      return [[{ kind: "matches", variable: compileTerm(expr.variable), type: expr.type.name }]];
    case "bool":
      return expr.value ? [[]] : [];
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

/** Named (non-`_`) variables anywhere in an expression. */
function namedVariables(expr: Expr): Set<string> {
  const names = new Set<string>();
  const addTerm = (term: Term) => {
    if (term.kind === "variable" && term.name !== "_") names.add(term.name);
  };
  const visit = (node: Expr): void => {
    switch (node.kind) {
      case "or":
      case "and":
        node.operands.forEach(visit);
        return;
      case "not":
        visit(node.operand);
        return;
      case "call":
        node.args.forEach(addTerm);
        return;
      case "compare":
        addTerm(node.left);
        addTerm(node.right);
        return;
      case "in":
        addTerm(node.element);
        node.list.forEach(addTerm);
        return;
      case "matches":
        addTerm(node.variable);
        return;
      case "bool":
        return;
      default: {
        const _never: never = node;
        throw new Error(`unexpected expression ${String(_never)}`);
      }
    }
  };
  visit(expr);
  return names;
}

/** Every literal value in an expression or term list (for the active domain of `iff`). */
export function constantsOfConjunctions(body: readonly Conjunction[], into: Value[]): void {
  const addTerm = (term: TermIR) => {
    if (term.kind === "const") into.push(term.value);
  };
  for (const conjunction of body) {
    for (const atom of conjunction) {
      switch (atom.kind) {
        case "call":
          atom.args.forEach(addTerm);
          break;
        case "unify":
        case "compare":
          addTerm(atom.left);
          addTerm(atom.right);
          break;
        case "in":
          addTerm(atom.element);
          atom.list.forEach(addTerm);
          break;
        case "matches":
          break;
        case "not":
          constantsOfConjunctions(atom.body, into);
          break;
        default: {
          const _never: never = atom;
          throw new Error(`unexpected atom ${String(_never)}`);
        }
      }
    }
  }
}
