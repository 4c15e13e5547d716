/**
 * Checks that a binding query is one SELECT-like statement that can be pasted verbatim as a
 * CTE body (docs/local-authorization.md#fact-signatures), and reads what the compiler needs
 * from its text: a plain scan of one table, the width of its select list. The text is read
 * by the tokens of its dialect (src/bindings/scan.ts, with each dialect's lexical rules in
 * src/dialects/<name>/lexical.ts), so that `;`, parentheses and `$1` are only seen where the engine
 * would see them.
 */

import { DEFAULT_DIALECT, type DialectName } from "../dialects/registry.js";
import { describeQueryDefect, type QueryDefect } from "./problems.js";
import { scanSql, type Token } from "./scan.js";

type QueryCheck =
  /** `query` is the text to paste: trailing whitespace and `;` removed. */
  | { readonly kind: "query"; readonly query: string }
  /** `problem` completes "query of binding `sig` …". */
  | { readonly kind: "error"; readonly problem: string };

/** Like `QueryCheck`, with the defect as data (src/bindings/problems.ts writes its text). */
type QueryRead =
  | { readonly kind: "query"; readonly query: string }
  | { readonly kind: "error"; readonly defect: QueryDefect };

const SELECT_LIKE = new Set(["select", "with", "values", "table"]);

function isPunct(token: Token | undefined, text: string): boolean {
  return token?.kind === "punct" && token.text === text;
}

