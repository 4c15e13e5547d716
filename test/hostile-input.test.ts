import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitItems } from "../src/polar/items.js";
import { lexPolicy } from "../src/polar/lexer.js";
import { type ParseResult, parsePolicy } from "../src/polar/parse.js";
import { propertyRuns } from "./support/runs.js";

const folder = new URL("../examples/reference/", import.meta.url);
const examples = readdirSync(folder)
  .filter((name) => name.endsWith(".polar"))
  .map((name) => readFileSync(new URL(name, folder), "utf8"));

/** Characters that matter to the lexer, plus some that do not. */
const polarChar = fc.constantFrom(
  ..."abcxyz_AZ019 \t\n\r(){}[],;:=!<>?@#\"\\.+-%$&|'`~^*/é名😀\u00a0".match(/./gsu)!,
  "if ",
  "and ",
  "or ",
  "not ",
  "in ",
  "matches ",
  "actor ",
  "resource ",
  "global ",
  "test ",
  "fixture ",
  "setup ",
  "assert ",
  "iff ",
  "on ",
  "extends ",
  "@current_unix_time",
  "1.5",
);
const polarText = fc.string({ unit: polarChar, maxLength: 300 });

/** Any UTF-16 text, lone surrogates included (cheaper to generate than `unit: "binary"`). */
const anyText = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
    ),
    { maxLength: 200 },
  )
  .map((chars) => chars.join(""));

interface Mutation {
  readonly kind: "delete" | "insert" | "duplicate";
  readonly at: number;
  readonly length: number;
  readonly text: string;
}
const mutation = fc.record({
  kind: fc.constantFrom("delete", "insert", "duplicate"),
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 30 }),
  text: fc.string({ unit: polarChar, minLength: 1, maxLength: 5 }),
}) as fc.Arbitrary<Mutation>;

function mutate(text: string, mutations: readonly Mutation[]): string {
  let result = text;
  for (const { kind, at, length, text: inserted } of mutations) {
    const start = at % (result.length + 1);
    const end = Math.min(result.length, start + length);
    if (kind === "delete") result = result.slice(0, start) + result.slice(end);
    else if (kind === "insert") result = result.slice(0, start) + inserted + result.slice(start);
    else result = result.slice(0, end) + result.slice(start, end) + result.slice(end);
  }
  return result;
}
const mutatedExample = fc
  .tuple(fc.constantFrom(...examples), fc.array(mutation, { minLength: 1, maxLength: 4 }))
  .map(([text, mutations]) => mutate(text, mutations));

function parse(text: string): ParseResult {
  return parsePolicy({ name: "hostile.polar", text });
}

/**
 * What must hold for any input: a policy AST, one-line messages, spans inside the text, and no
 * item dropped without an error. Collected first and asserted once: `expect` per diagnostic
 * would dominate the run time.
 */
function expectWellFormed(text: string, result: ParseResult): void {
  const problems: string[] = [];
  if (result.ast.kind !== "policy") problems.push("not a policy");
  if (result.ast.span.start !== 0 || result.ast.span.end !== text.length) problems.push("span");
  for (const { message, span } of result.diagnostics) {
    if (!/^[^A-Z].*[^.]$/.test(message)) problems.push(`message style: ${message}`);
    if (!span || span.start < 0 || span.end > text.length || span.start > span.end) {
      problems.push(`span of ${message}: ${JSON.stringify(span)}`);
    }
  }
  if (!result.diagnostics.some((d) => d.severity === "error")) {
    const { tokens } = lexPolicy({ name: "hostile.polar", text });
    const expected = splitItems(tokens).length;
    if (result.ast.items.length !== expected) problems.push("an item was dropped silently");
  }
  expect(problems).toEqual([]);
}

describe("hostile input", () => {
  it("never throws on random text", () => {
    fc.assert(
      fc.property(polarText, (text) => {
        expectWellFormed(text, parse(text));
      }),
      { numRuns: propertyRuns(100, 400) },
    );
  });

  it("never throws on random Unicode", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expectWellFormed(text, parse(text));
      }),
      { numRuns: propertyRuns(50, 200) },
    );
  });

  it("never throws on mutated example policies, and parses them deterministically", () => {
    fc.assert(
      fc.property(mutatedExample, fc.constantFrom(...examples), (text, other) => {
        const first = parse(text);
        expectWellFormed(text, first);
        parse(other); // the shared parser must carry nothing over between calls
        expect(parse(text)).toEqual(first);
      }),
      { numRuns: propertyRuns(50, 200) },
    );
  });

  it("reports at least one error for text with an invalid fragment between tokens", () => {
    const fragment = fc.constantFrom(
      "%",
      "$",
      "&&",
      "1.5",
      "==",
      "99999999999999999999",
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      "if",
      "x.y",
      "isa",
      '"open\n',
    );
    const broken = fc
      .tuple(fc.constantFrom(...examples), fc.nat(), fragment)
      .map(([text, at, inserted]) => {
        const starts = lexPolicy({ name: "x", text }).tokens.map((token) => token.startOffset);
        const position = starts[at % starts.length]!;
        return `${text.slice(0, position)} ${inserted} ${text.slice(position)}`;
      });
    fc.assert(
      fc.property(broken, (text) => {
        const result = parse(text);
        expectWellFormed(text, result);
        expect(result.diagnostics.some((d) => d.severity === "error")).toBe(true);
      }),
      { numRuns: propertyRuns(100, 400) },
    );
  });

  it("refuses 10,000 levels of nesting without overflowing the stack", () => {
    const deep = 10_000;
    const cases = [
      `p(x) if ${"(".repeat(deep)}x = 1${")".repeat(deep)};`,
      `p(x) if ${"not ".repeat(deep)}f(x);`,
      `p(x) if ${"not (".repeat(deep)}f(x)${")".repeat(deep)};`,
      `resource R { "a" if ${"(".repeat(deep)}"b"${")".repeat(deep)}; }`,
      `resource R { "a" if ${"not ".repeat(deep)}"b"; }`,
      `test "t" { assert p(x) iff ${"(".repeat(deep)}x = 1${")".repeat(deep)}; }`,
      `?= ${"(".repeat(deep)}`,
    ];
    for (const text of cases) {
      const result = parse(text);
      expect(result.diagnostics.map((d) => d.code)).toContain("P009");
    }
    // Brackets and braces do not nest in the grammar: plain syntax errors.
    for (const open of ["[", "{"]) {
      const result = parse(`p(x) if x in ${open.repeat(deep)};`);
      expect(result.diagnostics.length).toBeGreaterThan(0);
    }
  });

  // How long this takes is measured in bench/front-end.ts, not asserted here.
  it("parses 1 MB of valid, broken and pathological input", () => {
    const valid = examples.join("\n").repeat(Math.ceil(1_000_000 / examples.join("\n").length));
    const junk = fc.sample(fc.string({ unit: polarChar, minLength: 1000, maxLength: 1000 }), {
      numRuns: 1000,
      seed: 42,
    });
    const inputs = [
      valid,
      junk.join(""),
      `resource A {${"x y ".repeat(250_000)}`,
      `"${"a".repeat(1_000_000)}`,
      '"abc\n'.repeat(200_000),
      // One huge item: a quarter of the size keeps the test quick.
      `p(x) if ${"a = b and ".repeat(25_000)}c = d;`,
    ];
    const results = inputs.map((text) => parse(text));
    expect(results[0]!.diagnostics).toEqual([]);
    expect(results[0]!.ast.items.length).toBeGreaterThan(1000);
    for (const result of results.slice(1, -1)) expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(results.at(-1)!.ast.items).toHaveLength(1);
  });
});
