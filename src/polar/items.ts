/**
 * Item-level error recovery and the nesting guard, both on the token stream before parsing.
 *
 * The stream is cut into top-level items (a block, a test, a rule, ...), each parsed on its
 * own, so a syntax error never spreads past its item. Braced items end at the brace that closes
 * their body (plus an optional `;`); the others at `;`. Item starts that cannot occur inside
 * another item (`resource Doc {`, `test "x"`, ...) always begin a new item, so a missing `}` or
 * `;` costs one item, not the rest of the file.
 */
import { type IToken, type TokenType, tokenMatcher } from "chevrotain";
import {
  Actor,
  And,
  Comma,
  Declare,
  Extends,
  Fixture,
  Global,
  Ident,
  If,
  Iff,
  LCurly,
  LParen,
  Not,
  Or,
  QueryOp,
  RCurly,
  Resource,
  RParen,
  Semicolon,
  StringLiteral,
  Test,
  Type,
} from "./tokens.js";

/**
 * Expression nesting beyond this is refused before parsing: the parser recurses per level, and
 * so do later passes. Real policies stay far below it.
 */
export const MAX_NESTING = 64;

export interface ItemRange {
  /** Token indexes, half-open. */
  readonly start: number;
  readonly end: number;
}

function is(tokens: readonly IToken[], index: number, type: TokenType): boolean {
  const token = tokens[index];
  return token !== undefined && tokenMatcher(token, type);
}

/** An item start that no valid item contains, e.g. `resource Doc {` or `test "name"`. */
function isCertainItemStart(tokens: readonly IToken[], i: number): boolean {
  const type = tokens[i]!.tokenType;
  if (type === Actor || type === Resource) {
    return is(tokens, i + 1, Ident) && (is(tokens, i + 2, LCurly) || is(tokens, i + 2, Extends));
  }
  if (type === Global) return is(tokens, i + 1, LCurly);
  if (type === Test) return is(tokens, i + 1, StringLiteral) || is(tokens, i + 1, Fixture);
  if (type === Type || type === Declare)
    return is(tokens, i + 1, Ident) && is(tokens, i + 2, LParen);
  return type === QueryOp;
}

function isBracedItemStart(tokens: readonly IToken[], i: number): boolean {
  const type = tokens[i]!.tokenType;
  return (
    (type === Actor || type === Resource || type === Global || type === Test) &&
    isCertainItemStart(tokens, i)
  );
}

/**
 * Cuts `tokens` into items.
 *
 * @example
 * splitItems(lexPolicy({ name: "p", text: "actor User {} f(x);" }).tokens);
 * // [{ start: 0, end: 4 }, { start: 4, end: 9 }]
 */
export function splitItems(tokens: readonly IToken[]): ItemRange[] {
  const items: ItemRange[] = [];
  let start = 0;
  while (start < tokens.length) {
    const end = isBracedItemStart(tokens, start)
      ? endOfBracedItem(tokens, start)
      : endOfPlainItem(tokens, start);
    items.push({ start, end });
    start = end;
  }
  return items;
}

function endOfBracedItem(tokens: readonly IToken[], start: number): number {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    if (i > start && isCertainItemStart(tokens, i)) return i;
    const type = tokens[i]!.tokenType;
    if (type === LCurly) depth++;
    else if (type === RCurly && depth > 0) {
      depth--;
      if (depth === 0) return is(tokens, i + 1, Semicolon) ? i + 2 : i + 1;
    } else if (type === Semicolon && depth === 0) return i + 1;
  }
  return tokens.length;
}

function endOfPlainItem(tokens: readonly IToken[], start: number): number {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    if (i > start && isCertainItemStart(tokens, i)) return i;
    const type = tokens[i]!.tokenType;
    if (type === Semicolon) return i + 1;
    if (type === LCurly) depth++;
    else if (type === RCurly) {
      // Stray `}`s end the item so that it does not swallow the next one.
      if (depth === 0) {
        while (is(tokens, i + 1, RCurly)) i++;
        return i + 1;
      }
      depth--;
    }
  }
  return tokens.length;
}

/**
 * The first token at which expression nesting exceeds `MAX_NESTING`, or -1. Each open `(`
 * counts one level and so does each `not` of a chain like `not not x`; `and`, `or` and the
 * like end a chain.
 */
export function tooDeepAt(tokens: readonly IToken[], range: ItemRange): number {
  const notsPerLevel: number[] = [0];
  let depth = 0;
  for (let i = range.start; i < range.end; i++) {
    const type = tokens[i]!.tokenType;
    if (type === LParen) {
      notsPerLevel.push(0);
      depth++;
    } else if (type === Not) {
      notsPerLevel[notsPerLevel.length - 1]!++;
      depth++;
    } else if (type === RParen) {
      if (notsPerLevel.length > 1) depth -= notsPerLevel.pop()! + 1;
    } else if (type === And || type === Or || type === Comma || type === If || type === Iff) {
      depth -= notsPerLevel[notsPerLevel.length - 1]!;
      notsPerLevel[notsPerLevel.length - 1] = 0;
    } else if (type === Semicolon) {
      notsPerLevel.length = 1;
      notsPerLevel[0] = 0;
      depth = 0;
    }
    if (depth > MAX_NESTING) return i;
  }
  return -1;
}