function parenthesesBalance(tokens: readonly Token[]): boolean {
  let depth = 0;
  for (const token of tokens) {
    if (isPunct(token, "(")) depth++;
    else if (isPunct(token, ")") && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * Validates a binding query and returns the text to paste.
 *
 *   checkBindingQuery("SELECT id FROM t;\n")      // { kind: "query", query: "SELECT id FROM t" }
 *   checkBindingQuery("SELECT 1; DELETE FROM t") // { kind: "error", problem: "must be one statement; …" }
 */
export function checkBindingQuery(text: string, syntax: DialectName = DEFAULT_DIALECT): QueryCheck {
  const read = readBindingQuery(text, syntax);
  return read.kind === "query"
    ? read
    : { kind: "error", problem: describeQueryDefect(read.defect) };
}

/**
 * Validates a binding query: the text to paste, or what is wrong with it.
 *
 *   readBindingQuery("") // { kind: "error", defect: { kind: "empty" } }
 */
export function readBindingQuery(text: string, syntax: DialectName = DEFAULT_DIALECT): QueryRead {
  const fail = (defect: QueryDefect): QueryRead => ({ kind: "error", defect });
  const scan = scanSql(text, syntax);
  if (scan.unterminated) return fail({ kind: "unterminated", what: scan.unterminated });
  let end = scan.tokens.length;
  while (end > 0 && isPunct(scan.tokens[end - 1], ";")) end--;
  const tokens = scan.tokens.slice(0, end);
  const cut = scan.tokens[end]?.start ?? text.length;
  let query = text.slice(0, cut).trimEnd();
  if (tokens.length === 0) return fail({ kind: "empty" });
  if (tokens.some((token) => isPunct(token, ";"))) return fail({ kind: "several-statements" });
  const first = tokens.find((token) => !isPunct(token, "("));
  if (first?.kind !== "word" || !SELECT_LIKE.has(first.text.toLowerCase())) {
    return fail({ kind: "not-select", found: first ? first.text : null });
  }
  if (!parenthesesBalance(tokens)) return fail({ kind: "unbalanced" });
  const parameter = tokens.find((token) => token.kind === "parameter");
  if (parameter) return fail({ kind: "parameter", parameter: parameter.text });
  // A `--` comment running to the end would swallow whatever SQL is written after the query.
  const length = query.length;
  if (scan.lineComments.some(([start, stop]) => start < length && stop >= length)) query += "\n";
  return { kind: "query", query };
}

// ---------------------------------------------------------------- plain table scans

/** Words that make a query more than a filter over one table's rows. */
const NOT_PLAIN = new Set([
  "group",
  "having",
  "window",
  "order",
  "limit",
  "offset",
  "fetch",
  "for",
  "union",
  "intersect",
  "except",
]);

function isWord(token: Token | undefined, word: string): boolean {
  return token?.kind === "word" && token.text.toLowerCase() === word;
}

/** The name an identifier token stands for: unquoted folded to lower case, quoted as written. */
function identifierName(token: Token | undefined): string | null {
  if (token?.kind === "word") return token.text.toLowerCase();
  if (token?.kind !== "identifier" || !token.name) return null;
  return token.name;
}

/** `name` or `schema.name` starting at `at`: its canonical form and the index after it. */
function qualifiedName(
  tokens: readonly Token[],
  at: number,
): { name: string; next: number } | null {
  const first = identifierName(tokens[at]);
  if (first === null) return null;
  if (!isPunct(tokens[at + 1], ".")) return { name: JSON.stringify([first]), next: at + 1 };
  const second = identifierName(tokens[at + 2]);
  if (second === null) return null;
  return { name: JSON.stringify([first, second]), next: at + 3 };
}

/** A binding query that reads rows of one table: `SELECT items FROM table [WHERE condition]`. */
export interface PlainScan {
  /** The table as written. */
  readonly table: string;
  /** The table's canonical name (see `tableName`): equal names are the same table. */
  readonly tableName: string;
  /** The select items as written. */
  readonly items: readonly string[];
  /** The canonical column name of each item that is a bare column, else null. */
  readonly columns: readonly (string | null)[];
  /** The WHERE condition as written (none or one; more for scans merged by keys), all must hold. */
  readonly conditions: readonly string[];
}

/**
 * The canonical name of a table or column name as written (`Docs`, `public."Docs"`), or null
 * when the text is not one.
 *
 *   tableName("public.Docs") === tableName('public."docs"') // true
 */
export function tableName(text: string, syntax: DialectName = DEFAULT_DIALECT): string | null {
  const { tokens, unterminated } = scanSql(text, syntax);
  if (unterminated) return null;
  const name = qualifiedName(tokens, 0);
  return name && name.next === tokens.length ? name.name : null;
}

/**
 * Recognizes a plain scan of one table (no DISTINCT, join, alias, grouping, ordering, limit or
 * set operation); null for any other query. Such scans of the same table can be read as one
 * when a key says they meet on the same row.
 *
 *   plainScan("SELECT id, org_id FROM docs WHERE NOT archived")
 *   // { table: "docs", items: ["id", "org_id"], columns: ['["id"]', '["org_id"]'], conditions: ["NOT archived"], … }
 */
export function plainScan(query: string, syntax: DialectName = DEFAULT_DIALECT): PlainScan | null {
  const { tokens, unterminated } = scanSql(query, syntax);
  if (unterminated || !isWord(tokens[0], "select")) return null;
  if (isWord(tokens[1], "distinct") || isWord(tokens[1], "all")) return null;
  const items: string[] = [];
  const columns: (string | null)[] = [];
  let depth = 0;
  let itemStart = 1;
  let from = -1;
  for (let i = 1; i < tokens.length && from < 0; i++) {
    const token = tokens[i]!;
    if (isPunct(token, "(")) depth++;
    else if (isPunct(token, ")")) depth--;
    else if (depth > 0) continue;
    const ends = isPunct(token, ",") || isWord(token, "from");
    if (!ends) continue;
    if (i === itemStart) return null;
    const item = query.slice(tokens[itemStart]!.start, token.start).trim();
    const last = tokens[i - 1]!;
    if (isPunct(last, "*")) return null; // `*` and `t.*` stand for several columns
    items.push(item);
    const bare = i === itemStart + 1 ? identifierName(tokens[itemStart]) : null;
    columns.push(bare === null ? null : JSON.stringify([bare]));
    itemStart = i + 1;
    if (isWord(token, "from")) from = i;
  }
  if (from < 0) return null;
  const table = qualifiedName(tokens, from + 1);
  if (!table) return null;
  const tableText = query.slice(
    tokens[from + 1]!.start,
    tokens[table.next - 1]!.start + tokens[table.next - 1]!.text.length,
  );
  if (table.next === tokens.length) {
    return { table: tableText, tableName: table.name, items, columns, conditions: [] };
  }
  if (!isWord(tokens[table.next], "where") || table.next + 1 === tokens.length) return null;
  depth = 0;
  for (const token of tokens.slice(table.next + 1)) {
    if (isPunct(token, "(")) depth++;
    else if (isPunct(token, ")")) depth--;
    else if (depth === 0 && token.kind === "word" && NOT_PLAIN.has(token.text.toLowerCase())) {
      return null;
    }
  }
  const condition = query.slice(tokens[table.next + 1]!.start).trimEnd();
  return { table: tableText, tableName: table.name, items, columns, conditions: [condition] };
}

// ---------------------------------------------------------------- select-list width

/** Words that end a SELECT list at the top level. */
const AFTER_SELECT_LIST = new Set([
  "from",
  "into",
  "where",
  "group",
  "having",
  "window",
  "union",
  "intersect",
  "except",
  "order",
  "limit",
  "offset",
  "fetch",
  "for",
]);

/** How many columns a query returns, counted from its text, and where they are listed. */
interface SelectListWidth {
  readonly columns: number;
  /** `[start, end)` of each item (of a SELECT list; empty for VALUES). */
  readonly items: readonly (readonly [number, number])[];
  /** `[start, end)` of the select list (or of the first VALUES row) in the query. */
  readonly start: number;
  readonly end: number;
}

/**
 * The number of columns of `SELECT [DISTINCT [ON (…)] | ALL] items …` or `VALUES (…), …` when
 * the text says it plainly; null when it does not (`*`, `t.*`, `WITH`, `TABLE`, a query in
 * parentheses): the database then tells (`bindings check`).
 *
 *   selectListWidth("SELECT id, org_id FROM repos")   // { columns: 2, items: [[7, 9], [11, 17]], start: 7, end: 17 }
 *   selectListWidth("SELECT * FROM repos")            // null
 */
export function selectListWidth(
  query: string,
  syntax: DialectName = DEFAULT_DIALECT,
): SelectListWidth | null {
  const { tokens, unterminated } = scanSql(query, syntax);
  if (unterminated) return null;
  if (isWord(tokens[0], "values")) return valuesWidth(query, tokens);
  if (!isWord(tokens[0], "select")) return null;
  let first = 1;
  if (isWord(tokens[1], "all")) first = 2;
  else if (isWord(tokens[1], "distinct")) {
    first = 2;
    if (isWord(tokens[2], "on")) {
      const close = closingParenthesis(tokens, 3);
      if (close < 0) return null;
      first = close + 1;
    }
  }
  let depth = 0;
  let columns = 0;
  const items: [number, number][] = [];
  let itemStart = first;
  let last = first;
  for (; last <= tokens.length; last++) {
    const token = tokens[last];
    const ends =
      token === undefined ||
      (depth === 0 &&
        (isPunct(token, ",") ||
          (token.kind === "word" && AFTER_SELECT_LIST.has(token.text.toLowerCase()))));
    if (!ends) {
      if (isPunct(token, "(") || isPunct(token, "[")) depth++;
      else if (isPunct(token, ")") || isPunct(token, "]")) depth--;
      continue;
    }
    if (last === itemStart) {
      // `SELECT FROM t` has no columns; an empty item between commas is not plain.
      if (columns === 0 && !isPunct(token, ",")) break;
      return null;
    }
    if (isPunct(tokens[last - 1], "*")) return null; // `*` and `t.*` stand for several columns
    const lastToken = tokens[last - 1]!;
    items.push([tokens[itemStart]!.start, lastToken.start + lastToken.text.length]);
    columns++;
    itemStart = last + 1;
    if (!isPunct(token, ",")) break;
  }
  const start = tokens[first]?.start ?? query.length;
  const lastItem = tokens[Math.max(first, last - 1)];
  const end =
    last > first && lastItem
      ? lastItem.start + lastItem.text.length
      : Math.min(start, query.length);
  return { columns, items, start: Math.min(start, end), end };
}

/** Index of the `)` closing the `(` at `open`, or -1. */
function closingParenthesis(tokens: readonly Token[], open: number): number {
  if (!isPunct(tokens[open], "(")) return -1;
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], "(")) depth++;
    else if (isPunct(tokens[i], ")") && --depth === 0) return i;
  }
  return -1;
}

function valuesWidth(query: string, tokens: readonly Token[]): SelectListWidth | null {
  const close = closingParenthesis(tokens, 1);
  if (close < 0 || close === 2) return null;
  let depth = 0;
  let columns = 1;
  for (let i = 2; i < close; i++) {
    if (isPunct(tokens[i], "(") || isPunct(tokens[i], "[")) depth++;
    else if (isPunct(tokens[i], ")") || isPunct(tokens[i], "]")) depth--;
    else if (depth === 0 && isPunct(tokens[i], ",")) columns++;
  }
  const end = tokens[close]!.start + 1;
  return { columns, items: [], start: tokens[1]!.start, end: Math.min(end, query.length) };
}
