/**
 * CST → AST for names, terms and rule-body expressions: the parts of `cst-to-ast.ts` that
 * blocks, rules and tests share.
 */
import type { CstNode, IToken, TokenType } from "chevrotain";
import { builtinBySpelling } from "../builtins/registry.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";
import type {
  BooleanLit,
  Call,
  CompareOp,
  Expr,
  Head,
  Ident,
  IntegerLit,
  ListValue,
  Param,
  StringLit,
  Term,
  Variable,
} from "./ast.js";
import {
  child,
  closed,
  complete,
  has,
  IncompleteNode,
  optionalChild,
  token,
  tokens,
} from "./cst-access.js";
import { decodeString, integerValue } from "./literals.js";
import { parseDiagnostic } from "./problems.js";
import { DoubleEq, Eq, Gt, GtEq, Lt, LtEq, MatchesBang, NotEq, True } from "./tokens.js";

const COMPARE_OPS = new Map<TokenType, CompareOp>([
  [Eq, "="],
  [DoubleEq, "="],
  [NotEq, "!="],
  [Lt, "<"],
  [LtEq, "<="],
  [Gt, ">"],
  [GtEq, ">="],
]);

export type TermBuilder = ReturnType<typeof termBuilder>;

/** Builds spans, names, terms, heads, calls and lists whose spans are in file `file`. */
export function termBuilder(file: string) {
  function nodeSpan(node: CstNode): Span {
    const location = node.location;
    const start = location?.startOffset ?? Number.NaN;
    const end = location?.endOffset ?? Number.NaN;
    if (Number.isNaN(start) || Number.isNaN(end)) throw new IncompleteNode();
    return { file, start, end: end + 1 };
  }
  function tokenSpan(token: IToken): Span {
    return { file, start: token.startOffset, end: token.endOffset! + 1 };
  }

  function ident(token: IToken): Ident {
    return { kind: "ident", name: token.image, span: tokenSpan(token) };
  }
  function flag(token: IToken): Ident {
    const span = tokenSpan(token);
    return { kind: "ident", name: token.image.slice(1), span: { ...span, start: span.start + 1 } };
  }
  function variable(token: IToken): Variable {
    return { kind: "variable", name: token.image, span: tokenSpan(token) };
  }
  function stringLit(token: IToken): StringLit {
    return { kind: "string", value: decodeString(token.image), span: tokenSpan(token) };
  }
  function integerLit(token: IToken): IntegerLit {
    return { kind: "integer", value: integerValue(token.image), span: tokenSpan(token) };
  }
  function booleanLit(token: IToken): BooleanLit {
    return { kind: "boolean", value: token.tokenType === True, span: tokenSpan(token) };
  }

  function primitive(node: CstNode): StringLit | IntegerLit | BooleanLit {
    if (has(node, "StringLiteral")) return stringLit(token(node, "StringLiteral"));
    if (has(node, "Integer")) return integerLit(token(node, "Integer"));
    if (has(node, "True")) return booleanLit(token(node, "True"));
    return booleanLit(token(node, "False"));
  }

  function term(node: CstNode): Term {
    if (node.recoveredNode) throw new IncompleteNode();
    const object = optionalChild(node, "objectLiteral");
    if (object) {
      return {
        kind: "object",
        type: ident(token(object, "type")),
        value: primitive(object),
        span: nodeSpan(object),
      };
    }
    if (has(node, "Builtin")) {
      const written = token(node, "Builtin");
      // The lexer matches builtin spellings only.
      return { kind: "builtin", name: builtinBySpelling(written.image)!, span: tokenSpan(written) };
    }
    if (has(node, "Ident")) return variable(token(node, "Ident"));
    return primitive(node);
  }

  function param(node: CstNode): Param {
    if (!has(node, "variable")) return term(child(node, "term"));
    return {
      kind: "typed",
      variable: variable(token(node, "variable")),
      type: ident(token(node, "type")),
      span: nodeSpan(node),
    };
  }

  function head(node: CstNode): Head {
    return {
      kind: "head",
      name: ident(token(node, "name")),
      params: complete(node, "param").map(param),
      span: nodeSpan(node),
    };
  }

  function call(node: CstNode): Call {
    return {
      kind: "call",
      name: ident(token(node, "name")),
      args: complete(node, "term").map(term),
      span: nodeSpan(node),
    };
  }

  function list(node: CstNode): ListValue {
    return { kind: "list", elements: complete(node, "term").map(term), span: nodeSpan(node) };
  }

  return { nodeSpan, ident, flag, variable, stringLit, term, head, call, list };
}

/**
 * Builds rule-body expressions. An atom the grammar accepts but Polar does not becomes a
 * placeholder, its error pushed onto `diagnostics`.
 */
export function expressionBuilder(
  source: SourceFile,
  diagnostics: Diagnostic[],
  terms: TermBuilder,
) {
  const { nodeSpan, ident, term, call, list } = terms;

  function expr(node: CstNode): Expr {
    const operands = complete(node, "andExpr").map(andExpr);
    if (operands.length === 1) return operands[0]!;
    if (operands.length === 0) throw new IncompleteNode();
    return { kind: "or", operands, span: nodeSpan(node) };
  }

  function andExpr(node: CstNode): Expr {
    const operands = complete(node, "notExpr").map(notExpr);
    if (operands.length === 1) return operands[0]!;
    if (operands.length === 0) throw new IncompleteNode();
    return { kind: "and", operands, span: nodeSpan(node) };
  }

  function notExpr(node: CstNode): Expr {
    if (node.recoveredNode) throw new IncompleteNode();
    if (!has(node, "Not")) return atom(child(node, "atom"));
    return { kind: "not", operand: notExpr(child(node, "notExpr")), span: nodeSpan(node) };
  }

  function atom(node: CstNode): Expr {
    const inner = optionalChild(node, "expr");
    if (inner) {
      closed(node, "RParen");
      return expr(inner);
    }
    const called = optionalChild(node, "call");
    if (called) return call(called);
    return comparison(child(node, "comparison"));
  }

  function comparison(node: CstNode): Expr {
    const span = nodeSpan(node);
    const left = term(child(node, "left"));
    const op = tokens(node, "op")[0];
    if (op) {
      const compareOp = COMPARE_OPS.get(op.tokenType)!;
      return { kind: "compare", op: compareOp, left, right: term(child(node, "right")), span };
    }
    if (has(node, "In")) {
      const values = optionalChild(node, "list");
      if (values) return { kind: "in", element: left, list: list(values).elements, span };
      const right = term(child(node, "right"));
      return placeholder(
        parseDiagnostic({ code: "P303", kind: "in-needs-list" }, right.span),
        span,
      );
    }
    const matches = tokens(node, "matches")[0];
    if (matches) {
      const type = ident(token(node, "type"));
      if (left.kind !== "variable") {
        return placeholder(
          parseDiagnostic({ code: "P304", kind: "matches-needs-variable" }, left.span),
          span,
        );
      }
      const bang = matches.tokenType === MatchesBang;
      return { kind: "matches", variable: left, type, bang, span };
    }
    if (left.kind === "boolean") return { kind: "bool", value: left.value, span };
    const text = source.text.slice(left.span.start, left.span.end);
    return placeholder(parseDiagnostic({ code: "P307", kind: "lone-term", text }, left.span), span);
  }

  /** Stands in for an atom the grammar accepted but Polar does not; the error is reported. */
  function placeholder(problem: Diagnostic, span: Span): Expr {
    diagnostics.push(problem);
    return { kind: "bool", value: false, span };
  }

  return { expr };
}
