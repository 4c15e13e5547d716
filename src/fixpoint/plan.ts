/**
 * Planning one family's iteration: each predicate's exits and steps are planned like a
 * question (src/plan) with every argument free, over the family's tables presented as data
 * bindings. A branch's answers have one type per argument, so the plans come grouped by
 * argument-type shape; a shape first produced by some rule gets its own bindings and the rules
 * are planned again, until the shapes settle (there are finitely many types).
 */
import type { Binding, DataBindings } from "../bindings/types.js";
import type { Clause, PredicateKey, Program } from "../check/program.js";
import type { Dialect } from "../dialects/dialect.js";
import { planBody } from "../plan/body.js";
import { type Planner, universalRuleOrigin } from "../plan/context.js";
import { at, PlanError } from "../plan/errors.js";
import { expandBranches, newExpansion } from "../plan/expand.js";
import { type Branch, type Plan, termType } from "../plan/ir.js";
import { simplifyBranches } from "../plan/merge.js";
import { createPlanner } from "../plan/plan.js";
import { EMPTY_STATE, outputOf } from "../plan/state.js";
import type { Call } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import { deltaName, exitName, type Family, splitKey, stepName } from "./families.js";
import { type FamilyTables, type RowShape, tableBinding } from "./tables.js";

/** Answers of one rule name with one argument-type shape. */
export interface ShapedPlan {
  readonly shape: RowShape;
  readonly plan: Plan;
}

export interface FamilyPlans {
  readonly exits: readonly ShapedPlan[];
  readonly steps: readonly ShapedPlan[];
  /** Every shape the family's rows can have. */
  readonly shapes: readonly RowShape[];
  /** The bindings the plans read (print them with these). */
  readonly bindings: DataBindings;
}

const NO_SPAN: Span = { file: "<fixpoint>", start: 0, end: 0 };
/** More rounds of shape discovery than this means a bug: types are finitely many. */
const MAX_SHAPE_ROUNDS = 64;

function shapeKey(shape: RowShape): string {
  return JSON.stringify([shape.predicate, shape.types]);
}

/** The plans of rule `name` with every argument free, one per argument-type shape. */
function relationPlans(
  planner: Planner,
  name: string,
  arity: number,
  of: PredicateKey,
): ShapedPlan[] {
  const variables = Array.from({ length: arity }, (_, i) => `?a${i}`);
  const call: Call = {
    kind: "call",
    name: { kind: "ident", name, span: NO_SPAN },
    args: variables.map((v) => ({ kind: "variable", name: v, span: NO_SPAN })),
    span: NO_SPAN,
  };
  // The variables occur in the head too: they are read, never `_`.
  const clause: Clause = {
    predicate: `${name}/${arity}`,
    name,
    params: variables.map((v) => ({ kind: "variable", name: v, span: NO_SPAN })),
    body: call,
    origin: "rule",
    span: NO_SPAN,
  };
  const states = planBody(planner, clause, EMPTY_STATE, call);
  const branches: Branch[] = states.map((state) => ({
    sources: state.sources,
    conditions: state.conditions,
    outputs: variables.map((v) => outputOf(state, v)),
  }));
  const expansion = newExpansion(planner);
  const expanded = expandBranches(expansion, branches);
  const groups = new Map<string, { types: string[]; branches: Branch[] }>();
  for (const branch of expanded) {
    const types = branch.outputs.map((output) => {
      if (output.kind === "any") {
        const { name: predicate, arity: count } = splitKey(of);
        throw new PlanError(
          { code: "P703", kind: "store-recursion-any", predicate },
          at(universalRuleOrigin(planner, predicate, count).span, planner.program.sources),
        );
      }
      return termType(output);
    });
    const key = JSON.stringify(types);
    const group = groups.get(key) ?? { types, branches: [] };
    group.branches.push(branch);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ types, branches: group }) => ({
    shape: { predicate: of, types },
    plan: {
      ctes: expansion.ctes,
      branches: simplifyBranches(group, "f"),
      outputs: types.map((type, i) => ({ variable: `c${i}`, type })),
    },
  }));
}

/**
 * The family's plans over `base` bindings (the fact table's and earlier families' tables),
 * starting from the shapes of its stored facts.
 */
export function planFamily(
  dialect: Dialect,
  program: Program,
  family: Family,
  tables: FamilyTables,
  base: readonly Binding[],
  stored: readonly RowShape[],
): FamilyPlans {
  const shapes = new Map(stored.map((shape) => [shapeKey(shape), shape]));
  for (let round = 0; round < MAX_SHAPE_ROUNDS; round++) {
    const known = [...shapes.values()];
    const bindings: DataBindings = {
      bindings: [
        ...base,
        ...known.map((shape) =>
          tableBinding(dialect, tables.full, shape, splitKey(shape.predicate).name),
        ),
        ...known.map((shape) =>
          tableBinding(dialect, tables.delta, shape, deltaName(splitKey(shape.predicate).name)),
        ),
      ],
      sqlTypes: new Map(),
      keys: new Map(),
    };
    const planner = createPlanner(program, bindings);
    const exits: ShapedPlan[] = [];
    const steps: ShapedPlan[] = [];
    for (const key of family.predicates) {
      const { name, arity } = splitKey(key);
      if (program.rules.has(`${exitName(name)}/${arity}`)) {
        exits.push(...relationPlans(planner, exitName(name), arity, key));
      }
      if (program.rules.has(`${stepName(name)}/${arity}`)) {
        steps.push(...relationPlans(planner, stepName(name), arity, key));
      }
    }
    let grew = false;
    for (const { shape } of [...exits, ...steps]) {
      if (shapes.has(shapeKey(shape))) continue;
      shapes.set(shapeKey(shape), shape);
      grew = true;
    }
    if (!grew) return { exits, steps, shapes: known, bindings };
  }
  throw new Error("internal: the shapes of a recursive family did not settle");
}
