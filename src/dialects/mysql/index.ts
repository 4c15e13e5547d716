/**
 * MySQL 8 and MariaDB 10.6+ (docs/dialects.md, "MySQL and MariaDB"). An application's tables
 * keep their default collation (MariaDB: `utf8mb4_general_ci`, which calls `'D1' = 'd1 '`
 * equal), so every string comparison is made on bytes: one side is cast to `binary`, which
 * makes the comparison binary while the other side's index still serves it (a column compared
 * with `cast(… as binary)` is looked up in its index and the row rechecked). Ordering compares
 * both sides as bytes: UTF-8 byte order is code point order.
 *
 * Recursive CTEs take their column types from the seeds, so every value is cast: text to
 * `varbinary(512)` (exact duplicates for UNION, no truncation of longer later values, up to 512
 * bytes), integers to `signed`. `SELECT DISTINCT` and `UNION` compare with the collation, so
 * distinct rows are grouped by their bytes instead. No LATERAL (MariaDB has none): one
 * recursive SELECT per step. Strings that are not plain ASCII words are written as
 * `_utf8mb4 X'…'`, which reads the same with and without `NO_BACKSLASH_ESCAPES`.
 */
import {
  AliasNode,
  CastNode,
  DataTypeNode,
  FunctionNode,
  GroupByItemNode,
  GroupByNode,
  IdentifierNode,
  MysqlQueryCompiler,
  type OperationNode,
  ParensNode,
  RawNode,
  SelectionNode,
  SelectQueryNode,
  ValueListNode,
  ValueNode,
} from "kysely";
import type { CompareOp } from "../../core/value.js";
import type { ExactColumn } from "../../lower/rules.js";
import { LiteralError } from "../../sql/literal-error.js";
import { aliased, binary, columnRef, select, union } from "../../sql/nodes.js";
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
import { MYSQL_LEXICAL } from "./lexical.js";

/** The longest name MySQL and MariaDB keep for a column alias or table. */
const MAX_IDENTIFIER_CHARS = 64;

/** Kysely's MySQL compiler, refusing names the engine would change or cannot hold. */
class MysqlCompiler extends MysqlQueryCompiler {
  protected override sanitizeIdentifier(identifier: string): string {
    refuseUnholdableIdentifier(identifier);
    if ([...identifier].length > MAX_IDENTIFIER_CHARS) {
      throw new LiteralError({
        code: "P713",
        kind: "long-identifier",
        name: identifier,
        limit: MAX_IDENTIFIER_CHARS,
        unit: "characters",
        engine: "MySQL",
      });
    }
    return super.sanitizeIdentifier(identifier);
  }
}

const compiler: CompilerClass = MysqlCompiler;

/** Plain ASCII that needs no escaping under any `sql_mode` and no comment marker. */
const PLAIN = /^[A-Za-z0-9_.@ +=,-]*$/;

/**
 * `'abc'` for plain text, else the UTF-8 bytes in hex with a character set introducer:
 * no quote, backslash, NUL or comment can be inside it, whatever `NO_BACKSLASH_ESCAPES` says.
 *
 *   mysqlString("it's") // "_utf8mb4 X'69742773'"
 */
export function mysqlString(text: string): string {
  if (PLAIN.test(text) && !text.includes("--")) return `'${text}'`;
  return `_utf8mb4 X'${Buffer.from(text, "utf8").toString("hex").toUpperCase()}'`;
}

const spelling: LiteralSpelling = { engine: "MySQL", quote: mysqlString, holdsNul: true };

/** The marker type of text casts; printed as a `varbinary(512)` conversion (`printedCast`). */
const TEXT_CAST = "char(512) character set utf8mb4";

function castType(polarType: string, sqlType: string | undefined): string {
  return castOf(valueClass(polarType, sqlType));
}

function castOf(kind: ValueClass): string {
  switch (kind) {
    case "text":
      return TEXT_CAST;
    case "integer":
    case "boolean":
      return "signed";
    case "decimal":
      return "decimal(65, 30)";
    default: {
      const _never: never = kind;
      return _never;
    }
  }
}

function asBinary(node: OperationNode): OperationNode {
  return CastNode.create(node, DataTypeNode.create("binary" as never));
}

/** A value of the request or the policy (possibly cast), as opposed to a column. */
function isValue(node: OperationNode): boolean {
  if (ValueNode.is(node)) return true;
  return CastNode.is(node) && ValueNode.is(node.expression);
}

function compare(
  op: CompareOp,
  left: OperationNode,
  right: OperationNode,
  type: string,
  sqlType: string | undefined,
): OperationNode {
  const operator = op === "!=" ? "<>" : op;
  if (valueClass(type, sqlType) !== "text") return binary(left, operator, right);
  if (operator !== "=" && operator !== "<>") {
    return binary(asBinary(left), operator, asBinary(right));
  }
  // One side as bytes makes the comparison binary; the other side keeps its index.
  return isValue(left) && !isValue(right)
    ? binary(asBinary(left), operator, right)
    : binary(left, operator, asBinary(right));
}

