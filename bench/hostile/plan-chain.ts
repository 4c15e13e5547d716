/**
 * In-process planning time of a chain of n rules `c0(d) if c1(d); …` (issue 13): the authorize
 * statement for `c0`, each size planned once in one process (the first sizes warm the JIT).
 * The planner recurses once per link: run with a large stack.
 *
 *   node --stack-size=30000 --import tsx bench/hostile/plan-chain.ts 250 500 1000 2000
 */
import { authorizeQuery } from "../../src/api/local.js";
import { checkPolicy } from "../../src/check/check.js";
import { planStepsSpent, withBudget } from "../../src/core/budget.js";

const BASE = `actor User {}
resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
`;
const data_bindings = `facts:\n  "has_relation(Doc:_, String:_, Doc:_)":\n    query: SELECT d, r, e FROM rel\n`;
const sizes = process.argv.slice(2).map(Number);
for (const n of [...sizes, ...sizes]) {
  const policy = `${BASE}${Array.from({ length: n }, (_, i) => `c${i}(d: Doc) if c${i + 1}(d);`).join("\n")}
c${n}(d: Doc) if has_relation(d, "public", d);
has_role(_: User, "viewer", d: Doc) if c0(d);
`;
  const checked = checkPolicy([{ name: "chain.polar", text: policy }]);
  if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
  const started = performance.now();
  const steps = withBudget({ planSteps: 1e9, branches: 1e9, evaluationSteps: 1 }, () => {
    authorizeQuery(checked.program, {
      query: {
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resource_type: "Doc",
        resource_id: "d1",
      },
      data_bindings,
    });
    return planStepsSpent();
  });
  console.log(`n ${n}: ${Math.round(performance.now() - started)} ms, ${steps} planner steps`);
}
