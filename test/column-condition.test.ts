/**
 * A plain scan's condition qualified for the reader's WHERE (src/bindings/column-condition.ts):
 * the forms that qualify, with every column and nothing else prefixed, and those that keep the
 * scan's own SELECT.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { qualifiedCondition } from "../src/bindings/column-condition.js";
import { propertyRuns } from "./support/runs.js";

describe("qualifiedCondition", () => {
  it.each([
    ["parent_id IS NOT NULL", "f0.parent_id IS NOT NULL"],
    ["is_public", "f0.is_public"],
    ["NOT archived AND org_id IS NULL", "NOT f0.archived AND f0.org_id IS NULL"],
    ["note <> 'hidden'", "f0.note <> 'hidden'"],
    ["level>=2 and 'x' = kind", "f0.level>=2 and 'x' = f0.kind"],
    ["role IN ('a', 'b c') AND flag IS TRUE", "f0.role IN ('a', 'b c') AND f0.flag IS TRUE"],
    ["status NOT IN (1, 2)", "f0.status NOT IN (1, 2)"],
  ])("qualifies %s", (condition, qualified) => {
    expect(qualifiedCondition(condition, "f0")).toBe(qualified);
  });

  it.each([
    ["a function", "coalesce(doc_id, 0) > 0"],
    ["OR", "a = 1 OR b = 2"],
    ["a quoted name", "\"role\" = 'x'"],
    ["a qualified name", "docs.org_id IS NOT NULL"],
    ["a word read as a value", "owner = current_user"],
    ["a comment", "flag /* on */ IS TRUE"],
    ["a line comment", "flag -- on"],
    ["two columns compared", "a = b"],
    ["a parameter", "a = $1"],
    ["a cast", "a::int = 1"],
    ["nothing", ""],
  ])("leaves %s alone", (_what, condition) => {
    expect(qualifiedCondition(condition, "f0")).toBeNull();
  });

  it("prefixes exactly the columns of any conjunction of the forms, keeping the rest as written", () => {
    const column = fc.constantFrom("a", "org_id", "Level", "x9");
    const literal = fc.constantFrom("1", "'and'", "'it''s'", "2.5");
    const conjunct = fc.oneof(
      column.map((c) => ({ text: c, columns: [c] })),
      column.map((c) => ({ text: `NOT ${c}`, columns: [c] })),
      fc.tuple(column, fc.constantFrom("IS NULL", "is not null", "IS TRUE")).map(([c, tail]) => ({
        text: `${c} ${tail}`,
        columns: [c],
      })),
      fc.tuple(column, fc.constantFrom("=", "<>", "<=", ">"), literal).map(([c, op, l]) => ({
        text: `${c} ${op} ${l}`,
        columns: [c],
      })),
      fc.tuple(column, fc.array(literal, { minLength: 1, maxLength: 3 })).map(([c, ls]) => ({
        text: `${c} IN (${ls.join(", ")})`,
        columns: [c],
      })),
    );
    fc.assert(
      fc.property(fc.array(conjunct, { minLength: 1, maxLength: 4 }), (parts) => {
        const condition = parts.map((p) => p.text).join(" AND ");
        const expected = parts.map((p) => p.text.replace(p.columns[0]!, `q1.${p.columns[0]}`));
        expect(qualifiedCondition(condition, "q1")).toBe(expected.join(" AND "));
      }),
      { numRuns: propertyRuns(200, 2000) },
    );
  });
});
