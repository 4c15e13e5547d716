/**
 * Small walks over expressions and items shared by the checker passes.
 */
import type {
  Call,
  Expr,
  Ident,
  Item,
  Matches,
  Param,
  ShorthandExpr,
  Term,
  Variable,
} from "../polar/ast.js";
import { atomTerms, forEachAtom } from "../polar/expr.js";

/**
 * Every variable occurrence in `expr`, in source order.
 *
 * @example
 * exprVariables(parsed(`f(x, 1) and x = y`)).map((v) => v.name); // ["x", "x", "y"]
 */
export function exprVariables(expr: Expr, out: Variable[] = []): Variable[] {
  forEachAtom(expr, (atom) => {
    for (const term of atomTerms(atom)) if (term.kind === "variable") out.push(term);
  });
  return out;
}

/**
 * The variable of a parameter (`x` and `x: T`), if any.
 *
 * @example
 * paramVariable(parsedParam(`u: User`))?.name; // "u"
 */
export function paramVariable(param: Param): Variable | null {
  if (param.kind === "typed") return param.variable;
  return param.kind === "variable" ? param : null;
}

/**
 * Calls in `expr` with whether they sit under a `not` (at any depth), and the outermost `not`.
 *
 * @example
 * forEachCall(parsed(`p(x) and not q(x)`), (call, negative) => console.log(call.name.name, negative));
 * // p false, q true
 */
export function forEachCall(
  expr: Expr,
  visit: (call: Call, negative: boolean, negation: Expr | null) => void,
): void {
  forEachAtom(expr, (atom, negation) => {
    if (atom.kind === "call") visit(atom, negation !== null, negation);
  });
}

/** What an item mentions: every term (including object literals) and every type reference. */
interface ItemVisitor {
  /** A term in a head, body, fact or list. */
  term?(term: Term): void;
  /** A type used by a specializer, `matches` or `declare` (object literal types come via `term`). */
  typeRef?(type: Ident): void;
  /** A `matches` atom. */
  matches?(atom: Matches): void;
}

/**
 * Visits the terms and type references of an item in source order. Block declarations,
 * `extends` and relation targets are left to the block checks.
 *
 * @example
 * visitItem(rule, { typeRef: (type) => console.log(type.name) }); // each specializer and `matches` type
 */
export function visitItem(item: Item, visitor: ItemVisitor): void {
  switch (item.kind) {
    case "block":
      for (const shorthand of item.shorthands) visitShorthandExpr(shorthand.body, visitor);
      return;
    case "rule":
      visitParams(item.head.params, visitor);
      if (item.body) visitExpr(item.body, visitor);
      return;
    case "rule_type":
      visitParams(item.head.params, visitor);
      return;
    case "declare":
      for (const type of item.types) visitor.typeRef?.(type);
      return;
    case "inline_query":
      visitExpr(item.expr, visitor);
      return;
    case "fixture":
      for (const fact of item.facts) for (const arg of fact.args) visitor.term?.(arg);
      return;
    case "test":
      for (const entry of item.setup) {
        if (entry.kind === "fact") for (const arg of entry.args) visitor.term?.(arg);
      }
      for (const assertion of item.assertions) {
        visitParams(assertion.query.params, visitor);
        if (assertion.iff) visitExpr(assertion.iff, visitor);
      }
      return;
    default: {
      const _never: never = item;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

function visitParams(params: readonly Param[], visitor: ItemVisitor): void {
  for (const param of params) {
    if (param.kind === "typed") {
      visitor.term?.(param.variable);
      visitor.typeRef?.(param.type);
    } else {
      visitor.term?.(param);
    }
  }
}

/**
 * Visits terms and type references inside an expression.
 *
 * @example
 * visitExpr(parsed(`x matches User`), { typeRef: (t) => t.name }); // visits `User`
 */
export function visitExpr(expr: Expr, visitor: ItemVisitor): void {
  forEachAtom(expr, (atom) => {
    if (atom.kind === "matches") visitor.matches?.(atom);
    for (const term of atomTerms(atom)) visitor.term?.(term);
    if (atom.kind === "matches") visitor.typeRef?.(atom.type);
  });
}

function visitShorthandExpr(expr: ShorthandExpr, visitor: ItemVisitor): void {
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) visitShorthandExpr(operand, visitor);
      return;
    case "not":
      visitShorthandExpr(expr.operand, visitor);
      return;
    case "call":
      for (const arg of expr.args) visitor.term?.(arg);
      return;
    case "shorthand_ref":
    case "shorthand_global":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}
