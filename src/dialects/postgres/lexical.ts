/**
 * PostgreSQL's lexical rules (with `standard_conforming_strings` on, the default since 9.1):
 * `'…'` strings with doubled quotes only; `E'…'` strings with backslash escapes; `U&'…'` and
 * `U&"…"` with Unicode escapes (a backslash there escapes no quote); bit and hex strings
 * `B'…'`, `X'…'`; `N'…'`; `"…"` identifiers; `$tag$ … $tag$` strings; `--` comments and block
 * comments that nest; `$1` parameters.
 */
import { type LexicalRules, quote } from "../../sql/lexical.js";

export const POSTGRES_LEXICAL: LexicalRules = {
  quotes: [
    quote("'", "string", { prefix: "U&" }),
    quote('"', "identifier", { prefix: "U&" }),
    quote("'", "string", { prefix: "E", backslash: true }),
    quote("'", "string", { prefix: "B" }),
    quote("'", "string", { prefix: "X" }),
    quote("'", "string", { prefix: "N" }),
    quote("'", "string"),
    quote('"', "identifier"),
  ],
  lineComments: ["--"],
  dashesNeedSpace: false,
  nestedBlockComments: true,
  executableComment: null,
  dollarQuotes: true,
  parameter: /\$[0-9]+/y,
};
