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

/**
 * Every variable occurrence in `expr`, in source order.
 *
 * @example
 * exprVariables(parsed(`f(x, 1) and x = y`)).map((v) => v.name); // ["x", "x", "y"]
 */
export function exprVariables(expr: Expr, out: Variable[] = []): Variable[] {
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) exprVariables(operand, out);
      return out;
    case "not":
      return exprVariables(expr.operand, out);
    case "call":
      for (const arg of expr.args) termVariable(arg, out);
      return out;
    case "compare":
      termVariable(expr.left, out);
      termVariable(expr.right, out);
      return out;
    case "in":
      termVariable(expr.element, out);
      for (const element of expr.list) termVariable(element, out);
      return out;
    case "matches":
      out.push(expr.variable);
      return out;
    case "bool":
      return out;
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

function termVariable(term: Term, out: Variable[]): void {
  if (term.kind === "variable") out.push(term);
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
 * Calls in `expr` with whether they sit under a `not` (at any depth), and that `not`.
 *
 * @example
 * forEachCall(parsed(`p(x) and not q(x)`), (call, negative) => console.log(call.name.name, negative));
 * // p false, q true
 */
export function forEachCall(
  expr: Expr,
  visit: (call: Call, negative: boolean, negation: Expr | null) => void,
  negation: Expr | null = null,
): void {
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) forEachCall(operand, visit, negation);
      return;
    case "not":
      forEachCall(expr.operand, visit, negation ?? expr);
      return;
    case "call":
      visit(expr, negation !== null, negation);
      return;
    case "compare":
    case "in":
    case "matches":
    case "bool":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
}

/** What an item mentions: every term (including object literals) and every type reference. */
export interface ItemVisitor {
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
  switch (expr.kind) {
    case "or":
    case "and":
      for (const operand of expr.operands) visitExpr(operand, visitor);
      return;
    case "not":
      visitExpr(expr.operand, visitor);
      return;
    case "call":
      for (const arg of expr.args) visitor.term?.(arg);
      return;
    case "compare":
      visitor.term?.(expr.left);
      visitor.term?.(expr.right);
      return;
    case "in":
      visitor.term?.(expr.element);
      for (const element of expr.list) visitor.term?.(element);
      return;
    case "matches":
      visitor.matches?.(expr);
      visitor.term?.(expr.variable);
      visitor.typeRef?.(expr.type);
      return;
    case "bool":
      return;
    default: {
      const _never: never = expr;
      throw new Error(`unexpected node ${String(_never)}`);
    }
  }
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
