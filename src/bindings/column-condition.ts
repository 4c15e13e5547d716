/**
 * A plain scan's WHERE condition written for another FROM clause: every column it names
 * qualified by the alias the scan is read under, so that the condition can join the WHERE of
 * a SELECT that reads the table itself beside other tables (src/lower/inline-scans.ts).
 *
 * Only conditions whose every word is known to be a column or a keyword qualify: conjunctions
 * (AND) of `[NOT] col`, `col IS [NOT] NULL|TRUE|FALSE`, `col <op> literal` (either side) and
 * `col [NOT] IN (literal, …)`, where `col` is an unquoted name that no engine reads as a value.
 * Anything else (functions, quoted names, comments, OR) is null, and the scan keeps its own
 * SELECT.
 *
 *   qualifiedCondition("parent_id IS NOT NULL AND NOT archived", "f0")
 *   // "f0.parent_id IS NOT NULL AND NOT f0.archived"
 */
import { DEFAULT_DIALECT, type DialectName } from "../dialects/registry.js";
import { scanSql, type Token } from "./scan.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words that name no column in a condition: SQL reads them as values or as syntax. */
const NOT_COLUMNS = new Set([
  "and",
  "or",
  "not",
  "is",
  "in",
  "null",
  "true",
  "false",
  "unknown",
  "default",
  "user",
  "current_user",
  "session_user",
  "current_role",
  "current_catalog",
  "current_schema",
  "current_date",
  "current_time",
  "current_timestamp",
  "localtime",
  "localtimestamp",
]);

const OPERATORS = new Set(["=", "<>", "!=", "<", "<=", ">", ">="]);

/** A token of the condition as the qualifier reads it: punctuation runs like `<=` joined. */
interface Piece {
  readonly kind: Token["kind"] | "operator";
  readonly text: string;
  readonly start: number;
}

export function qualifiedCondition(
  condition: string,
  alias: string,
  syntax: DialectName = DEFAULT_DIALECT,
): string | null {
  return splitAtColumns(condition, syntax)?.join(`${alias}.`) ?? null;
}

/**
 * The condition cut before each column it names (trimmed), for `qualifiedCondition`'s forms,
 * or null for any other condition: joined with `alias.`, the condition for that alias.
 *
 *   splitAtColumns("a IS NULL AND NOT b") // ["", "a IS NULL AND NOT ", "b"]
 */
export function splitAtColumns(
  condition: string,
  syntax: DialectName = DEFAULT_DIALECT,
): readonly string[] | null {
  const pieces = piecesOf(condition, syntax);
  if (!pieces) return null;
  /** Where the columns start in `condition`. */
  const columns: number[] = [];
  let at = 0;
  const word = (text: string) =>
    pieces[at]?.kind === "word" && pieces[at]!.text.toLowerCase() === text;
  const column = (): boolean => {
    const piece = pieces[at];
    if (piece?.kind !== "word" || !NAME.test(piece.text)) return false;
    if (NOT_COLUMNS.has(piece.text.toLowerCase())) return false;
    columns.push(piece.start);
    at++;
    return true;
  };
  const literal = (): boolean => {
    const piece = pieces[at];
    if (piece?.kind !== "literal") return false;
    at++;
    return true;
  };
  const take = (kinds: (text: string) => boolean): boolean => {
    const piece = pieces[at];
    if (!piece || !kinds(piece.text)) return false;
    at++;
    return true;
  };
  const keyword = (text: string) => word(text) && take(() => true);

  /** One conjunct; false when it is not of the forms above. */
  const conjunct = (): boolean => {
    if (keyword("not")) return column();
    if (literal()) return take((t) => OPERATORS.has(t)) && column();
    if (!column()) return false;
    if (keyword("is")) {
      keyword("not");
      return keyword("null") || keyword("true") || keyword("false");
    }
    if (pieces[at]?.kind === "operator") return take((t) => OPERATORS.has(t)) && literal();
    const negated = keyword("not");
    if (keyword("in")) {
      if (!take((t) => t === "(")) return false;
      do if (!literal()) return false;
      while (take((t) => t === ","));
      return take((t) => t === ")");
    }
    return !negated; // a Boolean column alone
  };

  do if (!conjunct()) return null;
  while (keyword("and"));
  if (at !== pieces.length) return null;
  const text = condition.trim();
  const offset = condition.length - condition.trimStart().length;
  const starts = columns.map((start) => start - offset);
  return [0, ...starts].map((start, n) => text.slice(start, starts[n] ?? text.length));
}

/** The condition's tokens, or null when it holds anything they do not show (a comment). */
function piecesOf(condition: string, syntax: DialectName): Piece[] | null {
  const { tokens, unterminated, lineComments } = scanSql(condition, syntax);
  if (unterminated || lineComments.length > 0) return null;
  let end = 0;
  for (const token of tokens) {
    if (!/^\s*$/.test(condition.slice(end, token.start))) return null;
    end = token.start + token.text.length;
  }
  if (!/^\s*$/.test(condition.slice(end))) return null;
  const pieces: Piece[] = [];
  for (const [i, token] of tokens.entries()) {
    const previous = tokens[i - 1];
    const joins =
      token.kind === "punct" &&
      /[<>=!]/.test(token.text) &&
      previous?.kind === "punct" &&
      /[<>=!]/.test(previous.text) &&
      previous.start + previous.text.length === token.start;
    if (joins) {
      const last = pieces.pop()!;
      pieces.push({ kind: "operator", text: last.text + token.text, start: last.start });
    } else if (token.kind === "punct" && /[<>=!]/.test(token.text)) {
      pieces.push({ kind: "operator", text: token.text, start: token.start });
    } else pieces.push({ kind: token.kind, text: token.text, start: token.start });
  }
  return pieces;
}
