/** `utf8Length` (src/core/utf8.ts) equals Node's `Buffer.byteLength` for every string. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../src/core/utf8.js";

describe("utf8Length", () => {
  it("counts 1 to 4 bytes per character and 3 for a lone surrogate", () => {
    expect(utf8Length("")).toBe(0);
    expect(utf8Length("a")).toBe(1);
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("€")).toBe(3);
    expect(utf8Length("😀")).toBe(4);
    expect(utf8Length("\ud800")).toBe(3);
    expect(utf8Length("\udc00\ud800")).toBe(6);
  });

  it("equals Buffer.byteLength for any string, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(utf8Length(a)).toBe(Buffer.byteLength(a, "utf8"));
        expect(utf8Length(a + b)).toBe(Buffer.byteLength(a + b, "utf8"));
      }),
      { numRuns: 2000 },
    );
  });
});
