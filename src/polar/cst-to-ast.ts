/**
 * CST → AST: one function per grammar rule of `parser.ts`.
 *
 * After a syntax error Chevrotain's recovery may leave a node incomplete; such a node makes the
 * enclosing list member (an item, a block member, a fact, an assertion) drop out of the AST,
 * while the syntax error itself has already been reported.
 */
import type { CstNode, IToken, TokenType } from "chevrotain";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";
import type {
  Assertion,
  Block,
  BooleanLit,
  Call,
  CompareOp,
  Declaration,
  Declare,
  DictField,
  DictValue,
  Expr,
  Fact,
  Fixture,
  FixtureRef,
  Head,
  Ident,
  InlineQuery,
  IntegerLit,
  Item,
  ListValue,
  Param,
  Rule,
  RuleType,
  Shorthand,
  ShorthandExpr,
  StringLit,
  Term,
  Test,
  Variable,
} from "./ast.js";
import { decodeString, integerValue } from "./literals.js";
import { parseDiagnostic } from "./problems.js";
import { DoubleEq, Eq, Gt, GtEq, Lt, LtEq, MatchesBang, NotEq, True } from "./tokens.js";

/** Thrown when a recovered CST lacks a required part; caught at list members. */
class IncompleteNode extends Error {}

const COMPARE_OPS = new Map<TokenType, CompareOp>([
  [Eq, "="],
  [DoubleEq, "="],
  [NotEq, "!="],
  [Lt, "<"],
  [LtEq, "<="],
  [Gt, ">"],
  [GtEq, ">="],
]);

