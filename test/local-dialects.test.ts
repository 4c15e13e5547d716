/**
 * Differential tests of the MySQL and SQLite dialects on their real engines (MariaDB, SQLite):
 * for random facts, every local statement (authorize, actions, list, select) returns exactly
 * the reference evaluator's answer, with facts in the caller's tables and spread over the
 * tables, the central store and context facts (test/local-oracle.test.ts does PostgreSQL).
 * The statements of every registered dialect for the same cases are kept as files side by
 * side (test/__snapshots__/dialects/<dialect>/<case>.sql).
 */
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { actionsQuery, authorizeQuery, listQuery } from "../src/api/local.js";
import { DIALECT_NAMES, type DialectName } from "../src/dialects/registry.js";
import { compareOn, loadOn, prepareOn, refused } from "./dialect-support.js";
import { ORACLE_CASES, routedFacts } from "./local-families.js";
import { checked, type Family } from "./local-support.js";
import { describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

const RUNS = Number(process.env.ORACLE_RUNS ?? propertyRuns(2, 12));

const cases = ORACLE_CASES;

afterAll(() => {
  // MariaDB refuses questions that read one recursive relation too often (docs/dialects.md);
  // SQLite refuses nothing.
  expect(refused.filter((what) => !what.startsWith("mariadb "))).toEqual([]);
  if (refused.length > 0) {
    console.warn(
      `refused by the dialect (${refused.length}):\n${[...new Set(refused)].join("\n")}`,
    );
  }
});

/** The four statements of a family's first question, or the dialect's refusal, as one text. */
function statements(family: Family, dialect: DialectName): string {
  const program = checked(family.policy);
  const yaml = family.bindings
    .map((signature, i) => `  "${signature}":\n    query: SELECT * FROM ${family.name}_b${i}`)
    .join("\n");
  const data_bindings = `facts:\n${yaml}\nsql_types:\n${Object.entries(family.sqlTypes)
    .map(([type, sqlType]) => `  ${type}: ${sqlType}`)
    .join("\n")}\n`;
  const actor = family.actors[0]!;
  const type = family.resourceTypes[0]!;
  const resource = family.domain[type]![0]!;
  const pair = { actor_type: actor.type, actor_id: actor.id, resource_type: type };
  const options = { dialect, checkBindings: false, now: () => 1_700_000_000n };
  const attempt = (label: string, make: () => { sql: string }) => {
    try {
      return `-- ${label}\n${make().sql};\n`;
    } catch (error) {
      return `-- ${label}: refused\n-- ${(error as Error).message}\n`;
    }
  };
  return [
    attempt("authorize", () =>
      authorizeQuery(
        program,
        { query: { ...pair, action: family.actions[0]!, resource_id: resource }, data_bindings },
        options,
      ),
    ),
    attempt("actions", () =>
      actionsQuery(program, { query: { ...pair, resource_id: resource }, data_bindings }, options),
    ),
    attempt("list", () =>
      listQuery(
        program,
        { query: { ...pair, action: family.actions[0]! }, column: "t.id", data_bindings },
        options,
      ),
    ),
  ].join("\n");
}

// Every registered dialect's statements for the same cases, one file per dialect and case.
describe.each(DIALECT_NAMES)("%s statements", (dialect) => {
  it.each(cases)("$name", async ({ family }) => {
    await expect(statements(family, dialect)).toMatchFileSnapshot(
      join(import.meta.dirname, "__snapshots__", "dialects", dialect, `${family.name}.sql`),
    );
  });
});

describeDialects("$name", (engine) => {
  describe.each(cases)("$name", ({ family, space }) => {
    it("matches the evaluator with facts in the caller's tables", async () => {
      const db = await engine.db();
      const prepared = await prepareOn(engine, db, family);
      await fc.assert(
        fc.asyncProperty(routedFacts(space, ["local"]), async (facts) => {
          const loaded = await loadOn(engine, db, prepared, facts);
          await compareOn(engine, db, prepared, loaded);
        }),
        { numRuns: RUNS },
      );
    });

    it("matches the evaluator with facts spread over tables, central store and context", async () => {
      const db = await engine.db();
      const prepared = await prepareOn(engine, db, family);
      await fc.assert(
        fc.asyncProperty(routedFacts(space, ["local", "central", "context"]), async (facts) => {
          const loaded = await loadOn(engine, db, prepared, facts);
          await compareOn(engine, db, prepared, loaded);
        }),
        { numRuns: RUNS },
      );
    });
  });
});
