/**
 * Token types of Polar (docs/policy-language.md#lexical-structure). The order of `allTokens` is the lexer's priority order:
 * first match wins, and keywords fall back to `Name` through `longer_alt`.
 */
import { createToken, Lexer, type TokenType } from "chevrotain";
import { BUILTIN_SPELLINGS } from "../builtins/registry.js";

// The classes of docs/policy-language.md#names: a name character is anything but whitespace and ASCII punctuation;
// digits may not start a name. The `u` flag makes a surrogate pair one character.
const NAME_CHAR = "[^\\s!-\\/:-@\\[-^`{-~]";
const NAME_START = "[^\\s!-\\/:-@\\[-^`{-~0-9]";
const NAME_BODY = `${NAME_START}${NAME_CHAR}*(?:::${NAME_CHAR}+)*`;
/** A name, optionally followed by a dangling `::` (group 1, an error) and a trailing `?`. */
const NAME_RE = new RegExp(`${NAME_BODY}(::)?\\??`, "uy");
const FLAG_RE = new RegExp(`@${NAME_BODY}\\??`, "uy");
const NAME_START_RE = new RegExp(`^${NAME_START}$`, "u");

/** Payload of a `Name` token whose text ends in `::`. */
export const DANGLING_COLONS = "dangling-colons";

function nameStartHint(): number[] {
  const hint: number[] = [];
  for (let code = 0; code < 256; code++) {
    if (NAME_START_RE.test(String.fromCharCode(code))) hint.push(code);
  }
  // Chevrotain buckets char codes above 255 by 255; one representative per bucket suffices.
  for (let code = 256; code < 65536; code++) {
    if (code === 256 || code % 255 === 0) hint.push(code);
  }
  return hint;
}

function matchName(text: string, offset: number): RegExpExecArray | null {
  NAME_RE.lastIndex = offset;
  const match = NAME_RE.exec(text);
  if (match?.[1] !== undefined)
    (match as RegExpExecArray & { payload?: string }).payload = DANGLING_COLONS;
  return match;
}

function matchFlag(text: string, offset: number): RegExpExecArray | null {
  FLAG_RE.lastIndex = offset;
  return FLAG_RE.exec(text);
}

/** Every builtin's spelling, the longest first: a spelling that begins another loses to it. */
function builtinPattern(): RegExp {
  const spellings = [...BUILTIN_SPELLINGS];
  spellings.sort((a, b) => b.length - a.length);
  return new RegExp(spellings.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));
}

/** How a string token ended; stored as the token's payload. */
export type StringEnding = "closed" | "unterminated" | "multiline";

/**
 * Matches a string literal, also a broken one so that the parser can go on:
 * - closed on its line: the normal case;
 * - a line break inside, closed later (`multiline`): chosen when the closing line holds an even
 *   number of further quotes, i.e. the quote really closes this string;
 * - otherwise `unterminated`: the token ends at the line break (or the end of input).
 */
function matchString(
  text: string,
  offset: number,
): (RegExpExecArray & { payload: StringEnding }) | null {
  if (text.charCodeAt(offset) !== 34) return null;
  let i = offset + 1;
  let firstBreak = -1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 34) {
      if (firstBreak < 0) return stringMatch(text, offset, i + 1, "closed");
      if (quotesBalanceRestOfLine(text, i + 1))
        return stringMatch(text, offset, i + 1, "multiline");
      return stringMatch(text, offset, firstBreak, "unterminated");
    }
    if (code === 10 || code === 13) {
      if (firstBreak < 0) firstBreak = i;
      i++;
    } else if (code === 92) {
      const next = text.charCodeAt(i + 1);
      if ((next === 10 || next === 13) && firstBreak < 0) firstBreak = i + 1;
      i += 2;
    } else {
      i++;
    }
  }
  return stringMatch(text, offset, firstBreak < 0 ? text.length : firstBreak, "unterminated");
}

function quotesBalanceRestOfLine(text: string, from: number): boolean {
  let quotes = 0;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) break;
    if (code === 92) i++;
    else if (code === 34) quotes++;
  }
  return quotes % 2 === 0;
}

function stringMatch(
  text: string,
  start: number,
  end: number,
  payload: StringEnding,
): RegExpExecArray & { payload: StringEnding } {
  const match = [text.slice(start, Math.min(end, text.length))] as unknown as RegExpExecArray & {
    payload: StringEnding;
  };
  match.payload = payload;
  return match;
}

// ---------------------------------------------------------------- categories

/** Anything usable as a name: `Name` and the contextual keywords. */
export const Ident = createToken({ name: "Ident", pattern: Lexer.NA, label: "Name" });

// ---------------------------------------------------------------- trivia and literals

const WhiteSpace = createToken({
  name: "WhiteSpace",
  pattern: /\s+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});
