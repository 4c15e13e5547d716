/**
 * CST → AST: one function per grammar rule of `parser.ts`. Names, terms and expressions are
 * built in `cst-expressions.ts`, blocks in `cst-blocks.ts`; rules, tests and items here.
 *
 * After a syntax error Chevrotain's recovery may leave a node incomplete; such a node makes the
 * enclosing list member (an item, a block member, a fact, an assertion) drop out of the AST,
 * while the syntax error itself has already been reported.
 */
import type { CstNode } from "chevrotain";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile } from "../source/source.js";
import type {
  Assertion,
  Declare,
  Fact,
  Fixture,
  FixtureRef,
  InlineQuery,
  Item,
  Rule,
  RuleType,
  Test,
} from "./ast.js";
import {
  child,
  closed,
  has,
  IncompleteNode,
  members,
  nodes,
  optionalChild,
  token,
  tokens,
} from "./cst-access.js";
import { blockBuilder } from "./cst-blocks.js";
import { expressionBuilder, termBuilder } from "./cst-expressions.js";

/** Builds AST nodes for one source file, collecting the diagnostics the grammar leaves open. */
export function astBuilder(source: SourceFile, diagnostics: Diagnostic[]) {
  const terms = termBuilder(source.name);
  const { nodeSpan, ident, flag, stringLit, head, call } = terms;
  const { expr } = expressionBuilder(source, diagnostics, terms);
  const { block } = blockBuilder(terms);

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
