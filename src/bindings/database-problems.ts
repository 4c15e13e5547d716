/**
 * What checking data bindings against a database reports (src/bindings/verify.ts), and its
 * messages: one part of the bindings problems of src/bindings/problems.ts, kept apart because
 * it speaks of column types and their families.
 */
import type { ColumnFamily } from "../database/types.js";
import { tick } from "../source/diagnostic.js";

/** `column N of binding `sig` is `type``: the start of the column type messages. */
interface ColumnAt {
  /** 0-based among the binding's `_` slots. */
  readonly column: number;
  readonly signature: string;
  readonly columnType: string;
  readonly slotType: string;
}

export type DatabaseProblem =
  | {
      readonly code: "P709";
      readonly kind: "query-rejected";
      readonly signature: string;
      /** The database's own message. */
      readonly reason: string;
    }
  | ({ readonly code: "W008"; readonly kind: "computed-column" } & ColumnAt)
  | ({ readonly code: "P710"; readonly kind: "column-not-primitive" } & ColumnAt)
  | ({ readonly code: "W008"; readonly kind: "column-may-not-compare" } & ColumnAt)
  | ({
      readonly code: "W008";
      readonly kind: "untyped-column";
      readonly dialect: string;
      readonly family: ColumnFamily;
      /** The column type without modifiers (`varchar` for `varchar(20)`). */
      readonly base: string;
    } & ColumnAt)
  | ({
      readonly code: "P710";
      readonly kind: "sql-type-mismatch";
      /** The `sql_types` entry of the slot's type. */
      readonly declared: string;
    } & ColumnAt)
  | { readonly code: "P711"; readonly kind: "key-table-missing"; readonly table: string }
  | {
      readonly code: "P711";
      readonly kind: "key-columns-missing";
      readonly table: string;
      readonly columns: readonly string[];
    }
  | {
      readonly code: "P711";
      readonly kind: "key-not-unique";
      readonly table: string;
      readonly columns: readonly string[];
      /** Values that occur in more than one row. */
      readonly duplicated: number;
    }
  | {
      readonly code: "W007";
      readonly kind: "key-not-enforced";
      readonly table: string;
      readonly columns: readonly string[];
    };

/** The message and hint of a database problem. */
export function describeDatabaseProblem(problem: DatabaseProblem): {
  readonly message: string;
  readonly help?: string;
} {
  switch (problem.kind) {
    case "query-rejected":
      return {
        message: `the database rejects the query of binding ${tick(problem.signature)}: ${problem.reason}`,
      };
    case "computed-column":
      return {
        message: `column ${problem.column + 1} of binding ${tick(problem.signature)} has no declared type (SQLite types computed columns by their values); comparisons with ${tick(problem.slotType)} values may fail`,
        help: "select a table column, or CAST the expression to the column type of the values",
      };
    case "column-not-primitive":
      return { message: `${columnIs(problem)}, not a type for ${tick(problem.slotType)} values` };
    case "column-may-not-compare":
      return {
        message: `${columnIs(problem)}, not a type for ${tick(problem.slotType)} values; comparisons with ${tick(problem.slotType)} values may fail`,
      };
    case "untyped-column":
      return {
        message: `${columnIs(problem)}, but \`sql_types\` gives no type for ${tick(problem.slotType)}, so ${untypedConsequence(problem.dialect, problem.family, problem.base)} (docs/local-authorization.md, "Ids without sql_types")`,
        help: `add \`${problem.slotType}: ${problem.base}\` to \`sql_types\``,
      };
    case "sql-type-mismatch":
      return {
        message: `${columnIs(problem)}, but \`sql_types\` gives ${tick(problem.slotType)} the type ${tick(problem.declared)}`,
      };
    case "key-table-missing":
      return { message: `table ${tick(problem.table)} of \`keys\` does not exist in the database` };
    case "key-columns-missing":
      return {
        message: `table ${tick(problem.table)} has no column ${problem.columns.map(tick).join(", ")}`,
      };
    case "key-not-unique": {
      const occur = problem.duplicated === 1 ? "value occurs" : "values occur";
      return {
        message: `key ${tick(columnList(problem.columns))} of table ${tick(problem.table)} is not unique: ${problem.duplicated} ${occur} in more than one row`,
        help: "bindings merged on a key that is not unique give wrong answers; name a unique column list or remove the entry",
      };
    }
    case "key-not-enforced": {
      const list = columnList(problem.columns);
      return {
        message: `key ${tick(list)} of table ${tick(problem.table)} is unique in the data today, but no primary key or unique constraint on non-null columns ensures it`,
        help: `a unique index on ${list} would`,
      };
    }
    default: {
      const _never: never = problem;
      return _never;
    }
  }
}

function columnList(columns: readonly string[]): string {
  return `(${columns.join(", ")})`;
}

function columnIs(at: ColumnAt): string {
  return `column ${at.column + 1} of binding ${tick(at.signature)} is ${tick(at.columnType)}`;
}

/**
 * What happens to ids of a type without `sql_types` against a column of this family: in
 * PostgreSQL, ids written untyped that the column's type cannot read raise an error
 * (docs/local-authorization.md, "Ids without sql_types", the pairs that still need `sql_types`).
 */
function untypedConsequence(dialect: string, family: ColumnFamily, base: string): string {
  const asText = "are compared with the column's text, where its index cannot serve";
  if (dialect !== "postgres") return `ids that are not integers or uuids ${asText}`;
  switch (family) {
    case "integer":
      return base === "smallint" || base === "int2"
        ? `ids that look like uuids or are 32-bit integers outside -32768..32767 make PostgreSQL raise an error (\`invalid input syntax for type smallint\`, \`value "40000" is out of range for type smallint\`), and other ids that are not 32-bit integers ${asText}`
        : `ids that look like uuids make PostgreSQL raise an error (\`invalid input syntax for type ${base}\`), and other ids that are not 32-bit integers ${asText}`;
    case "uuid":
      return `ids that look like integers make PostgreSQL raise an error (\`invalid input syntax for type uuid\`), and other ids that are not lowercase uuids ${asText}`;
    case "decimal":
      return `ids that look like uuids make PostgreSQL raise an error (\`invalid input syntax for type ${base}\`), and other ids that are not 32-bit integers ${asText}`;
    case "text":
    case "boolean":
    case "other":
      return `ids that are not integers or uuids ${asText}`;
    default: {
      const _never: never = family;
      return _never;
    }
  }
}
