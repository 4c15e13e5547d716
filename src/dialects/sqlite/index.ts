/**
 * SQLite 3.35+ (docs/dialects.md, "SQLite"). Strings compare with the BINARY collation, made
 * explicit (`… collate binary`) so that a column declared `COLLATE NOCASE` cannot make two
 * ids equal; BINARY is byte order, which for UTF-8 is code point order. No LATERAL: one
 * recursive SELECT per step (a compound recursive select, SQLite 3.34+). Binding CTEs may be
 * `NOT MATERIALIZED` (3.35+). Strings are single-quoted with `'` doubled (SQLite reads no
 * backslash escapes); a string holding a control character, NUL included, is written as
 * `cast(x'…' as text)`.
 */
import {
  AliasNode,
  BinaryOperationNode,
  FunctionNode,
  GroupByItemNode,
  IdentifierNode,
  LimitNode,
  type OperationNode,
  OperatorNode,
  ParensNode,
  RawNode,
  SelectAllNode,
  SelectQueryNode,
  SqliteQueryCompiler,
  ValueListNode,
  ValueNode,
  ValuesNode,
} from "kysely";
import { aliased, binary, cast, columnRef, select } from "../../sql/nodes.js";
import type { CompilerClass, Dialect } from "../dialect.js";
import {
  canWriteValue,
  type LiteralSpelling,
  literalOf,
  parameterValue,
  refuseUnholdableIdentifier,
  type ValueClass,
  valueClass,
} from "../shared/engine-literal.js";
import { SQLITE_UNTYPED } from "./catalog-queries.js";
import { SQLITE_LEXICAL } from "./lexical.js";

/** Kysely's SQLite compiler, refusing names SQLite cannot hold. */
class SqliteCompiler extends SqliteQueryCompiler {
  protected override sanitizeIdentifier(identifier: string): string {
    refuseUnholdableIdentifier(identifier);
    return super.sanitizeIdentifier(identifier);
  }
}

const compiler: CompilerClass = SqliteCompiler;

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 *   sqliteString("it's")   // "'it''s'"
 *   sqliteString("a\u0000") // "cast(x'6100' as text)"
 */
export function sqliteString(text: string): string {
  if (CONTROL.test(text)) return `cast(x'${Buffer.from(text, "utf8").toString("hex")}' as text)`;
  return `'${text.replaceAll("'", "''")}'`;
}

const spelling: LiteralSpelling = { engine: "SQLite", quote: sqliteString, holdsNul: true };

function castOf(kind: ValueClass): string {
  switch (kind) {
    case "text":
      return "text";
    case "integer":
    case "boolean":
      return "integer";
    case "decimal":
      return "numeric";
    default: {
      const _never: never = kind;
      return _never;
    }
  }
}

function castType(polarType: string, sqlType: string | undefined): string {
  return castOf(valueClass(polarType, sqlType));
}

/** `node collate binary`: Kysely has collations on column definitions and ORDER BY only. */
function collateBinary(node: OperationNode): OperationNode {
  return RawNode.create(["", " collate binary"], [node]);
}

/**
 * `(select v.column1 as c0, … from (values (…), …) as v) as alias`. A VALUES list is not
 * limited to SQLite's 500 terms of a compound SELECT, as `select … union all select …` is.
 */
function valuesRows(
  alias: string,
  columns: readonly string[],
  rows: readonly (readonly OperationNode[])[],
): OperationNode {
  const values = ValuesNode.create(rows.map((row) => ValueListNode.create(row)));
  const named = select({
    selections: columns.map((column, i) => aliased(columnRef("v", `column${i + 1}`), column)),
    from: [AliasNode.create(ParensNode.create(values), IdentifierNode.create("v"))],
  });
  return AliasNode.create(ParensNode.create(named), IdentifierNode.create(alias));
}

/** A canonical integer, which a numeric column's value equals exactly when its text is the id. */
const INTEGER_TEXT = /^(?:0|-?[1-9][0-9]{0,17})$/;
/** Text SQLite reads as a number when it meets a numeric column (`' 2'`, `'1e3'`, `'02'`). */
const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

