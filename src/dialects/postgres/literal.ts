/**
 * The one audited place where runtime values become PostgreSQL text (docs/local-authorization.md,
 * "Literals"). Every value the emitted SQL holds goes through these functions; nothing else
 * quotes.
 *
 * Rules, and why:
 * - Strings are single-quoted with `'` doubled. A string holding a backslash is written as an
 *   escape string `E'…'` with `\` doubled too, so that the literal means the same text whatever
 *   the server's `standard_conforming_strings` says (a plain `'a\'` would end early where it is
 *   off).
 * - U+0000 is refused: PostgreSQL text cannot hold it, so no stored value can equal it and
 *   there is no literal for it. Unpaired UTF-16 surrogates are refused too: drivers encode them
 *   as U+FFFD, which would silently turn the literal into a different string.
 * - Integers are validated as signed 64-bit and printed canonically; negative numbers are
 *   parenthesized (`(-5)`) so that no neighbouring `-` or operator can glue onto the sign.
 * - Identifiers are always double-quoted with `"` doubled, non-empty, at most 63 bytes (longer
 *   names would be truncated by PostgreSQL).
 * - SQL type names are validated by `normalizeSqlType` before they are written.
 * - An entity id that cannot be a value of its column's SQL type (`abc` for an `integer`
 *   column, `007` too since the column's text form would be `7`) renders as `null`: the
 *   caller drops that alternative, because the comparison could only be false.
 */

import { utf8Length } from "../../core/utf8.js";
import { isPrimitiveType, parseInteger, type Value } from "../../core/value.js";
import { LiteralError } from "../../sql/literal-error.js";
import { castTypeName, normalizeSqlType, sqlTypeFamily } from "../../sql/sql-type.js";

const MAX_IDENTIFIER_BYTES = 63;
const CANONICAL_DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
/**
 * A uuid as PostgreSQL writes one (lowercase): ids compare as strings, so an uppercase id is
 * never a uuid column's text and no row holds it (as without `sql_types`).
 */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkStorable(text: string, what: "string" | "identifier"): void {
  if (text.includes("\u0000")) {
    throw new LiteralError({ code: "P713", kind: "literal-nul", what, holder: "PostgreSQL text" });
  }
  if (UNPAIRED_SURROGATE.test(text)) {
    throw new LiteralError({ code: "P713", kind: "literal-surrogate", what });
  }
}

/**
 * A PostgreSQL string literal for `text`; its type is inferred from where it is used.
 *
 *   quoteString("it's")  // "'it''s'"
 *   quoteString("a\\b")  // "E'a\\\\b'"  (the SQL text E'a\\b')
 */
export function quoteString(text: string): string {
  checkStorable(text, "string");
  const quoted = text.replaceAll("'", "''");
  return text.includes("\\") ? `E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
}

/** `quoteString`'s checks, without the literal: a parameter is sent as the text itself. */
function checkedText(text: string): string {
  checkStorable(text, "string");
  return text;
}

/**
 * A double-quoted PostgreSQL identifier; the name keeps its exact case and characters.
 *
 *   quoteIdentifier('ticket "id"') // '"ticket ""id"""'
 */
export function quoteIdentifier(name: string): string {
  if (name === "") throw new LiteralError({ code: "P713", kind: "empty-identifier" });
  checkStorable(name, "identifier");
  if (utf8Length(name) > MAX_IDENTIFIER_BYTES) {
    throw new LiteralError({
      code: "P713",
      kind: "long-identifier",
      name,
      limit: MAX_IDENTIFIER_BYTES,
      unit: "bytes",
      engine: "PostgreSQL",
    });
  }
  return `"${name.replaceAll('"', '""')}"`;
}

function bareNumber(canonical: string): string {
  return canonical.startsWith("-") ? `(${canonical})` : canonical;
}

/**
 * A signed 64-bit integer, canonical and bare; throws on anything else.
 *
 *   renderInteger("007") // "7"
 *   renderInteger("-3")  // "(-3)"
 */
export function renderInteger(id: string): string {
  const value = parseInteger(id);
  if (value === null) throw new LiteralError({ code: "P713", kind: "literal-integer", id });
  return bareNumber(value.toString());
}

function renderBoolean(id: string): string {
  if (id === "true") return "true";
  if (id === "false") return "false";
  throw new LiteralError({ code: "P713", kind: "literal-boolean", id });
}

function normalizedOrThrow(sqlType: string): string {
  let normalized = normalizedNames.get(sqlType);
  if (normalized === undefined) {
    normalized = normalizeSqlType(sqlType);
    if (normalizedNames.size >= MAX_NORMALIZED_NAMES) normalizedNames.clear();
    normalizedNames.set(sqlType, normalized);
  }
  if (normalized === null) {
    throw new LiteralError({ code: "P713", kind: "invalid-sql-type-name", sqlType });
  }
  return normalized;
}

/** `normalizeSqlType` answers: every literal of a request asks for one of a few names. */
const normalizedNames = new Map<string, string | null>();
const MAX_NORMALIZED_NAMES = 256;

type ValueKind = "String" | "Integer" | "Boolean" | "entity";

function kindOf(type: string): ValueKind {
  return isPrimitiveType(type) ? type : "entity";
}

