/**
 * `matchingFactsOfEach` reads many lookups in statements whose text does not grow with their
 * number (src/store/facts.ts): on SQLite, PGlite and PostgreSQL (DATABASE_URL), for random facts
 * and random lookups (values and types fixed anywhere, more shapes than one statement takes,
 * thousands of lookups, NULs, arities past the store's), each lookup finds exactly what
 * `matchingFacts` finds for it alone.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroundFact, Value } from "../src/core/value.js";
import { type FactLookup, matchingFactsOfEach } from "../src/store/fact-lookups.js";
import { insertFacts, matchingFacts } from "../src/store/facts.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { serverSchema } from "./support/central-services.js";
import { propertyRuns } from "./support/runs.js";

const value = fc.record({
  type: fc.constantFrom("User", "Folder", "String"),
  // Text that JSON escapes or could read as a number: SQLite's lookups come back as JSON arrays.
  id: fc.constantFrom("a", "b", "c", "d\u0000", "é", '"q\\', "5", "05", "1e3", "😀\n"),
});
const fact = fc.record({
  predicate: fc.constantFrom("has_role", "has_relation", "p"),
  args: fc.array(value, { minLength: 1, maxLength: 4 }),
});
const lookup: fc.Arbitrary<FactLookup> = fc
  .record({
    predicate: fc.constantFrom("has_role", "has_relation", "p"),
    arity: fc.integer({ min: 1, max: 9 }),
    pattern: fc.array(fc.option(value, { nil: null }), { maxLength: 9 }),
    types: fc.array(fc.option(fc.constantFrom("User", "Folder"), { nil: null }), {
      maxLength: 9,
    }),
  })
  .map(({ predicate, arity, pattern, types }) => ({
    predicate,
    arity,
    pattern: pattern.slice(0, arity),
    types: types.slice(0, arity),
  }));

const sorted = (facts: readonly GroundFact[]) => facts.map((f) => JSON.stringify(f)).sort();
const stored = (facts: readonly GroundFact[]) =>
  facts.filter((f) => !f.args.some((arg: Value) => arg.id.includes("\u0000")));

const engines: { name: string; open(): Promise<{ store: FactStore; drop(): Promise<void> }> }[] = [
  { name: "sqlite", open: async () => ({ store: await openStore({}), drop: async () => {} }) },
  {
    name: "pglite",
    open: async () => ({ store: await openStore({ embedded: "pglite" }), drop: async () => {} }),
  },
];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  engines.push({
    name: "postgres",
    open: async () => {
      const schema = await serverSchema(databaseUrl, "lookups");
      return { store: await openStore({ databaseUrl: schema.url }), drop: schema.drop };
    },
  });
}

describe.each(engines)("matchingFactsOfEach on $name", ({ open }) => {
  let opened: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.drop();
  });

  it("finds for each lookup what matchingFacts finds for it", async () => {
    const { db } = opened.store;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fact, { maxLength: 60 }),
        fc.array(lookup, { minLength: 1, maxLength: 200 }),
        async (facts, lookups) => {
          await db.query("DELETE FROM polar_fact");
          await insertFacts(db, stored(facts));
          const together = await matchingFactsOfEach(db, lookups);
          expect(together).toHaveLength(lookups.length);
          for (const [i, { predicate, arity, pattern, types }] of lookups.entries()) {
            const nul = (pattern ?? []).some((v) => v?.id.includes("\u0000"));
            const alone = nul ? [] : await matchingFacts(db, predicate, arity, pattern, types);
            expect(sorted(together[i]!), JSON.stringify(lookups[i])).toEqual(sorted(alone));
          }
        },
      ),
      { numRuns: propertyRuns(15, 100) },
    );
  });

  it("answers 3,000 lookups of one set of columns, and 120 sets at once", async () => {
    const { db } = opened.store;
    await db.query("DELETE FROM polar_fact");
    const folder = (i: number) => ({ type: "Folder", id: `f${i}` });
    const parent = (i: number): GroundFact => ({
      predicate: "has_relation",
      args: [folder(i), { type: "String", id: "parent" }, folder(i + 1)],
    });
    await insertFacts(
      db,
      Array.from({ length: 3000 }, (_, i) => parent(i)),
    );
    const many = Array.from({ length: 3000 }, (_, i) => ({
      predicate: "has_relation",
      arity: 3,
      pattern: [folder(i), null, null],
    }));
    // 120 sets of fixed columns: one `SELECT` each, more than one statement takes.
    const wide: GroundFact = {
      predicate: "p",
      args: Array.from({ length: 8 }, (_, j) => ({ type: "Folder", id: `a${j}` })),
    };
    await insertFacts(db, [wide]);
    const shapes = Array.from({ length: 120 }, (_, mask) => ({
      predicate: "p",
      arity: 8,
      pattern: wide.args.map((arg, j) => (mask & (1 << j) ? arg : null)),
    }));
    const found = await matchingFactsOfEach(db, [...many, ...shapes]);
    expect(found.slice(0, 3000).map((facts) => facts.length)).toEqual(Array(3000).fill(1));
    expect(found[7]).toEqual([parent(7)]);
    expect(found.slice(3000)).toEqual(shapes.map(() => [wide]));
  });
});
