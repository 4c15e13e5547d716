/** The store's waiting queue (src/core/fifo.ts) against an array doing the same. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fifo } from "../src/core/fifo.js";

const LONG = process.env.POLAR_SQL_LONG === "1";

type Step =
  | { readonly op: "push"; readonly count: number }
  | { readonly op: "shift"; readonly count: number }
  | { readonly op: "unshift"; readonly count: number }
  | { readonly op: "takeAll" };

const step: fc.Arbitrary<Step> = fc.oneof(
  // Runs long enough to cross the queue's compaction point (1,024 taken).
  fc.record({ op: fc.constant("push" as const), count: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ op: fc.constant("shift" as const), count: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ op: fc.constant("unshift" as const), count: fc.integer({ min: 0, max: 5 }) }),
  fc.constant({ op: "takeAll" as const }),
);

describe("Fifo", () => {
  it("gives items back in the order an array would, through every operation", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const fifo = new Fifo<number>();
        const model: number[] = [];
        let next = 0;
        for (const s of steps) {
          if (s.op === "push") {
            for (let i = 0; i < s.count; i++, next++) {
              fifo.push(next);
              model.push(next);
            }
          } else if (s.op === "shift") {
            for (let i = 0; i < s.count; i++) expect(fifo.shift()).toBe(model.shift());
          } else if (s.op === "unshift") {
            const back = Array.from({ length: s.count }, () => next++);
            fifo.unshift(back);
            model.unshift(...back);
          } else expect(fifo.takeAll()).toEqual(model.splice(0));
          expect(fifo.length).toBe(model.length);
          expect(fifo.peek()).toBe(model[0]);
        }
      }),
      { numRuns: LONG ? 1000 : 100 },
    );
  });

  it("answers undefined when empty, and stays usable", () => {
    const fifo = new Fifo<string>();
    expect(fifo.shift()).toBeUndefined();
    expect(fifo.peek()).toBeUndefined();
    expect(fifo.takeAll()).toEqual([]);
    fifo.push("a");
    expect(fifo.shift()).toBe("a");
    expect(fifo.length).toBe(0);
  });
});
