/**
 * Syntax error messages in the house style (`` unexpected `}`; expected `;` ``).
 *
 * Chevrotain asks the provider for a message right before it records each error, so the
 * provider also notes, in the same order, which token is really at fault and what was
 * expected: for a failed alternative that is the first token no alternative accepts, which may
 * lie after the token Chevrotain reports.
 */
import {
  EOF,
  type IParserErrorMessageProvider,
  type IToken,
  type TokenType,
  tokenMatcher,
} from "chevrotain";
import { BUILTIN_SPELLINGS } from "../builtins/registry.js";
import { tick } from "../source/diagnostic.js";
import { Builtin, Flag, Ident, Integer, StringLiteral } from "./tokens.js";

export interface SyntaxProblem {
  /** The offending token; Chevrotain's EOF when the input (or the item) ended. */
  readonly token: IToken;
  /** What would have been accepted, already phrased; null when nothing specific. */
  readonly expected: string | null;
}

/** Problems of the current parse, in the order Chevrotain records its errors. */
export const syntaxProblems: SyntaxProblem[] = [];

/** Enough errors for one item: reading more is pointless, and recovery recurses per error. */
const MAX_SYNTAX_ERRORS = 20;

/** Thrown through Chevrotain to stop parsing an item that has too many errors. */
export class TooManySyntaxErrors extends Error {}

/** What a failed choice in these rules was looking for, when it failed at its first token. */
const RULE_EXPECTATIONS: Readonly<Record<string, string>> = {
  item: "a rule, a block, a test or a declaration",
  blockMember: "a declaration or a shorthand rule",
  notExpr: "a condition",
  atom: "a condition",
  sNot: "a condition",
  sAtom: "a condition",
  term: "a term",
  param: "a parameter",
  setupEntry: "a fact or `fixture`",
  sTerm: "a string or a name",
};

const TOKEN_DESCRIPTIONS = new Map<TokenType, string>([
  [Ident, "a name"],
  [StringLiteral, "a string"],
  [Integer, "an integer"],
  [Flag, "a rule flag"],
  [Builtin, oneOf(BUILTIN_SPELLINGS.map(tick))],
  [EOF, "end of input"],
]);

function describeTokenType(type: TokenType): string {
  return TOKEN_DESCRIPTIONS.get(type) ?? tick(type.LABEL ?? type.name);
}

/** `a`, `a or b`, `a, b or c` */
export function oneOf(options: readonly string[]): string {
  const unique = [...new Set(options)];
  if (unique.length <= 1) return unique[0] ?? "";
  return `${unique.slice(0, -1).join(", ")} or ${unique[unique.length - 1]}`;
}

function record(token: IToken, expected: string | null): string {
  if (syntaxProblems.length >= MAX_SYNTAX_ERRORS) throw new TooManySyntaxErrors();
  syntaxProblems.push({ token, expected });
  return expected ? `unexpected ${token.image}; expected ${expected}` : `unexpected ${token.image}`;
}

/** The first token no path accepts, and what the longest matching paths wanted there. */
function divergence(
  paths: readonly (readonly TokenType[])[],
  actual: readonly IToken[],
): { index: number; expected: TokenType[] } {
  let best = 0;
  let expected: TokenType[] = [];
  for (const path of paths) {
    let matched = 0;
    while (
      matched < path.length &&
      matched < actual.length &&
      tokenMatcher(actual[matched]!, path[matched]!)
    ) {
      matched++;
    }
    if (matched >= path.length) continue;
    if (matched > best) {
      best = matched;
      expected = [];
    }
    if (matched === best) expected.push(path[matched]!);
  }
  return { index: best, expected };
}

function describeChoice(
  paths: readonly (readonly TokenType[])[],
  actual: readonly IToken[],
  ruleName: string,
): string {
  const { index, expected } = divergence(paths, actual);
  const token = actual[index] ?? actual[0]!;
  const phrase =
    index === 0 && RULE_EXPECTATIONS[ruleName]
      ? RULE_EXPECTATIONS[ruleName]!
      : oneOf(expected.map(describeTokenType));
  return record(token, phrase || null);
}

export const errorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    return record(actual, describeTokenType(expected));
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return record(firstRedundant, null);
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    return describeChoice(expectedPathsPerAlt.flat(), actual, ruleName);
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, ruleName }) {
    return describeChoice(expectedIterationPaths, actual, ruleName);
  },
};
