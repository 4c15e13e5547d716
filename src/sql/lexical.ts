/**
 * The lexical rules of one SQL dialect, as data: which quoted runs are strings and which are
 * identifiers, how each closes, which comments there are and how parameters look. The bindings
 * scanner (src/bindings/scan.ts) reads binding queries by these rules, so that `;`,
 * parentheses and parameters are only seen where the engine would see them.
 */

/** A quoted run: a string literal or a quoted identifier. */
export interface QuoteRule {
  /** Letters written before the quote (`E`, `U&`), matched without regard to case; "" for none. */
  readonly prefix: string;
  readonly open: string;
  readonly close: string;
  readonly kind: "string" | "identifier";
  /** A backslash takes the character after it into the run (`'it\'s'`). */
  readonly backslash: boolean;
  /** A doubled closing quote stands for one (`'it''s'`). */
  readonly doubled: boolean;
}

export interface LexicalRules {
  /** Longest prefix first: the first rule that matches at a position is taken. */
  readonly quotes: readonly QuoteRule[];
  /** Openers of comments that run to the end of the line. */
  readonly lineComments: readonly string[];
  /** `--` opens a comment only before whitespace or a control character. */
  readonly dashesNeedSpace: boolean;
  /** Block comments nest (`/* /* *\/ *\/`). */
  readonly nestedBlockComments: boolean;
  /**
   * The opener of a block comment whose text the engine runs as SQL (`/*! … *\/` where the
   * engine has such comments), or null; its text is scanned as SQL.
   */
  readonly executableComment: RegExp | null;
  /** `$tag$ … $tag$` strings. */
  readonly dollarQuotes: boolean;
  /** A parameter at a position (a sticky pattern). */
  readonly parameter: RegExp;
}

/** A quote rule with the common defaults: no prefix, closed by the opening character. */
export function quote(
  open: string,
  kind: QuoteRule["kind"],
  options: Partial<Omit<QuoteRule, "open" | "kind">> = {},
): QuoteRule {
  return {
    prefix: options.prefix ?? "",
    open,
    close: options.close ?? open,
    kind,
    backslash: options.backslash ?? false,
    doubled: options.doubled ?? true,
  };
}
