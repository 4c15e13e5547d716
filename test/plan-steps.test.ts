/**
 * Planner work on deep rule chains (issue 13), counted in planner steps (src/core/budget.ts:
 * one per conjunction, instance and inlined branch), never in wall time. A chain
 * `c0(d) if c1(d); c1(d) if c2(d); …` used to carry the stored facts of every link up the
 * chain as one branch each: n² steps. One facts source of all the links' predicates
 * (src/plan/merge.ts) makes it linear.
 */
import { describe, expect, it } from "vitest";
import { authorizeQuery } from "../src/api/local.js";
import { planStepsSpent, withBudget } from "../src/core/budget.js";
import { createService } from "../src/service/service.js";
import { checked } from "./local-support.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const chain = (n: number) => `actor User {}
resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
${Array.from({ length: n }, (_, i) => `c${i}(d: Doc) if c${i + 1}(d);`).join("\n")}
c${n}(d: Doc) if has_relation(d, "public", d);
has_role(_: User, "viewer", d: Doc) if c0(d);
`;

const QUESTION = {
  query: {
    actor_type: "User",
    actor_id: "ada",
    action: "read",
    resource_type: "Doc",
    resource_id: "d1",
  },
  data_bindings: `facts:\n  "has_relation(Doc:_, String:_, Doc:_)":\n    query: SELECT d, r, e FROM rel\n`,
};

function steps(n: number): number {
  const program = checked(chain(n));
  return withBudget({ planSteps: 1e9, branches: 1e9, evaluationSteps: 1 }, () => {
    authorizeQuery(program, QUESTION);
    return planStepsSpent();
  });
}

describe("a chain of n rules", () => {
  it("plans in planner steps linear in n", () => {
    const [s50, s100, s200] = [50, 100, 200].map(steps);
    expect(s200! - s100!).toBe(2 * (s100! - s50!));
  });

  it("answers from stored facts of any link, read through one source", async () => {
    const service = await createService({ pool: sharedWorkerPool() });
    try {
      await service.postPolicy({ src: chain(30), filename: null }, {});
      const fact = (link: string, id: string) => ({
        predicate: link,
        args: [{ type: "Doc", id }],
      });
      await service.batch([{ inserts: [fact("c7", "d7"), fact("c30", "d30")] }]);
      const ask = async (id: string) =>
        (
          await service.authorize({
            actor_type: "User",
            actor_id: "ada",
            action: "read",
            resource_type: "Doc",
            resource_id: id,
          })
        ).body;
      expect(await ask("d7")).toEqual({ allowed: true });
      expect(await ask("d30")).toEqual({ allowed: true });
      expect(await ask("d8")).toEqual({ allowed: false });
    } finally {
      await service.close();
    }
  });
});
