/**
 * Where the policy writes the constants of a plan. Plan terms keep no spans: passes compare
 * and cache them by their JSON text (merge.ts, cte.ts, reuse.ts, resolve/), so a span inside a
 * literal would make one constant written in two places two different terms. The plan carries
 * these spans beside its terms instead (`Plan.constants`), for the refusals that are about a
 * constant: a value its column type cannot hold (P703 `unwritable-value`, resolve/resolve.ts)
 * and a value the dialect has no literal for (P713, src/print/value-refusal.ts).
 */
import { canonicalValue, termValue } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { visitExpr } from "../check/walk.js";
import type { Value } from "../core/value.js";
import type { Term as AstTerm } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import type { Goal } from "./goal.js";
import type { Branch, Output, PolicyConstant, RecursiveCte } from "./ir.js";

const spansByProgram = new WeakMap<Program, ReadonlyMap<string, Span>>();

function valueKey(value: Value): string {
  return `${value.type}\u0000${value.id}`;
}

/** The first place each constant is written: clauses in program order, head before body. */
function constantSpans(program: Program): ReadonlyMap<string, Span> {
  const known = spansByProgram.get(program);
  if (known) return known;
  const spans = new Map<string, Span>();
  const note = (term: AstTerm) => {
    const value = termValue(term);
    if (!value) return;
    const key = valueKey(canonicalValue(value));
    if (!spans.has(key)) spans.set(key, term.span);
  };
  for (const clauses of program.rules.values()) {
    for (const clause of clauses) {
      for (const param of clause.params) if (param.kind !== "typed") note(param);
      if (clause.body) visitExpr(clause.body, { term: note });
    }
  }
  spansByProgram.set(program, spans);
  return spans;
}

/**
 * The constants that branches output or compare, with the span of the policy text that writes
 * each. A literal of the goal (`"read"`) comes from the question, not the policy: it gets
 * none, and neither does a constant only a binding's signature writes.
 *
 *   policyConstants(program, goal, plan.branches) // [{ value: { type: "Doc", id: "x" }, span }]
 */
export function policyConstants(
  program: Program,
  goal: Goal,
  branches: readonly Branch[],
  ctes: readonly RecursiveCte[],
): readonly PolicyConstant[] {
  const asked = new Set<string>();
  for (const variable of goal.variables.values()) {
    if (variable.kind === "literal") asked.add(valueKey(variable.value));
  }
  const spans = constantSpans(program);
  const found = new Map<string, PolicyConstant>();
  const note = (term: Output) => {
    if (term.kind !== "literal") return;
    const key = valueKey(term.value);
    const span = spans.get(key);
    if (span && !asked.has(key) && !found.has(key)) found.set(key, { value: term.value, span });
  };
  const visit = (branch: Branch) => {
    for (const output of branch.outputs) note(output);
    for (const condition of branch.conditions) {
      switch (condition.kind) {
        case "compare":
          note(condition.left);
          note(condition.right);
          break;
        case "in":
          note(condition.term);
          condition.values.forEach(note);
          break;
        case "exists":
        case "not_exists":
          condition.branches.forEach(visit);
          break;
        default: {
          const _never: never = condition;
          return _never;
        }
      }
    }
  };
  branches.forEach(visit);
  for (const cte of ctes) [...cte.seeds, ...cte.steps].forEach(visit);
  return [...found.values()];
}