/** Builds AST nodes for one source file, collecting the diagnostics the grammar leaves open. */
export function astBuilder(source: SourceFile, diagnostics: Diagnostic[]) {
  const file = source.name;
  // ------------------------------------------------------------ CST access

  function nodes(node: CstNode, key: string): CstNode[] {
    return (node.children[key] as CstNode[] | undefined) ?? [];
  }
  /** The `key` children, all of which must be complete. */
  function complete(node: CstNode, key: string): CstNode[] {
    const found = nodes(node, key);
    if (found.some((inner) => inner.recoveredNode)) throw new IncompleteNode();
    return found;
  }
  function tokens(node: CstNode, key: string): IToken[] {
    return ((node.children[key] as IToken[] | undefined) ?? []).filter(
      (token) => !token.isInsertedInRecovery,
    );
  }
  function child(node: CstNode, key: string): CstNode {
    const found = nodes(node, key)[0];
    if (!found || found.recoveredNode) throw new IncompleteNode();
    return found;
  }
  function optionalChild(node: CstNode, key: string): CstNode | null {
    const found = nodes(node, key)[0];
    if (found?.recoveredNode) throw new IncompleteNode();
    return found ?? null;
  }
  function token(node: CstNode, key: string): IToken {
    const found = tokens(node, key)[0];
    if (!found) throw new IncompleteNode();
    return found;
  }
  /** A closing token; one inserted by recovery counts, the node is otherwise complete. */
  function closed(node: CstNode, key: string): void {
    if (!node.children[key]) throw new IncompleteNode();
  }
  function has(node: CstNode, key: string): boolean {
    return node.children[key] !== undefined;
  }
  /** Builds each member, leaving out the ones recovery left incomplete. */
  function members<T>(list: readonly CstNode[], build: (node: CstNode) => T): T[] {
    const built: T[] = [];
    for (const member of list) {
      try {
        if (member.recoveredNode) continue;
        built.push(build(member));
      } catch (problem) {
        if (!(problem instanceof IncompleteNode)) throw problem;
      }
    }
    return built;
  }

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

  // ------------------------------------------------------------ names and terms

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
    if (has(node, "CurrentTime")) {
      return { kind: "current_time", span: tokenSpan(token(node, "CurrentTime")) };
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

  // ------------------------------------------------------------ expressions

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

  // ------------------------------------------------------------ blocks and shorthand rules

  function sTerm(node: CstNode): StringLit | Variable {
    if (node.recoveredNode) throw new IncompleteNode();
    if (has(node, "StringLiteral")) return stringLit(token(node, "StringLiteral"));
    return variable(token(node, "Ident"));
  }

  function sOr(node: CstNode): ShorthandExpr {
    const operands = complete(node, "sAnd").map(sAnd);
    if (operands.length === 1) return operands[0]!;
    if (operands.length === 0) throw new IncompleteNode();
    return { kind: "or", operands, span: nodeSpan(node) };
  }

  function sAnd(node: CstNode): ShorthandExpr {
    const operands = complete(node, "sNot").map(sNot);
    if (operands.length === 1) return operands[0]!;
    if (operands.length === 0) throw new IncompleteNode();
    return { kind: "and", operands, span: nodeSpan(node) };
  }

  function sNot(node: CstNode): ShorthandExpr {
    if (node.recoveredNode) throw new IncompleteNode();
    if (!has(node, "Not")) return sAtom(child(node, "sAtom"));
    return { kind: "not", operand: sNot(child(node, "sNot")), span: nodeSpan(node) };
  }

  function sAtom(node: CstNode): ShorthandExpr {
    const span = nodeSpan(node);
    const called = optionalChild(node, "call");
    if (called) return call(called);
    const inner = optionalChild(node, "sOr");
    if (inner) {
      closed(node, "RParen");
      return sOr(inner);
    }
    const global = optionalChild(node, "global");
    if (global) return { kind: "shorthand_global", term: sTerm(global), span };
    const on = optionalChild(node, "on");
    return {
      kind: "shorthand_ref",
      term: sTerm(child(node, "ref")),
      on: on ? sTerm(on) : null,
      span,
    };
  }

  function shorthand(node: CstNode): Shorthand {
    closed(node, "Semicolon");
    return {
      kind: "shorthand",
      flags: tokens(node, "Flag").map(flag),
      head: sTerm(child(node, "head")),
      body: sOr(child(node, "sOr")),
      span: nodeSpan(node),
    };
  }

  function dict(node: CstNode): DictValue {
    const fields = complete(node, "field").map((field): DictField => {
      const type = tokens(field, "type")[0];
      return {
        kind: "field",
        name: ident(token(field, "name")),
        type: type ? ident(type) : null,
        span: nodeSpan(field),
      };
    });
    return { kind: "dict", fields, span: nodeSpan(node) };
  }

  function declaration(node: CstNode): Declaration {
    closed(node, "Semicolon");
    const values = optionalChild(node, "list");
    return {
      kind: "declaration",
      key: ident(token(node, "key")),
      value: values ? list(values) : dict(child(node, "dict")),
      span: nodeSpan(node),
    };
  }

  function block(node: CstNode): Block {
    const blockKind = has(node, "Global") ? "global" : has(node, "Actor") ? "actor" : "resource";
    if (blockKind === "resource" && !has(node, "Resource")) throw new IncompleteNode();
    const built = members(nodes(node, "blockMember"), (member) =>
      optionalChild(member, "declaration")
        ? declaration(child(member, "declaration"))
        : shorthand(child(member, "shorthand")),
    );
    return {
      kind: "block",
      blockKind,
      name: blockKind === "global" ? null : ident(token(node, "name")),
      extends: tokens(node, "supertype").map(ident),
      declarations: built.filter((member) => member.kind === "declaration"),
      shorthands: built.filter((member) => member.kind === "shorthand"),
      span: nodeSpan(node),
    };
  }

  // ------------------------------------------------------------ rules and declarations

  function rule(node: CstNode): Rule {
    closed(node, "Semicolon");
    const body = optionalChild(node, "expr");
    return {
      kind: "rule",
      flags: tokens(node, "Flag").map(flag),
      head: head(child(node, "head")),
      body: body ? expr(body) : null,
      span: nodeSpan(node),
    };
  }

  function ruleType(node: CstNode): RuleType {
    closed(node, "Semicolon");
    return { kind: "rule_type", head: head(child(node, "head")), span: nodeSpan(node) };
  }

  function declare(node: CstNode): Declare {
    closed(node, "Semicolon");
    return {
      kind: "declare",
      name: ident(token(node, "name")),
      types: tokens(node, "type").map(ident),
      span: nodeSpan(node),
    };
  }

  function inlineQuery(node: CstNode): InlineQuery {
    closed(node, "Semicolon");
    return { kind: "inline_query", expr: expr(child(node, "expr")), span: nodeSpan(node) };
  }

  // ------------------------------------------------------------ tests

  function fact(node: CstNode): Fact {
    closed(node, "Semicolon");
    const called = call(child(node, "call"));
    return { kind: "fact", name: called.name, args: called.args, span: nodeSpan(node) };
  }

  function fixtureRef(node: CstNode): FixtureRef {
    closed(node, "Semicolon");
    return { kind: "fixture_ref", name: ident(token(node, "name")), span: nodeSpan(node) };
  }

  function fixture(node: CstNode): Fixture {
    return {
      kind: "fixture",
      name: ident(token(node, "name")),
      facts: members(nodes(node, "fact"), fact),
      span: nodeSpan(node),
    };
  }

  function assertion(node: CstNode): Assertion {
    closed(node, "Semicolon");
    const iff = optionalChild(node, "expr");
    return {
      kind: "assertion",
      negated: has(node, "AssertNot"),
      query: head(child(node, "head")),
      iff: iff ? expr(iff) : null,
      span: nodeSpan(node),
    };
  }

  function test(node: CstNode): Test {
    // Like blocks, a test keeps its complete members when recovery cut it short.
    const setup = nodes(node, "setup")[0];
    return {
      kind: "test",
      name: stringLit(token(node, "name")),
      setup: setup
        ? members(nodes(setup, "setupEntry"), (entry) => {
            const reference = optionalChild(entry, "fixtureRef");
            return reference ? fixtureRef(reference) : fact(child(entry, "fact"));
          })
        : [],
      assertions: members(nodes(node, "assertion"), assertion),
      span: nodeSpan(node),
    };
  }

  // ------------------------------------------------------------ items

  function item(node: CstNode): Item {
    const found = Object.keys(node.children).find((key) => key !== "Semicolon");
    switch (found) {
      case "block":
        return block(nodes(node, "block")[0]!);
      case "ruleType":
        return ruleType(child(node, "ruleType"));
      case "declare":
        return declare(child(node, "declare"));
      case "inlineQuery":
        return inlineQuery(child(node, "inlineQuery"));
      case "fixture":
        return fixture(nodes(node, "fixture")[0]!);
      case "test":
        return test(nodes(node, "test")[0]!);
      case "rule":
        return rule(child(node, "rule"));
      default:
        throw new IncompleteNode();
    }
  }

  /**
   * The items of one `item` CST node: none when recovery left it incomplete. Unlike other
   * members, a recovered item is still tried: blocks and tests keep their complete members.
   */
  function items(node: CstNode): Item[] {
    try {
      return [item(node)];
    } catch (problem) {
      if (!(problem instanceof IncompleteNode)) throw problem;
      return [];
    }
  }

  return { items };
}
