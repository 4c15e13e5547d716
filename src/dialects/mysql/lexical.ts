/**
 * MySQL's and MariaDB's lexical rules under the default `sql_mode` (neither `ANSI_QUOTES` nor
 * `NO_BACKSLASH_ESCAPES`): `'…'` and `"…"` are strings in which a backslash escapes the next
 * character and a doubled quote stands for one; `N'…'`, `X'…'` and `B'…'` likewise;
 * `` `…` `` identifiers; `#` comments, and `--` comments only before whitespace or a control
 * character; block comments that do not nest, except `/*! … *\/` and `/*M! … *\/`, whose text
 * the server runs; `?` parameters.
 */
import { type LexicalRules, quote } from "../../sql/lexical.js";

const string = (open: string, prefix = "") =>
  quote(open, "string", { prefix, backslash: true, doubled: true });

export const MYSQL_LEXICAL: LexicalRules = {
  quotes: [
    string("'", "N"),
    string("'", "X"),
    string("'", "B"),
    string("'"),
    string('"'),
    quote("`", "identifier"),
  ],
  lineComments: ["--", "#"],
  dashesNeedSpace: true,
  nestedBlockComments: false,
  executableComment: /\/\*M?![0-9]*/y,
  dollarQuotes: false,
  parameter: /\?/y,
};
