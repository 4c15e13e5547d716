/**
 * Cross-API consistency of the central service (issue 5): on random facts, for every actor,
 * action and resource of a small domain, authorize = list membership = actions membership =
 * evaluate_query = authorize_resources = authorize_query executed = the reference evaluator.
 * Each policy family runs twice: facts stored, and the same facts sent as context facts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { indexFacts } from "../src/evaluate/index.js";
import { askEverything } from "./support/central-answers.js";
import { CENTRAL_FAMILIES, type CentralFamily, NOW } from "./support/central-families.js";
import { describeServiceEngines, factModesInTurn } from "./support/central-services.js";
import { testEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

/**
 * Each run asks a few hundred questions of a real database; keep the count modest. fast-check
 * counts the full-space example within `numRuns`: 2 is that example and one random case.
 */
const RUNS = Number(process.env.CENTRAL_RUNS ?? propertyRuns(2, 7));

// Runs the statements of authorize_query (self-contained: no bindings) on PostgreSQL.
const [sqlEngine] = testEngines();
const runSql = async (sql: string) => (await sqlEngine!.db()).query(sql);

function programOf(family: CentralFamily): Program {
  const checked = checkPolicy([{ name: family.file, text: family.src }]);
  if (!checked.ok) throw new Error(`${family.file} does not check`);
  return checked.program;
}

const wire = (facts: readonly GroundFact[]) =>
  facts.map((f) => ({ predicate: f.predicate, args: f.args.map((a) => ({ ...a })) }));

describeServiceEngines({ now: () => NOW }, "central consistency on $name", (engine) => {
  describe.each(CENTRAL_FAMILIES.map((family, index) => ({ ...family, index })))(
    "$name",
    (family) => {
      const program = programOf(family);
      const facts = fc.subarray([...family.space], {
        maxLength: Math.min(18, family.space.length),
      });

      for (const { mode, asked } of factModesInTurn(family.index, engine)) {
        it.skipIf(!asked)(`facts ${mode}: every API agrees with the reference`, async () => {
          const service = await engine.service();
          const policy = await service.postPolicy({ src: family.src, filename: family.file }, {});
          expect([200, 202]).toContain(policy.status ?? 200);
          let allowed = 0;
          let questions = 0;
          await fc.assert(
            fc.asyncProperty(facts, async (chosen) => {
              await service.clearData();
              if (mode === "stored") await service.batch([{ inserts: wire(chosen) }]);
              const found = await askEverything(family, {
                service,
                program,
                facts: indexFacts(chosen),
                contextFacts: mode === "context" ? chosen : [],
                runSql,
                now: NOW,
              });
              expect(found.mismatches).toEqual([]);
              allowed += found.allowed;
              questions += found.questions;
            }),
            // The whole space as one example: the property never holds vacuously.
            { numRuns: RUNS, examples: [[[...family.space]]] },
          );
          expect(allowed).toBeGreaterThan(0);
          expect(allowed).toBeLessThan(questions);
        });
      }
    },
  );

  it("a question about facts that are stored and also sent as context counts them once", async () => {
    const service = await engine.service();
    const family = CENTRAL_FAMILIES[0]!;
    await service.postPolicy({ src: family.src, filename: family.file }, {});
    await service.clearData();
    const grant = {
      predicate: "has_role",
      args: [
        { type: "User", id: "ada" },
        { type: "String", id: "viewer" },
        { type: "Workspace", id: "w1" },
      ],
    };
    await service.batch([{ inserts: [grant] }]);
    const listed = await service.list({
      actor_type: "User",
      actor_id: "ada",
      action: "read",
      resource_type: "Workspace",
      context_facts: [grant],
      page_size: 10_000,
    });
    expect(listed.body).toStrictEqual({ results: ["w1"] });
    const denied = await service.authorize({
      actor_type: "User",
      actor_id: "ada",
      action: "write",
      resource_type: "Workspace",
      resource_id: "w1",
      context_facts: [grant],
    });
    expect(denied.body).toEqual({ allowed: false });
  });
});