/** How an entity id is written for a column of `sqlType`; null when no row can hold it. */
function renderEntityId(
  id: string,
  sqlType: string | undefined,
  typed: boolean,
  quote: (text: string) => string,
): string | null {
  if (sqlType === undefined) return typed ? `cast(${quote(id)} as text)` : quote(id);
  const normalized = normalizedOrThrow(sqlType);
  const family = sqlTypeFamily(normalized);
  switch (family) {
    case "integer": {
      const value = parseInteger(id);
      return value !== null && value.toString() === id ? bareNumber(id) : null;
    }
    case "decimal":
      return CANONICAL_DECIMAL.test(id) && !/^-0(?:\.0+)?$/.test(id) ? bareNumber(id) : null;
    case "uuid":
      if (!UUID_TEXT.test(id)) return null;
      return typed ? `cast(${quote(id)} as uuid)` : quote(id);
    case "other":
      return typed ? `cast(${quote(id)} as ${castTypeName(normalized)})` : quote(id);
    default: {
      const _never: never = family;
      return _never;
    }
  }
}

/** `quote` writes a string literal: `quoteString`, or `checkedText` to check without writing. */
function render(
  value: Value,
  sqlType: string | undefined,
  typed: boolean,
  quote: (text: string) => string = quoteString,
): string | null {
  const kind = kindOf(value.type);
  switch (kind) {
    case "String":
      return typed ? `cast(${quote(value.id)} as text)` : quote(value.id);
    case "Integer":
      return renderInteger(value.id);
    case "Boolean":
      return renderBoolean(value.id);
    case "entity":
      return renderEntityId(value.id, sqlType, typed, quote);
    default: {
      const _never: never = kind;
      return _never;
    }
  }
}

/**
 * A literal to compare directly with a column (`col = v`, `col IN (v1, v2)`), where
 * PostgreSQL gives an untyped quoted literal the column's type. `sqlType` is the `sql_types`
 * entry of an entity value's type; primitives ignore it. Returns null when the id cannot be a
 * value of that SQL type: drop the alternative.
 *
 *   renderValue({ type: "String", id: "it's" })         // "'it''s'"
 *   renderValue({ type: "Ticket", id: "42" }, "bigint") // "42"
 *   renderValue({ type: "Ticket", id: "x" }, "bigint")  // null
 *   renderValue({ type: "Boolean", id: "true" })        // "true"
 */
export function renderValue(value: Value, sqlType?: string): string | null {
  return render(value, sqlType, false);
}

/**
 * A literal that carries its own type, for places where PostgreSQL cannot infer one: rows of
 * `VALUES (…)` and select lists. Quoted strings get `cast(… as <type>)` (`text` for String and
 * for entities without `sqlType`); numbers and booleans are already typed. Null as in
 * `renderValue`.
 *
 *   renderTypedLiteral({ type: "User", id: "ada" })                // "cast('ada' as text)"
 *   renderTypedLiteral({ type: "Org", id: "a-1" }, "varchar(20)")  // "cast('a-1' as varchar)"
 */
export function renderTypedLiteral(value: Value, sqlType?: string): string | null {
  return render(value, sqlType, true);
}

/**
 * The SQL type a parameter for a value of Polar type `type` is cast to: as `sqlTypeOf`, but
 * integer-family entity ids are sent as `bigint` and decimals as `numeric` (the column's own
 * type may be narrower; the comparison then widens).
 *
 *   parameterType("User", undefined) // "text"
 *   parameterType("Ticket", "int4")  // "bigint"
 */
export function parameterType(type: string, sqlType: string | undefined): string {
  if (kindOf(type) === "entity" && sqlType !== undefined) {
    const family = sqlTypeFamily(normalizedOrThrow(sqlType));
    if (family === "integer") return "bigint";
    if (family === "decimal") return "numeric";
  }
  return sqlTypeOf(type, sqlType);
}

/**
 * The text sent for a value as a parameter (canonical integers); null when `renderValue`
 * would give null, and the same errors.
 */
export function parameterText(value: Value, sqlType: string | undefined): string | null {
  if (render(value, sqlType, false, checkedText) === null) return null;
  return kindOf(value.type) === "Integer" ? parseInteger(value.id)!.toString() : value.id;
}

/**
 * A text array's input form for these texts: each element double-quoted, `"` and `\\`
 * escaped with a backslash (the array parser reads nothing else specially inside quotes).
 *
 *   arrayText(['a"b', "c"]) // '{"a\\"b","c"}'
 */
export function arrayText(texts: readonly string[]): string {
  let text = "{";
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) text += ",";
    text += `"${texts[i]!.replace(ARRAY_ESCAPED, "\\$&")}"`;
  }
  return `${text}}`;
}

const ARRAY_ESCAPED = /["\\]/g;

/**
 * The SQL type that holds values of Polar type `type`: `text`, `bigint`, `boolean`, or the
 * cast form of the entity type's `sql_types` entry (`text` without one).
 *
 *   sqlTypeOf("Integer")              // "bigint"
 *   sqlTypeOf("Ticket", "bigserial")  // "bigint"
 */
export function sqlTypeOf(type: string, sqlType?: string): string {
  const kind = kindOf(type);
  switch (kind) {
    case "String":
      return "text";
    case "Integer":
      return "bigint";
    case "Boolean":
      return "boolean";
    case "entity":
      return sqlType === undefined ? "text" : castTypeName(normalizedOrThrow(sqlType));
    default: {
      const _never: never = kind;
      return _never;
    }
  }
}
