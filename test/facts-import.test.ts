/**
 * `facts import` is all or nothing from the caller's view (src/client/import.ts): against a
 * server whose batches are atomic, for any stored facts before, any file (duplicates and
 * already-stored facts included) and any batch size, either every fact of the file ends up
 * stored, or the store is exactly as it was: a batch refused (400) or failing (500) part way
 * undoes what the import added, never a fact that was stored before. And a facts file is read
 * a record at a time, never holding more than the longest record allowed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClientError, type PolarClient, type WireFact } from "../src/client/http.js";
import { ImportFailure, type NumberedFact, sendFacts } from "../src/client/import.js";
import { readRecords } from "../src/client/records.js";
import { propertyRuns } from "./support/runs.js";

const key = (fact: WireFact) => JSON.stringify(fact);

/**
 * A server holding facts in memory: each `/batch` is atomic; some facts it refuses (400), and
 * the `failAt`-th request that inserts fails (500).
 */
function fakeServer(
  initial: readonly WireFact[],
  refuses: (fact: WireFact) => boolean,
  failAt = -1,
) {
  const stored = new Map(initial.map((fact) => [key(fact), fact]));
  let requests = 0;
  const client: PolarClient = {
    async batch(changesets) {
      const inserts = changesets.some((changeset) => "inserts" in changeset);
      if (inserts && ++requests === failAt) throw new ClientError("the store is down", 500);
      const next = new Map(stored);
      for (const changeset of changesets) {
        if ("inserts" in changeset) {
          const refused = changeset.inserts.find(refuses);
          if (refused) throw new ClientError(`refused ${key(refused)}`, 400);
          for (const fact of changeset.inserts) next.set(key(fact), fact);
        } else {
          for (const pattern of changeset.deletes) next.delete(key(pattern as WireFact));
        }
      }
      stored.clear();
      for (const [k, fact] of next) stored.set(k, fact);
    },
    async getFacts(predicate, args) {
      return [...stored.values()].filter(
        (fact) =>
          fact.predicate === predicate &&
          args.every((arg, i) => fact.args[i]?.type === arg.type && fact.args[i]?.id === arg.id),
      );
    },
    authorize: () => Promise.reject(new Error("unused")),
    list: () => Promise.reject(new Error("unused")),
    actions: () => Promise.reject(new Error("unused")),
    exportFacts: () => {
      throw new Error("unused");
    },
    getPolicy: () => Promise.resolve(null),
    pushPolicy: () => Promise.reject(new Error("unused")),
    previewPolicy: () => Promise.reject(new Error("unused")),
  };
  return { client, stored: () => new Set(stored.keys()) };
}

const fact = fc
  .tuple(fc.constantFrom("has_role", "has_relation"), fc.constantFrom("a", "b", "c", "d", "e"))
  .map(([predicate, id]): WireFact => ({ predicate, args: [{ type: "User", id }] }));

async function* numbered(facts: readonly WireFact[]): AsyncGenerator<NumberedFact> {
  for (const [i, f] of facts.entries()) yield { line: i + 1, fact: f };
}

describe("sendFacts", () => {
  it("stores every fact, or leaves the store exactly as it was", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fact, { selector: key, maxLength: 6 }),
        fc.array(fact, { minLength: 1, maxLength: 12 }),
        fc.option(fact, { nil: undefined }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: -1, max: 8 }),
        async (initial, file, forbidden, batchSize, failAt) => {
          // A refused fact is one the server would not have stored before either.
          const before = initial.filter(
            (f) => forbidden === undefined || key(f) !== key(forbidden),
          );
          const refuses = (f: WireFact) => forbidden !== undefined && key(f) === key(forbidden);
          const server = fakeServer(before, refuses, failAt);
          const start = server.stored();
          try {
            const sent = await sendFacts(server.client, numbered(file), {
              batchSize,
              total: file.length,
            });
            expect(sent).toBe(file.length);
            expect(server.stored()).toEqual(new Set([...start, ...file.map(key)]));
          } catch (error) {
            if (!(error instanceof ImportFailure)) throw error;
            expect(error.remaining).toBe(0);
            expect(server.stored()).toEqual(start);
            // A refusal names the first refused record's line.
            const first = file.findIndex(refuses);
            if (error.line !== null) expect(error.line).toBe(first + 1);
          }
        },
      ),
      { numRuns: propertyRuns(300, 3000) },
    );
  });

  it("names the refused line and says what it undid", async () => {
    const facts = ["a", "b", "c", "d", "e"].map(
      (id): WireFact => ({ predicate: "p", args: [{ type: "User", id }] }),
    );
    const server = fakeServer([facts[1]!], (f) => f.args[0]!.id === "d");
    const failure = await sendFacts(server.client, numbered(facts), {
      batchSize: 2,
      total: 5,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportFailure);
    expect(failure).toMatchObject({ line: 4, undone: 2, remaining: 0 });
    expect((failure as ImportFailure).reason).toMatch(/^refused /);
    expect(server.stored()).toEqual(new Set([key(facts[1]!)]));
  });
});

describe("readRecords", () => {
  async function* endless(text: string): AsyncGenerator<string> {
    for (;;) yield text;
  }

  it("refuses an endless line, and an endless array element, once it passes the limit", async () => {
    for (const [source, error] of [
      [endless("\u0000".repeat(4096)), "line 1 is longer than 65536 characters"],
      [
        (async function* () {
          yield '[{"a": "';
          yield* endless("x".repeat(4096));
        })(),
        "the record starting on line 1 is longer than 65536 characters",
      ],
    ] as const) {
      const records = [];
      for await (const record of readRecords(source, 1 << 16)) records.push(record);
      expect(records).toEqual([{ line: 1, error }]);
    }
  });

  it("takes a record of exactly the limit and refuses one more, however it is cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 5 }),
        async (cuts) => {
          const limit = 64;
          const fits = JSON.stringify({ p: "x".repeat(limit - 8) });
          const over = JSON.stringify({ p: "x".repeat(limit - 7) });
          expect(fits.length).toBe(limit);
          for (const [text, expected] of [
            [`${fits}\n`, [{ line: 1, value: JSON.parse(fits) }]],
            [`\n${over}\n`, [{ line: 2, error: `line 2 is longer than ${limit} characters` }]],
            [`[${fits}]`, [{ line: 1, value: JSON.parse(fits) }]],
            [
              `[${over}]`,
              [
                {
                  line: 1,
                  error: `the record starting on line 1 is longer than ${limit} characters`,
                },
              ],
            ],
          ] as const) {
            const chunks: string[] = [];
            let start = 0;
            for (const size of cuts) {
              chunks.push(text.slice(start, start + size));
              start += size;
            }
            chunks.push(text.slice(start));
            async function* source() {
              yield* chunks;
            }
            const records = [];
            for await (const record of readRecords(source(), limit)) records.push(record);
            expect(records, JSON.stringify(chunks)).toEqual(expected);
          }
        },
      ),
      { numRuns: propertyRuns(100, 1000) },
    );
  });
});