/** `(select v as c0, … union all select …) as alias`: MariaDB has no `AS t(c0, …)`. */
function selectedRows(
  alias: string,
  columns: readonly string[],
  rows: readonly (readonly OperationNode[])[],
): OperationNode {
  const selects = rows.map((row) =>
    select({ selections: row.map((value, i) => aliased(value, columns[i]!)) }),
  );
  return AliasNode.create(ParensNode.create(union(selects, true)), IdentifierNode.create(alias));
}

/**
 * `select convert(min(d.c) using utf8mb4) as c, … from (rows) as d group by cast(d.c as
 * binary), …`: one row per byte-identical row, its text columns as text again.
 */
function distinctRows(rows: SelectQueryNode, columns: readonly ExactColumn[]): SelectQueryNode {
  const selections: OperationNode[] = [];
  const keys: OperationNode[] = [];
  for (const column of columns) {
    const ref = columnRef("d", column.name);
    if (valueClass(column.type, column.sqlType) === "text") {
      const smallest = FunctionNode.create("min", [ref]);
      selections.push(
        aliased(RawNode.create(["convert(", " using utf8mb4)"], [smallest]), column.name),
      );
      keys.push(asBinary(ref));
    } else {
      selections.push(aliased(ref, column.name));
      keys.push(ref);
    }
  }
  const grouped = select({ selections, from: [aliased(ParensNode.create(rows), "d")] });
  return Object.freeze({
    ...grouped,
    groupBy: GroupByNode.create(keys.map((key) => GroupByItemNode.create(key))),
  });
}

/**
 * `IN (with … select d.c from (q1 union all q2) as d)` for `IN (with … q1 union all q2)`:
 * MariaDB runs an IN over a UNION as a dependent subquery, once per row of the caller's
 * table, but an IN over one SELECT as a semi-join (bench/RESULTS.md, "Dialects"). Branches
 * that read the caller's column keep the plain form: a derived table cannot see it.
 */
function semiJoinable(term: OperationNode, query: OperationNode): OperationNode {
  if (!SelectQueryNode.is(query) || !query.setOperations?.length) return query;
  if (JSON.stringify(query).includes(JSON.stringify(term))) return query;
  const { with: clause, ...rest } = query;
  const [first, ...others] = rest.selections ?? [];
  if (!first || others.length > 0) return query;
  const named = Object.freeze({
    ...rest,
    selections: [SelectionNode.create(aliased(first.selection, "c") as never)],
  });
  const outer = select({
    selections: [columnRef("d", "c")],
    from: [aliased(ParensNode.create(named), "d")],
  });
  return clause ? Object.freeze({ ...outer, with: clause }) : outer;
}

/** A canonical 32-bit integer: a column of unknown type compares it exactly, as a number or as text. */
const INT32_TEXT = /^(?:0|-?[1-9][0-9]{0,9})$/;

export const mysql = {
  name: "mysql",
  engines: "MySQL 8, MariaDB 10.6+",
  truth: "integers",
  compiler,
  lexical: MYSQL_LEXICAL,
  catalog: {
    urls: /^(?:mysql|mariadb):\/\//i,
    urlExample: "mysql://user:password@host:3306/database",
    // mysql2 is an optional peer dependency, imported when a session opens.
    open: async (url, options) => (await import("./catalog.js")).openMysql(url, options),
    driverPackages: ["mysql2"],
    foldsColumnNames: true,
    // MySQL computes booleans as integers 0/1 (docs/dialects.md).
    integerBooleans: true,
  },
  recursion: "joined",
  inlineHint: false,
  inlineScans: "tables",
  existsPerBranch: true,
  castsRecursiveColumns: true,
  maxRecursiveReads: 6,
  isolatesRecursiveReads: true,
  // Only canonical integers: MySQL reads any other string met by a numeric column as a number
  // (`'abc'` as 0, `'2x'` as 2), so such ids compare with the column's text
  // (docs/dialects.md, "Ids without sql_types").
  comparesUntyped: (id) => INT32_TEXT.test(id) && Math.abs(Number(id)) <= 2 ** 31 - 1,

  canWrite: (value, sqlType) => canWriteValue(spelling, value, sqlType),
  literal: (value, sqlType) => literalOf(spelling, value, sqlType),
  parameter: (value, sqlType) => parameterValue(spelling, value, sqlType),
  parameterType: castType,
  castType,
  printedCast(node) {
    if (!DataTypeNode.is(node.dataType) || (node.dataType.dataType as string) !== TEXT_CAST)
      return null;
    return RawNode.create(["convert(cast(", ` as ${TEXT_CAST}) using binary)`], [node.expression]);
  },

  compare,
  codePointOrder: asBinary,
  member(term, values, type, sqlType) {
    if (valueClass(type, sqlType) !== "text") {
      return binary(term, "in", ValueListNode.create(values));
    }
    return binary(term, "in", ValueListNode.create(values.map(asBinary)));
  },
  memberOfQuery(term, query, type, sqlType) {
    const left = valueClass(type, sqlType) === "text" ? asBinary(term) : term;
    return binary(left, "in", semiJoinable(term, query));
  },
  rowsTable: selectedRows,
  distinctRows,
  // No `idsTable`: MySQL and MariaDB statements are only printed with literals (the local
  // endpoints), so a list of ids stays rows of values; `JSON_TABLE` would be the array form.
} satisfies Dialect<"mysql">;
