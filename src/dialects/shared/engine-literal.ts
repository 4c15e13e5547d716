/**
 * Values as literals for the dialects that write them alike (each passes its
 * `LiteralSpelling` from src/dialects/<name>/index.ts): which values a column can hold and how
 * each kind is written, with the engine supplying only how a string is quoted. The rules
 * mirror src/dialects/postgres/literal.ts (docs/dialects.md, "Literals"):
 * - integers are canonical signed 64-bit, negatives parenthesized;
 * - an entity id that its column's SQL type cannot hold (`abc` for an integer column, `007`
 *   too) has no literal: the alternative is dropped;
 * - unpaired UTF-16 surrogates are refused (drivers would write U+FFFD instead).
 */

import { isPrimitiveType, parseInteger, type Value } from "../../core/value.js";
import { LiteralError } from "../../sql/literal-error.js";
import { normalizeSqlType, sqlTypeFamily } from "../../sql/sql-type.js";

const CANONICAL_DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** How an engine spells what differs: string literals and the SQL type families' casts. */
export interface LiteralSpelling {
  /** The engine's name, for messages. */
  readonly engine: string;
  /** A string literal for `text` (already checked for unpaired surrogates). */
  quote(text: string): string;
  /** Whether U+0000 can be stored (SQLite and MariaDB text can hold it). */
  readonly holdsNul: boolean;
}

/** The family of an entity type's `sql_types` entry; throws on a malformed name. */
function familyOf(sqlType: string): ReturnType<typeof sqlTypeFamily> {
  const normalized = normalizeSqlType(sqlType);
  if (normalized === null) {
    throw new LiteralError({ code: "P713", kind: "invalid-sql-type-name", sqlType });
  }
  return sqlTypeFamily(normalized);
}

function checkText(spelling: LiteralSpelling, text: string): void {
  if (UNPAIRED_SURROGATE.test(text)) {
    throw new LiteralError({ code: "P713", kind: "literal-surrogate", what: "string" });
  }
  if (!spelling.holdsNul && text.includes("\u0000")) {
    const holder = spelling.engine;
    throw new LiteralError({ code: "P713", kind: "literal-nul", what: "string", holder });
  }
}

function bareNumber(canonical: string): string {
  return canonical.startsWith("-") ? `(${canonical})` : canonical;
}

/** A string literal, or throws `LiteralError`. */
function stringLiteral(spelling: LiteralSpelling, text: string): string {
  checkText(spelling, text);
  return spelling.quote(text);
}

/**
 * The literal for a value compared with a column of `sqlType`, or null when no row can hold
 * it; throws `LiteralError` for malformed values.
 *
 *   writeValue(spelling, { type: "Ticket", id: "42" }, "bigint") // "42"
 *   writeValue(spelling, { type: "Ticket", id: "x" }, "bigint")  // null
 */
function writeValue(
  spelling: LiteralSpelling,
  value: Value,
  sqlType: string | undefined,
): string | null {
  const kind = isPrimitiveType(value.type) ? value.type : "entity";
  switch (kind) {
    case "String":
      return stringLiteral(spelling, value.id);
    case "Integer": {
      const parsed = parseInteger(value.id);
      if (parsed === null) {
        throw new LiteralError({ code: "P713", kind: "literal-integer", id: value.id });
      }
      return bareNumber(parsed.toString());
    }
    case "Boolean":
      if (value.id === "true" || value.id === "false") return value.id;
      throw new LiteralError({ code: "P713", kind: "literal-boolean", id: value.id });
    case "entity":
      return writeEntityId(spelling, value.id, sqlType);
    default: {
      const _never: never = kind;
      return _never;
    }
  }
}

function writeEntityId(
  spelling: LiteralSpelling,
  id: string,
  sqlType: string | undefined,
): string | null {
  if (sqlType === undefined) return stringLiteral(spelling, id);
  const family = familyOf(sqlType);
  switch (family) {
    case "integer": {
      const parsed = parseInteger(id);
      return parsed !== null && parsed.toString() === id ? bareNumber(id) : null;
    }
    case "decimal":
      return CANONICAL_DECIMAL.test(id) && !/^-0(?:\.0+)?$/.test(id) ? bareNumber(id) : null;
    case "uuid":
      return UUID_TEXT.test(id) ? stringLiteral(spelling, id) : null;
    case "other":
      return stringLiteral(spelling, id);
    default: {
      const _never: never = family;
      return _never;
    }
  }
}

/** The text a driver sends for a value as a parameter; the same errors as `writeValue`. */
export function parameterValue(
  spelling: LiteralSpelling,
  value: Value,
  sqlType: string | undefined,
): string {
  if (writeValue(checking(spelling), value, sqlType) === null) {
    throw new Error(`internal: unwritable ${value.type} value`);
  }
  if (value.type === "Integer") return parseInteger(value.id)!.toString();
  // Both engines' booleans are the integers 1 and 0: the parameter is cast to an integer.
  if (value.type === "Boolean") return value.id === "true" ? "1" : "0";
  return value.id;
}

/**
 * `spelling` with a quote that gives its text back: `writeValue` then makes every check of a
 * literal (and throws the same errors) without escaping a string no one reads.
 */
function checking(spelling: LiteralSpelling): LiteralSpelling {
  let found = checkingSpellings.get(spelling);
  if (!found) {
    found = { ...spelling, quote: (text) => text };
    checkingSpellings.set(spelling, found);
  }
  return found;
}

const checkingSpellings = new WeakMap<LiteralSpelling, LiteralSpelling>();

/** Whether a value has a literal for a column of `sqlType`. */
export function canWriteValue(
  spelling: LiteralSpelling,
  value: Value,
  sqlType: string | undefined,
): boolean {
  try {
    return writeValue(checking(spelling), value, sqlType) !== null;
  } catch (error) {
    if (error instanceof LiteralError) return false;
    throw error;
  }
}

/** The value's literal; an internal error for values `canWriteValue` refuses. */
export function literalOf(
  spelling: LiteralSpelling,
  value: Value,
  sqlType: string | undefined,
): string {
  const text = writeValue(spelling, value, sqlType);
  if (text === null) throw new Error(`internal: unwritable ${value.type} value ${value.id}`);
  return text;
}

/** Polar type and `sql_types` entry as the family that decides comparisons and casts. */
export type ValueClass = "text" | "integer" | "decimal" | "boolean";

export function valueClass(type: string, sqlType: string | undefined): ValueClass {
  if (type === "Integer") return "integer";
  if (type === "Boolean") return "boolean";
  if (type === "String" || sqlType === undefined) return "text";
  const family = familyOf(sqlType);
  return family === "integer" ? "integer" : family === "decimal" ? "decimal" : "text";
}

/** Refuses a name these engines cannot hold: empty, or holding NUL. */
export function refuseUnholdableIdentifier(identifier: string): void {
  if (identifier === "") throw new LiteralError({ code: "P713", kind: "empty-identifier" });
  if (identifier.includes("\u0000")) {
    throw new LiteralError({ code: "P713", kind: "literal-nul", what: "identifier", holder: null });
  }
}
