/**
 * CST → AST for resource, actor and global blocks: their declarations (`roles = [...]`,
 * `relations = {...}`) and shorthand rules.
 */
import type { CstNode } from "chevrotain";
import type {
  Block,
  Declaration,
  DictField,
  DictValue,
  Shorthand,
  ShorthandExpr,
  StringLit,
  Variable,
} from "./ast.js";
import {
  child,
  closed,
  complete,
  has,
  IncompleteNode,
  members,
  nodes,
  optionalChild,
  token,
  tokens,
} from "./cst-access.js";
import type { TermBuilder } from "./cst-expressions.js";

/** Builds blocks, with names and spans from `terms`. */
export function blockBuilder(terms: TermBuilder) {
  const { nodeSpan, ident, flag, variable, stringLit, call, list } = terms;

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

  return { block };
}
