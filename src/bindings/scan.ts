/**
 * The tokens of a binding query, read by its dialect's lexical rules (src/dialects/<name>/lexical.ts):
 * strings, quoted identifiers and comments are skipped as the engine skips them, so that `;`,
 * parentheses, parameters and names are only seen where the engine would see them.
 */
import {
  DEFAULT_DIALECT,
  DIALECT_NAMES,
  DIALECTS,
  type DialectName,
} from "../dialects/registry.js";
import type { LexicalRules, QuoteRule } from "../sql/lexical.js";

export interface Token {
  /** `literal`: a string or a number; `identifier`: a quoted name. */
  readonly kind: "word" | "punct" | "literal" | "identifier" | "parameter";
  readonly text: string;
  readonly start: number;
  /** The name a quoted identifier stands for; null when it has escapes the scanner leaves. */
  readonly name?: string | null;
}

export interface Scan {
  readonly tokens: readonly Token[];
  /** `[start, end)` of each line comment; `end` is the line break or the end of the text. */
  readonly lineComments: readonly (readonly [number, number])[];
  /** What is left open at the end of the text, if anything. */
  readonly unterminated?: string;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_REST = /[A-Za-z0-9_$\u0080-\uffff]*/y;
const NUMBER = /[0-9.][0-9A-Za-z_.]*/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

function matchAt(pattern: RegExp, text: string, at: number): string | null {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0] ?? null;
}

/** End (exclusive) of the quoted run whose opening quote is at `at`, or -1 when it is open. */
function closeQuote(text: string, at: number, rule: QuoteRule): number {
  let i = at + rule.open.length;
  while (i < text.length) {
    if (rule.backslash && text[i] === "\\") i += 2;
    else if (!text.startsWith(rule.close, i)) i++;
    else if (rule.doubled && text.startsWith(rule.close, i + rule.close.length)) i += 2;
    else return i + rule.close.length;
  }
  return -1;
}

/** End of the block comment opened at `at`, or -1. */
function closeBlockComment(text: string, at: number, nested: boolean): number {
  if (!nested) {
    const close = text.indexOf("*/", at + 2);
    return close === -1 ? -1 : close + 2;
  }
  let depth = 0;
  let i = at;
  while (i < text.length) {
    if (text.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (text.startsWith("*/", i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}

/** Characters that may start a quoted run in some dialect (a prefix letter or a quote). */
const QUOTE_STARTS = new Set(
  DIALECT_NAMES.flatMap((name) =>
    DIALECTS[name].lexical.quotes.flatMap((rule) => {
      const first = rule.prefix.charAt(0) || rule.open;
      return [first.toUpperCase(), first.toLowerCase()];
    }),
  ),
);

/** Characters that may start a parameter in some dialect. */
const PARAMETER_STARTS = new Set(["$", "?", ":", "@"]);

/** The quote rule whose prefix and opening quote stand at `at`. */
function quoteAt(rules: LexicalRules, text: string, at: number): QuoteRule | undefined {
  if (!QUOTE_STARTS.has(text[at]!)) return undefined;
  return rules.quotes.find(
    (rule) =>
      text.slice(at, at + rule.prefix.length).toUpperCase() === rule.prefix &&
      text.startsWith(rule.open, at + rule.prefix.length),
  );
}

/** The name a quoted identifier stands for (null with a prefix, whose escapes stay unread). */
function quotedName(rule: QuoteRule, text: string): string | null {
  if (rule.prefix !== "") return null;
  const inner = text.slice(rule.open.length, text.length - rule.close.length);
  return rule.doubled ? inner.replaceAll(rule.close + rule.close, rule.close) : inner;
}

function lineCommentAt(rules: LexicalRules, text: string, at: number): boolean {
  for (const open of rules.lineComments) {
    if (!text.startsWith(open, at)) continue;
    if (open !== "--" || !rules.dashesNeedSpace) return true;
    const next = text[at + 2];
    return next === undefined || /[\s\x00-\x1f]/.test(next);
  }
  return false;
}

/**
 * The tokens of `text` in the dialect's syntax.
 *
 *   scanSql("SELECT 'it''s'", "sqlite").tokens.map((t) => t.kind) // ["word", "literal"]
 */
export function scanSql(text: string, syntax: DialectName = DEFAULT_DIALECT): Scan {
  const rules = DIALECTS[syntax].lexical;
  const tokens: Token[] = [];
  const lineComments: [number, number][] = [];
  /** Open executable comments (`rules.executableComment`), whose text is SQL. */
  let executable = 0;
  let i = 0;
  const unterminated = (what: string): Scan => ({ tokens, lineComments, unterminated: what });
  const push = (kind: Token["kind"], end: number) => {
    tokens.push({ kind, text: text.slice(i, end), start: i });
    i = end;
  };
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    const rule = quoteAt(rules, text, i);
    const opener =
      char === "/" && rules.executableComment && matchAt(rules.executableComment, text, i);
    const parameter = PARAMETER_STARTS.has(char) ? matchAt(rules.parameter, text, i) : null;
    if (lineCommentAt(rules, text, i)) {
      const newline = text.slice(i).search(/[\r\n]/);
      const end = newline === -1 ? text.length : i + newline;
      lineComments.push([i, end]);
      i = end;
    } else if (opener) {
      executable++;
      i += opener.length;
    } else if (executable > 0 && text.startsWith("*/", i)) {
      executable--;
      i += 2;
    } else if (text.startsWith("/*", i)) {
      i = closeBlockComment(text, i, rules.nestedBlockComments);
      if (i === -1) return unterminated("block comment");
    } else if (rule) {
      const end = closeQuote(text, i + rule.prefix.length, rule);
      if (end === -1) return unterminated(QUOTED_WHAT[rule.kind]);
      if (rule.kind === "string") push("literal", end);
      else {
        const name = quotedName(rule, text.slice(i + rule.prefix.length, end));
        tokens.push({ kind: "identifier", text: text.slice(i, end), start: i, name });
        i = end;
      }
    } else if (char === "$" && rules.dollarQuotes && matchAt(DOLLAR_TAG, text, i)) {
      const tag = matchAt(DOLLAR_TAG, text, i)!;
      const close = text.indexOf(tag, i + tag.length);
      if (close === -1) return unterminated("dollar-quoted string");
      push("literal", close + tag.length);
    } else if (parameter) {
      push("parameter", i + parameter.length);
    } else if (WORD_START.test(char)) {
      push("word", i + 1 + matchAt(WORD_REST, text, i + 1)!.length);
    } else if (/[0-9]/.test(char) || (char === "." && /[0-9]/.test(text[i + 1] ?? ""))) {
      push("literal", i + matchAt(NUMBER, text, i)!.length);
    } else push("punct", i + 1);
  }
  if (executable > 0) return unterminated("block comment");
  return { tokens, lineComments };
}

const QUOTED_WHAT: Readonly<Record<QuoteRule["kind"], string>> = {
  string: "string literal",
  identifier: "quoted identifier",
};