export const sqlite = {
  name: "sqlite",
  engines: "SQLite 3.35+",
  truth: "integers",
  compiler,
  lexical: SQLITE_LEXICAL,
  catalog: {
    urls: /^sqlite:/i,
    urlExample: "sqlite:path/to/app.db",
    // better-sqlite3 is imported when a session opens (./better-sqlite3.ts).
    open: async (url) => (await import("./catalog.js")).openSqlite(url),
    driverPackages: ["better-sqlite3"],
    foldsColumnNames: true,
    integerBooleans: false,
    untypedColumn: SQLITE_UNTYPED,
  },
  recursion: "branches",
  inlineHint: true,
  inlineScans: "subqueries",
  castsRecursiveColumns: false,
  // `select * from <binding> union all select … (values …)` has no column affinity: the
  // table's integer 1 would not equal `'1'` there (docs/dialects.md, "Ids without sql_types").
  bindingRowsAsText: true,
  // An id compares directly unless a numeric column would read it as another number: text
  // never equals a number, and a canonical integer equals only itself
  // (docs/dialects.md, "Ids without sql_types").
  comparesUntyped: (id) => INTEGER_TEXT.test(id) || !NUMERIC_TEXT.test(id),

  canWrite: (value, sqlType) => canWriteValue(spelling, value, sqlType),
  literal: (value, sqlType) => literalOf(spelling, value, sqlType),
  parameter: (value, sqlType) => parameterValue(spelling, value, sqlType),
  parameterType: castType,
  castType,

  compare(op, left, right, type, sqlType) {
    const operator = op === "!=" ? "<>" : op;
    const text = valueClass(type, sqlType) === "text";
    return BinaryOperationNode.create(
      left,
      OperatorNode.create(operator as never),
      text ? collateBinary(right) : right,
    );
  },
  codePointOrder: collateBinary,
  member(term, values, type, sqlType) {
    const left = valueClass(type, sqlType) === "text" ? collateBinary(term) : term;
    return binary(left, "in", ValueListNode.create(values));
  },
  memberOfQuery(term, query, type, sqlType) {
    const left = valueClass(type, sqlType) === "text" ? collateBinary(term) : term;
    return binary(left, "in", query);
  },
  rowsTable: valuesRows,
  // `select * from (select * from (values …) limit -1)`: SQLite pushes the outer WHERE into a
  // plain VALUES by writing it as one SELECT per row, which took seconds to prepare for 31,000
  // context facts; a subquery with a LIMIT is left whole (bench/RESULTS.md, "Context facts").
  rowsOperand: (rows) => {
    const values = ParensNode.create(
      ValuesNode.create(rows.map((row) => ValueListNode.create(row))),
    );
    const fenced = SelectQueryNode.cloneWithLimit(
      select({ selections: [SelectAllNode.create()], from: [values] }),
      LimitNode.create(ValueNode.createImmediate(-1)),
    );
    return select({ selections: [SelectAllNode.create()], from: [ParensNode.create(fenced)] });
  },
  // `(select cast(j.value as text) as arg0 from json_each(?) as j group by j.value) as f0`, the
  // ids a JSON array: integers and booleans as JSON numbers and booleans, the rest as strings.
  // The GROUP BY keeps SQLite from flattening the subquery into the join, so it is computed
  // once and joined through an automatic index; flattened, the array is scanned once per row
  // of the other side (bench/RESULTS.md, "Id lists as one array parameter").
  idsTable(alias, column, ids, type, sqlType) {
    const each = AliasNode.create(
      FunctionNode.create("json_each", [ids]),
      IdentifierNode.create("j"),
    );
    const element = columnRef("j", "value");
    const value = cast(element, castType(type, sqlType));
    const rows = SelectQueryNode.cloneWithGroupByItems(
      select({ selections: [aliased(value, column)], from: [each] }),
      [GroupByItemNode.create(element)],
    );
    return AliasNode.create(ParensNode.create(rows), IdentifierNode.create(alias));
  },
  idsParameter: {
    placeholder: (placeholder) => placeholder,
    text(ids, type, sqlType) {
      const kind = valueClass(type, sqlType);
      const bare = kind === "integer" || kind === "boolean";
      return `[${ids.map((id) => (bare ? id : JSON.stringify(id))).join(",")}]`;
    },
  },
} satisfies Dialect<"sqlite">;
