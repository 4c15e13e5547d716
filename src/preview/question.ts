/**
 * Each side's statement for one entry: `allow(actor, "<permission>", resource)` with actor and
 * resource free, printed with literals over the fact table's bindings (`select c0, c1`; null
 * where a rule holds for every value). The goal is the one `evaluate_query` asks with free
 * variables (src/api/questions.ts), built here so that this folder needs nothing of `api`.
 */
import type { DataBindings } from "../bindings/types.js";
import { checkFact } from "../check/facts.js";
import { type Program, predicateKey } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import type { Goal } from "../plan/goal.js";
import { cachedPlan } from "../plan/plan.js";
import type { CentralFacts } from "../plan/resolve/central-facts.js";
import { printPlan } from "../print/statement.js";
import { StageError } from "../source/stage-error.js";
import type { PreviewEntry } from "./universe.js";

interface SideOptions {
  readonly dialect: Dialect;
  readonly central: CentralFacts;
  readonly now: bigint;
  readonly contextFacts: readonly GroundFact[];
}

/** The statement of `program`'s `allow` for the entry, or null when it can allow nothing. */
export function sideStatement(
  program: Program,
  bindings: DataBindings,
  entry: PreviewEntry,
  options: SideOptions,
): string | null {
  if (!program.rules.has(predicateKey("allow", 3))) return null;
  const goal: Goal = {
    calls: [{ name: "allow", args: ["actor", "action", "resource"] }],
    variables: new Map([
      ["actor", { kind: "free", type: entry.actorType }],
      ["action", { kind: "literal", value: { type: "String", id: entry.action } }],
      ["resource", { kind: "free", type: entry.resourceType }],
    ]),
    outputs: ["actor", "resource"],
    outer: null,
  };
  const plan = cachedPlan(program, bindings, goal);
  return printPlan(
    plan,
    bindings,
    new Map(),
    { kind: "select", names: ["c0", "c1"] },
    {
      dialect: options.dialect,
      central: options.central,
      now: () => options.now,
      writing: "literals",
      sources: program.sources,
      contextFacts: checkedContextFacts(program, options.contextFacts),
    },
  ).sql;
}

/** The context facts, or the P601 refusal of the first one the policy does not accept. */
function checkedContextFacts(program: Program, facts: readonly GroundFact[]): GroundFact[] {
  for (const fact of facts) {
    const problem = checkFact(program, fact);
    if (problem) {
      throw new StageError({ code: "P601", kind: "invalid-context-fact", reason: problem.message });
    }
    // The store's text cannot hold NUL: such a fact could never be written into the statement.
    if (fact.args.some((arg) => arg.type.includes("\u0000") || arg.id.includes("\u0000"))) {
      throw new StageError({ code: "P601", kind: "context-fact-nul", predicate: fact.predicate });
    }
  }
  return [...facts];
}
