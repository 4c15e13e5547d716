/**
 * SQL type names from `sql_types` (docs/local-authorization.md#fact-signatures). They end up inside `CAST(… AS <type>)`,
 * so a name is only ever used after `normalizeSqlType` has accepted it: words of letters,
 * digits and `_` separated by single spaces, optionally followed by `(n)` or `(n, m)`. Nothing
 * of that shape can close a parenthesis, start a comment or end a statement.
 */

/** How literals for a column of this type are rendered (docs/local-authorization.md#sql_types). */
type SqlTypeFamily =
  /** Bare 64-bit integers; other ids cannot match. */
  | "integer"
  /** Bare decimals; other ids cannot match. */
  | "decimal"
  /** Quoted, only ids in uuid syntax; other ids cannot match. */
  | "uuid"
  /** Quoted; PostgreSQL parses the literal as the column's type. */
  | "other";

const SQL_TYPE_SHAPE =
  /^[a-z][a-z0-9_]*(?: [a-z][a-z0-9_]*)*(?:\((\d+)(?:, ?(\d+))?\))?(?: (?:un)?signed| zerofill)*$/;
const MAX_SQL_TYPE_LENGTH = 100;

const INTEGER_TYPES = new Set([
  "tinyint",
  "mediumint",
  "smallint",
  "int",
  "integer",
  "int2",
  "int4",
  "int8",
  "bigint",
  "smallserial",
  "serial",
  "bigserial",
  "serial2",
  "serial4",
  "serial8",
]);
const DECIMAL_TYPES = new Set(["numeric", "decimal"]);

/**
 * Canonical form of an SQL type name, or null when it is not a plain type name: lowercase,
 * single spaces, no space before `(`, `string` read as `text`.
 *
 *   normalizeSqlType("  Character   VARYING (20)") // "character varying(20)"
 *   normalizeSqlType("text); drop table t --")      // null
 */
export function normalizeSqlType(name: string): string | null {
  const normalized = name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/ ?\( ?/, "(")
    .replace(/ ?, ?/, ", ")
    .replace(/ ?\)/, ")");
  if (normalized.length > MAX_SQL_TYPE_LENGTH || !SQL_TYPE_SHAPE.test(normalized)) return null;
  return normalized === "string" ? "text" : normalized;
}

/** The type name without `(n)` modifiers: `varchar(20)` → `varchar`. Input must be normalized. */
function baseName(normalized: string): string {
  const paren = normalized.indexOf("(");
  const base = paren === -1 ? normalized : normalized.slice(0, paren);
  // Attributes of integer types some engines write: `int unsigned`, `bigint(20) unsigned zerofill`.
  return base.replace(/(?: (?:un)?signed| zerofill)+$/, "");
}

/**
 * The rendering family of a normalized SQL type.
 *
 *   sqlTypeFamily("bigint")       // "integer"
 *   sqlTypeFamily("numeric(10,2)") // "decimal"
 */
export function sqlTypeFamily(normalized: string): SqlTypeFamily {
  const base = baseName(normalized);
  if (INTEGER_TYPES.has(base)) return "integer";
  if (DECIMAL_TYPES.has(base)) return "decimal";
  if (base === "uuid") return "uuid";
  return "other";
}

/**
 * The type to write in `CAST(… AS <type>)` for a normalized SQL type. Length and precision
 * modifiers are dropped because an explicit cast truncates or rounds silently
 * (`CAST('abcdef' AS varchar(3))` is `'abc'`), which would make different ids equal; pseudo
 * types such as `serial` become their real type; `char`/`character` become `bpchar`
 * (unbounded) rather than `char(1)`, and `bit` becomes `varbit` for the same reason.
 *
 *   castTypeName("varchar(20)") // "varchar"
 *   castTypeName("bigserial")   // "bigint"
 */
export function castTypeName(normalized: string): string {
  const base = baseName(normalized);
  switch (base) {
    case "smallserial":
    case "serial2":
      return "smallint";
    case "serial":
    case "serial4":
      return "integer";
    case "bigserial":
    case "serial8":
      return "bigint";
    case "char":
    case "character":
      return "bpchar";
    case "bit":
      return "varbit";
    default:
      return base;
  }
}
