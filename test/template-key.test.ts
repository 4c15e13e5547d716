/**
 * The key of a printed template (src/print/statement.ts `templateKey`): two requests share a
 * template exactly when their dialect, writing, shape and the text-deciding facts of their
 * params are equal. A key that merged two of them would hand one request the other's text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../src/dialects/registry.js";
import type { Shape } from "../src/lower/lower.js";
import { templateKey } from "../src/print/statement.js";
import { propertyRuns } from "./support/runs.js";

// Texts made of the key's own separators and flags, so that a key that only joined its parts
// would meet another request's key.
const text = fc
  .array(fc.constantFrom("a", "|", ":", "1", "2:", "u", "t", "0", "e", "s"), { maxLength: 5 })
  .map((pieces) => pieces.join(""));
const shape: fc.Arbitrary<Shape> = fc.oneof(
  fc.constantFrom<Shape>(
    { kind: "exists", column: "allowed" },
    { kind: "exists", column: "result" },
    { kind: "actions" },
  ),
  text.map((column): Shape => ({ kind: "filter", column })),
  fc.array(text, { maxLength: 3 }).map((names): Shape => ({ kind: "select", names })),
  fc.tuple(text, text).map(([after, limit]): Shape => ({ kind: "page", after, limit })),
);
const ids = fc.array(fc.constantFrom("17", "abc", "0", "-5", "x|1"), { maxLength: 3 });
const params = fc
  .uniqueArray(fc.tuple(text, ids), {
    selector: ([name]) => name,
    maxLength: 3,
  })
  .map((entries) => new Map(entries));
const request = fc.record({
  dialect: fc.constantFrom(DIALECTS.postgres, DIALECTS.sqlite),
  writing: fc.constantFrom("literals" as const, "parameters" as const),
  shape,
  params,
  arrays: fc.uniqueArray(text, { maxLength: 2 }),
});

type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

/** What decides the text besides the plan, written out plainly. */
function meaning(r: Request): string {
  const untyped = (id: string) => r.dialect.comparesUntyped?.(id) ?? false;
  return JSON.stringify([
    r.dialect.name,
    r.writing,
    r.shape,
    [...r.params].map(([name, list]) => [
      name,
      r.arrays.includes(name) ? list.length > 0 : list.map(untyped),
    ]),
  ]);
}

const keyOf = (r: Request) =>
  templateKey(r.dialect, r.writing, r.shape, r.params, new Set(r.arrays));

describe("templateKey", () => {
  it("is equal for two requests exactly when what decides their text is", () => {
    // Every pair among many requests: grouped by key, then by meaning.
    const meaningOfKey = new Map<string, string>();
    const keyOfMeaning = new Map<string, string>();
    for (const r of fc.sample(request, { numRuns: propertyRuns(20_000, 200_000) })) {
      const key = keyOf(r);
      const meant = meaning(r);
      expect(meaningOfKey.get(key) ?? meant).toBe(meant);
      expect(keyOfMeaning.get(meant) ?? key).toBe(key);
      meaningOfKey.set(key, meant);
      keyOfMeaning.set(meant, key);
    }
    expect(meaningOfKey.size).toBeGreaterThan(1000);
  });

  it("keeps names and columns made of its separators apart", () => {
    const key = (shape: Shape, params: [string, string[]][]) =>
      templateKey(DIALECTS.postgres, "parameters", shape, new Map(params), new Set());
    const actions: Shape = { kind: "actions" };
    // Joined without lengths, each pair would be one key.
    expect(
      key(actions, [
        ["a", ["17"]],
        ["1", []],
      ]),
    ).not.toBe(key(actions, [["a:u|1", []]]));
    expect(
      key(actions, [
        ["a", ["17"]],
        ["1", []],
      ]),
    ).not.toBe(key(actions, [["a:1:u|1:0:", []]]));
    const filter = (column: string): Shape => ({ kind: "filter", column });
    expect(key(filter("c"), [["a", []]])).not.toBe(key(filter("c|1:a0:"), []));
    expect(key(filter("1:c"), [])).not.toBe(key(filter("1:c"), [["", []]]));
  });

  it("tells an id compared untyped from one compared as text", () => {
    const at = (id: string) =>
      templateKey(
        DIALECTS.postgres,
        "literals",
        { kind: "actions" },
        new Map([["actor", [id]]]),
        new Set(),
      );
    expect(at("17")).not.toBe(at("abc"));
    expect(at("17")).toBe(at("18"));
  });
});
