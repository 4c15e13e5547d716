import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { railroadPath, renderRailroad } from "../grammar/generate.js";
import { parser } from "../src/polar/parser.js";

const ebnf = readFileSync(new URL("../grammar/polar.ebnf", import.meta.url), "utf8");
/** Production names of polar.ebnf: `name =` at the start of a line, comments removed. */
const productions = ebnf
  .replace(/\(\*[\s\S]*?\*\)/g, "")
  .split("\n")
  .map((line) => /^([A-Za-z]\w*)\s*=/.exec(line)?.[1])
  .filter((name): name is string => name !== undefined);
const ruleNames = Object.keys(parser.getGAstProductions());

describe("grammar docs", () => {
  it("checks in railroad.html as generated from the parser (run `npm run grammar`)", () => {
    expect(readFileSync(railroadPath, "utf8")).toBe(renderRailroad());
  });

  it("renders the same page on every call", () => {
    expect(renderRailroad()).toBe(renderRailroad());
  });

  it("has one EBNF production per parser rule, under the same name", () => {
    expect(ruleNames.length).toBeGreaterThan(30);
    expect([...productions].sort()).toEqual([...ruleNames].sort());
  });
});
