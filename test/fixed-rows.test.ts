import fc from "fast-check";
import { SelectAllNode } from "kysely";
import { describe, expect, it } from "vitest";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { Value } from "../src/core/value.js";
import type { Dialect } from "../src/dialects/dialect.js";
import { mysql } from "../src/dialects/mysql/index.js";
import { postgres } from "../src/dialects/postgres/index.js";
import { sqlite } from "../src/dialects/sqlite/index.js";
import { fixedRowsUnion } from "../src/lower/fixed-rows.js";
import { valueNode } from "../src/lower/sql-value.js";
import { printTree } from "../src/print/printer.js";
import { aliased, select, table, union, unionAll } from "../src/sql/nodes.js";
import { propertyRuns } from "./support/runs.js";

const bindings = parseDataBindings(`facts:
  "has_role(User:_, String:_, Org:_)":
    query: SELECT user_id, role, org_id FROM org_roles
sql_types:
  Org: integer
`);
const otherBindings = parseDataBindings(`facts:
  "has_role(User:_, String:_, Org:_)":
    query: SELECT user_id, role, org_id FROM org_roles
`);

const rowValues = (row: readonly Value[]) =>
  row.map((value) =>
    valueNode({ kind: "literal", value }, value.type === "Org" ? "integer" : undefined, false),
  );

/** The rows as the dialect appends them, built afresh (no kept text). */
const freshRows = (rows: readonly (readonly Value[])[], dialect: Dialect) =>
  dialect.rowsOperand
    ? dialect.rowsOperand(rows.map(rowValues))
    : union(
        rows.map((row) => select({ selections: rowValues(row) })),
        true,
      );

/** `select * from polar_c0 union all <rows>` as a derived table, printed with literals. */
function statementOver(rows: ReturnType<typeof fixedRowsUnion>, dialect: Dialect = postgres) {
  const all = select({ selections: [SelectAllNode.create()], from: [table("polar_c0")] });
  const node = select({
    selections: [SelectAllNode.create()],
    from: [aliased(unionAll(all, rows), "r")],
  });
  const runtime = { params: new Map(), now: 0n };
  return printTree(dialect, node, { kind: "literals", runtime }, new Set()).sql;
}

const row = (user: string, role: string, org: string): Value[] => [
  { type: "User", id: user },
  { type: "String", id: role },
  { type: "Org", id: org },
];

describe("rows of constants lowered and printed once (src/lower/fixed-rows.ts)", () => {
  it("keeps one node per rows array, bindings and dialect", () => {
    const rows = [row("ada", "owner", "1"), row("bob", "member", "2")];
    const node = fixedRowsUnion(rows, bindings, postgres, rowValues);
    expect(fixedRowsUnion(rows, bindings, postgres, rowValues)).toBe(node);
    expect(fixedRowsUnion([...rows], bindings, postgres, rowValues)).not.toBe(node);
    expect(fixedRowsUnion(rows, otherBindings, postgres, rowValues)).not.toBe(node);
    expect(fixedRowsUnion(rows, bindings, sqlite, rowValues)).not.toBe(node);
  });

  it("prints the same text from the kept text as a fresh union would", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.constantFrom("owner", "it's"), fc.nat()), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.constantFrom(postgres, mysql, sqlite),
        (tuples, dialect) => {
          const rows = tuples.map(([user, role, org]) => row(user, role, String(org)));
          const fixed = fixedRowsUnion(rows, bindings, dialect, rowValues);
          const fresh = statementOver(freshRows(rows, dialect), dialect);
          expect(statementOver(fixed, dialect)).toBe(fresh);
          // The second print copies the kept text.
          expect(statementOver(fixed, dialect)).toBe(fresh);
        },
      ),
      { numRuns: propertyRuns(50) },
    );
  });

  it("writes parameters afresh even after the text was kept for literals", () => {
    const rows = [row("ada", "owner", "1")];
    const fixed = fixedRowsUnion(rows, bindings, postgres, rowValues);
    expect(statementOver(fixed)).toContain("'ada'");
    const all = select({ selections: [SelectAllNode.create()], from: [table("polar_c0")] });
    const printed = printTree(postgres, unionAll(all, fixed), { kind: "parameters" }, new Set());
    expect(printed.sql).not.toContain("'ada'");
    expect(printed.sql).toContain("$1");
    expect(printed.parameters).toHaveLength(3);
  });
});
