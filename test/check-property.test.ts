import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Program } from "../src/check/program.js";
import { stripSpans } from "../src/check/structural.js";
import { parsePolicy } from "../src/polar/parse.js";
import type { SourceFile } from "../src/source/source.js";
import { checkOk, normalizeClause } from "./check-support.js";
import { propertyRuns } from "./support/runs.js";

const text = (value: unknown) =>
  JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
const sorted = <T>(values: T[]) => values.sort((a, b) => (text(a) < text(b) ? -1 : 1));

/** Everything a Program says, independent of item order and file layout. */
function summary(program: Program): unknown {
  const json = (value: unknown) => JSON.parse(text(stripSpans(value)));
  return json({
    types: sorted([...program.types.values()].map((t) => ({ ...t, span: undefined }))),
    resources: sorted([...program.resources.values()]),
    rules: sorted(
      [...program.rules].map(([key, clauses]) => [
        key,
        sorted(clauses.map((c) => text([c.origin, normalizeClause(c)]))),
      ]),
    ),
    signatures: sorted([...program.factSignatures.values()]),
    tests: sorted(program.tests.map((t) => ({ ...t, span: undefined }))),
    warnings: sorted(program.warnings.map((w) => w.message)),
  });
}

function itemTexts(file: string): string[] {
  const source = readFileSync(join(import.meta.dirname, "..", "examples", file), "utf8");
  const { ast, diagnostics } = parsePolicy({ name: file, text: source });
  expect(diagnostics).toEqual([]);
  return ast.items.map((item) => source.slice(item.span.start, item.span.end));
}

describe("order independence", () => {
  for (const file of ["gitclub.polar", "reference/12-5-attributes-not.polar"]) {
    it(`any permutation of the items of ${file}, over any number of files, gives the same program`, () => {
      const items = itemTexts(file);
      const baseline = summary(checkOk(items.join("\n")));
      fc.assert(
        fc.property(
          fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length }),
          fc.array(fc.nat(2), { minLength: items.length, maxLength: items.length }),
          (shuffled, fileOf) => {
            const files: string[][] = [[], [], []];
            shuffled.forEach((item, i) => {
              files[fileOf[i]!]!.push(item);
            });
            const sources: SourceFile[] = files
              .filter((f) => f.length > 0)
              .map((f, i) => ({ name: `part${i}.polar`, text: f.join("\n\n") }));
            expect(summary(checkOk(sources))).toEqual(baseline);
          },
        ),
        { numRuns: propertyRuns(15, 40) },
      );
    });
  }
});
