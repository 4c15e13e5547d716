/**
 * SQLite's lexical rules: `'…'` strings with doubled quotes (no backslash escapes) and `X'…'`
 * blobs; `"…"`, `` `…` `` and `[…]` identifiers (brackets close at the first `]`); `--` comments
 * and block comments that do not nest; `?`, `?1`, `:name`, `@name` and `$name` parameters.
 */
import { type LexicalRules, quote } from "../../sql/lexical.js";

export const SQLITE_LEXICAL: LexicalRules = {
  quotes: [
    quote("'", "string", { prefix: "X" }),
    quote("'", "string"),
    quote('"', "identifier"),
    quote("`", "identifier"),
    quote("[", "identifier", { close: "]", doubled: false }),
  ],
  lineComments: ["--"],
  dashesNeedSpace: false,
  nestedBlockComments: false,
  executableComment: null,
  dollarQuotes: false,
  parameter: /\?[0-9]*|[:@$][A-Za-z_][A-Za-z0-9_]*/y,
};