const Comment = createToken({ name: "Comment", pattern: /#[^\n\r]*/, group: Lexer.SKIPPED });
export const StringLiteral = createToken({
  name: "StringLiteral",
  pattern: { exec: matchString },
  start_chars_hint: ['"'],
  line_breaks: true,
  label: "String",
});
/** Integers; the float form is lexed too so that `1.5` gets a clear error (docs/policy-language.md#numbers). */
export const Integer = createToken({
  name: "Integer",
  pattern: /[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/,
  label: "Integer",
});
export const Flag = createToken({
  name: "Flag",
  pattern: { exec: matchFlag },
  start_chars_hint: ["@"],
  line_breaks: false,
  label: "@flag",
});
/** A builtin value (src/builtins/registry.ts); a longer word after `@` is a flag. */
export const Builtin = createToken({
  name: "Builtin",
  pattern: builtinPattern(),
  start_chars_hint: ["@"],
  longer_alt: Flag,
  label: BUILTIN_SPELLINGS.join(" | "),
});
export const Name = createToken({
  name: "Name",
  pattern: { exec: matchName },
  start_chars_hint: nameStartHint(),
  line_breaks: false,
  categories: [Ident],
  label: "Name",
});

// ---------------------------------------------------------------- keywords

function reserved(word: string, name: string): TokenType {
  return createToken({ name, pattern: word, longer_alt: Name, label: word });
}
function contextual(word: string, name: string): TokenType {
  return createToken({ name, pattern: word, longer_alt: Name, categories: [Ident], label: word });
}

export const MatchesBang = createToken({
  name: "MatchesBang",
  pattern: "matches!",
  label: "matches!",
});
export const Iff = contextual("iff", "Iff");
export const If = reserved("if", "If");
export const And = reserved("and", "And");
export const Or = reserved("or", "Or");
export const Not = reserved("not", "Not");
export const In = reserved("in", "In");
export const Matches = reserved("matches", "Matches");
export const True = reserved("true", "True");
export const False = reserved("false", "False");

export const Actor = contextual("actor", "Actor");
export const Resource = contextual("resource", "Resource");
export const Global = contextual("global", "Global");
export const Extends = contextual("extends", "Extends");
export const Type = contextual("type", "Type");
export const Declare = contextual("declare", "Declare");
export const Test = contextual("test", "Test");
export const Fixture = contextual("fixture", "Fixture");
export const Setup = contextual("setup", "Setup");
export const AssertNot = contextual("assert_not", "AssertNot");
export const Assert = contextual("assert", "Assert");
export const On = contextual("on", "On");

// ---------------------------------------------------------------- operators and punctuation

export const QueryOp = createToken({ name: "QueryOp", pattern: "?=", label: "?=" });
export const NotEq = createToken({ name: "NotEq", pattern: "!=", label: "!=" });
export const LtEq = createToken({ name: "LtEq", pattern: "<=", label: "<=" });
export const GtEq = createToken({ name: "GtEq", pattern: ">=", label: ">=" });
export const Lt = createToken({ name: "Lt", pattern: "<", label: "<" });
export const Gt = createToken({ name: "Gt", pattern: ">", label: ">" });
export const Eq = createToken({ name: "Eq", pattern: "=", label: "=" });
/** `==` is not Polar; it parses as `=` and the lexer reports a hint (docs/policy-language.md#diagnostics). */
export const DoubleEq = createToken({
  name: "DoubleEq",
  pattern: "==",
  categories: [Eq],
  label: "==",
});
export const LParen = createToken({ name: "LParen", pattern: "(", label: "(" });
export const RParen = createToken({ name: "RParen", pattern: ")", label: ")" });
export const LCurly = createToken({ name: "LCurly", pattern: "{", label: "{" });
export const RCurly = createToken({ name: "RCurly", pattern: "}", label: "}" });
export const LBracket = createToken({ name: "LBracket", pattern: "[", label: "[" });
export const RBracket = createToken({ name: "RBracket", pattern: "]", label: "]" });
export const Comma = createToken({ name: "Comma", pattern: ",", label: "," });
export const Semicolon = createToken({ name: "Semicolon", pattern: ";", label: ";" });
export const Colon = createToken({ name: "Colon", pattern: ":", label: ":" });
/** Not Polar; lexed only to explain `user.name` (docs/policy-language.md#diagnostics). Never reaches the parser. */
export const Dot = createToken({ name: "Dot", pattern: ".", label: "." });
/**
 * Any other ASCII punctuation character. Reported and dropped by the lexer pass; matching it
 * as a token is much cheaper than Chevrotain's error path on junk input.
 */
export const Unexpected = createToken({
  name: "Unexpected",
  pattern: /[!-/:-@[-^`{-~]/,
  label: "unexpected character",
});

const keywordTokens: readonly TokenType[] = [
  MatchesBang,
  Iff,
  If,
  And,
  Or,
  Not,
  In,
  Matches,
  True,
  False,
  Actor,
  Resource,
  Global,
  Extends,
  Type,
  Declare,
  Test,
  Fixture,
  Setup,
  AssertNot,
  Assert,
  On,
];

/** Every token type in lexer priority order (categories included for the parser). */
export const allTokens: readonly TokenType[] = [
  WhiteSpace,
  Comment,
  StringLiteral,
  Integer,
  Builtin,
  Flag,
  ...keywordTokens,
  Name,
  QueryOp,
  NotEq,
  LtEq,
  GtEq,
  DoubleEq,
  Lt,
  Gt,
  Eq,
  LParen,
  RParen,
  LCurly,
  RCurly,
  LBracket,
  RBracket,
  Comma,
  Semicolon,
  Colon,
  Dot,
  Unexpected,
  Ident,
];
