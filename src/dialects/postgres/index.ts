/**
 * PostgreSQL (12 and later, PGlite included). Strings compare exactly with `=` under the
 * database's deterministic collations; ordering uses `COLLATE "C"`, which is code point order
 * for UTF-8. Recursive CTEs allow one self reference, so several steps run through one LATERAL
 * union; binding CTEs are `NOT MATERIALIZED` so that conditions reach the caller's tables.
 */
import {
  AliasNode,
  FunctionNode,
  type OperationNode,
  ParensNode,
  PostgresQueryCompiler,
  RawNode,
  ValueListNode,
  ValuesNode,
} from "kysely";
import type { Value } from "../../core/value.js";
import { LiteralError } from "../../sql/literal-error.js";
import { binary, correlation } from "../../sql/nodes.js";
import type { CompilerClass, Dialect } from "../dialect.js";
import { POSTGRES_LEXICAL } from "./lexical.js";
import {
  arrayText,
  parameterText,
  parameterType,
  quoteIdentifier,
  renderTypedLiteral,
  renderValue,
  sqlTypeOf,
} from "./literal.js";

/** A canonical integer; `comparesUntyped` also bounds it to the 32-bit range of `integer`. */
const INT32_TEXT = /^(?:0|-?[1-9][0-9]{0,9})$/;
/** A uuid as PostgreSQL writes one (lowercase): the column's text is then the id. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Kysely's PostgreSQL compiler, refusing identifiers PostgreSQL would change or cannot hold. */
class PostgresCompiler extends PostgresQueryCompiler {
  protected override sanitizeIdentifier(identifier: string): string {
    return quoteIdentifier(identifier).slice(1, -1);
  }
}

const compiler: CompilerClass = PostgresCompiler;

function written(value: Value, sqlType: string | undefined, typed: boolean): string | null {
  try {
    return typed ? renderTypedLiteral(value, sqlType) : renderValue(value, sqlType);
  } catch (error) {
    if (error instanceof LiteralError) return null;
    throw error;
  }
}

function writable(value: Value, sqlType: string | undefined, typed: boolean): string {
  const text = written(value, sqlType, typed);
  if (text === null) throw new Error(`internal: unwritable ${value.type} value ${value.id}`);
  return text;
}

export const postgres = {
  name: "postgres",
  engines: "PostgreSQL 12+, PGlite",
  truth: "booleans",
  compiler,
  lexical: POSTGRES_LEXICAL,
  catalog: {
    // Also the default for a `--database` URL no dialect claims (src/database/open.ts).
    urls: /^postgres(?:ql)?:/i,
    urlExample: "postgres://user:password@host:5432/database",
    open: async (url, options) => (await import("./catalog.js")).openPostgres(url, options),
    // pg loads its optional native binding by name.
    driverPackages: ["pg-native"],
    foldsColumnNames: false,
    integerBooleans: false,
  },
  recursion: "lateral",
  inlineHint: true,
  inlineScans: "tables",
  existsPerBranch: true,
  arrayLiteral: true,
  // Ids of the usual id columns' types (docs/local-authorization.md, "Ids without sql_types").
  comparesUntyped: (id) =>
    (INT32_TEXT.test(id) && Math.abs(Number(id)) <= 2 ** 31 - 1) || UUID_TEXT.test(id),
  castsRecursiveColumns: false,

  canWrite: (value, sqlType) => written(value, sqlType, false) !== null,
  literal: writable,
  parameter(value, sqlType) {
    // One check of the text (`parameterText` renders it), not one more per parameter.
    let text: string | null;
    try {
      text = parameterText(value, sqlType);
    } catch (error) {
      if (!(error instanceof LiteralError)) throw error;
      text = null;
    }
    if (text === null) throw new Error(`internal: unwritable ${value.type} value ${value.id}`);
    return text;
  },
  parameterType,
  castType: (polarType, sqlType) => sqlTypeOf(polarType, sqlType),

  compare(op, left, right, type) {
    const operator = op === "!=" ? "<>" : op;
    const ordering = operator !== "=" && operator !== "<>";
    // Code point order, as the language orders strings.
    const operand = ordering && type === "String" ? collateC(left) : left;
    return binary(operand, operator, right);
  },
  codePointOrder: collateC,
  member: (term, values) => binary(term, "in", ValueListNode.create(values)),
  memberOfQuery: (term, query) => binary(term, "in", query),
  // An init plan: `x = any($1)` with the array computed once; a bitmap index scan serves it,
  // and two of them an `OR` (bench/RESULTS.md, "Joined rules on the caller's rows").
  memberOfArray: (term, query) => binary(term, "=", RawNode.create(["any(array(", "))"], [query])),
  rowsTable(alias, columns, rows) {
    const values = ValuesNode.create(rows.map((row) => ValueListNode.create(row)));
    return AliasNode.create(ParensNode.create(values), correlation(alias, columns));
  },
  // `unnest(cast($1 as text[])) as f0(arg0)`: a join the planner sizes from the array
  // (bench/RESULTS.md, "Id lists as one array parameter").
  idsTable: (alias, column, ids) =>
    AliasNode.create(FunctionNode.create("unnest", [ids]), correlation(alias, [column])),
  idsParameter: {
    placeholder: (placeholder, type, sqlType) =>
      `cast(${placeholder} as ${parameterType(type, sqlType)}[])`,
    text: arrayText,
  },
} satisfies Dialect<"postgres">;

/** `node COLLATE "C"`: Kysely has collations on column definitions and ORDER BY items only. */
function collateC(node: OperationNode): OperationNode {
  return RawNode.create(["", ' collate "C"'], [node]);
}
