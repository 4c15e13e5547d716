/**
 * Differential tests: for random facts, every statement the local endpoints emit (authorize,
 * actions, list, select) returns exactly the reference evaluator's answer when executed on
 * PostgreSQL — first with every bindable fact in the caller's tables, then with facts spread
 * over the tables, the central store and context facts.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import type { GroundFact } from "../src/core/value.js";
import {
  attributes,
  attributesSpace,
  blocked,
  blockedSpace,
  customAllow,
  customAllowSpace,
  extendsFamily,
  extendsSpace,
  folders,
  foldersSpace,
  globalRoles,
  globalSpace,
  levels,
  levelsSpace,
  managers,
  managersSpace,
  mutual,
  mutualParity,
  mutualParitySpace,
  mutualSelf,
  mutualSelfSpace,
  mutualSpace,
  mutualTypes,
  mutualTypesSpace,
  nested,
  nestedSpace,
  rbac,
  rbacSpace,
  routedFacts,
} from "./local-families.js";
import { compareAll, type Family, load, prepare } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

const RUNS = Number(process.env.ORACLE_RUNS ?? propertyRuns(2, 12));

const cases = (
  [
    [rbac, rbacSpace],
    [nested, nestedSpace],
    [folders, foldersSpace],
    [globalRoles, globalSpace],
    [attributes, attributesSpace],
    [customAllow, customAllowSpace],
    [extendsFamily, extendsSpace],
    [mutual, mutualSpace],
    [mutualSelf, mutualSelfSpace],
    [mutualParity, mutualParitySpace],
    [mutualTypes, mutualTypesSpace],
    [blocked, blockedSpace],
    [levels, levelsSpace],
    [managers, managersSpace],
  ] as [Family, GroundFact[]][]
).map(([family, space]) => ({ name: family.name, family, space }));

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
