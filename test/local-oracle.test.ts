/**
 * Differential tests: for random facts, every statement the local endpoints emit (authorize,
 * actions, list, select) returns exactly the reference evaluator's answer when executed on
 * PostgreSQL — first with every bindable fact in the caller's tables, then with facts spread
 * over the tables, the central store and context facts.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { ORACLE_CASES, routedFacts } from "./local-families.js";
import { compareAll, load, prepare } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

const RUNS = Number(process.env.ORACLE_RUNS ?? propertyRuns(2, 12));

const cases = ORACLE_CASES;

describeEngines("$name", (engine) => {
  describe.each(cases)("$name", ({ family, space }) => {
    it("matches the evaluator with facts in the caller's tables", async () => {
      const db = await engine.db();
      const prepared = await prepare(db, family);
      await fc.assert(
        fc.asyncProperty(routedFacts(space, ["local"]), async (facts) => {
          const loaded = await load(db, prepared, facts);
          await compareAll(db, prepared, loaded);
        }),
        { numRuns: RUNS },
      );
    });

    it("matches the evaluator with facts spread over tables, central store and context", async () => {
      const db = await engine.db();
      const prepared = await prepare(db, family);
      await fc.assert(
        fc.asyncProperty(routedFacts(space, ["local", "central", "context"]), async (facts) => {
          const loaded = await load(db, prepared, facts);
          await compareAll(db, prepared, loaded);
        }),
        { numRuns: RUNS },
      );
    });
  });
});
