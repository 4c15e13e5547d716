/**
 * The recursive term of a CTE with several steps as ONE recursive SELECT, for engines with
 * neither LATERAL nor a cheap way to plan many recursive SELECTs (MariaDB's planning time and
 * memory grow exponentially with the recursive SELECTs of a WITH clause; docs/dialects.md).
 *
 * Each step becomes a body without the self reference: its own sources and the conditions that
 * do not mention `self`, selecting a tag, the terms that `self`'s columns are compared with
 * (`j<step>_<n>`) and its outputs that do not come from `self` (`o<step>_<n>`). The recursive
 * SELECT joins `self` with the UNION ALL of the bodies:
 *
 *   select case s.t when 1 then rec.k2 else … end, …
 *   from polar_r0 as rec, (body1 union all body2) as s
 *   where (s.t = 1 and rec.s0 = 0 and rec.s2 = s.j1_0) or (s.t = 2 and …)
 */
import {
  CaseNode,
  type OperationNode,
  OrNode,
  ParensNode,
  type SelectQueryNode,
  WhenNode,
} from "kysely";
import { PlanError } from "../plan/errors.js";
import type { Branch, Condition, RecursiveCte, RuleOrigin, Term } from "../plan/ir.js";
import { termType } from "../plan/ir.js";
import { mapBranch } from "../plan/rewrite.js";
import type { Located } from "../source/stage-error.js";
import {
  aliased,
  binary,
  cast,
  columnRef,
  conjunction,
  constant,
  parens,
  select,
  tableAs,
  union,
} from "../sql/nodes.js";
import { branchNode, conditionNode, termNode } from "./branch.js";
import { aliasName, type Lowering, sqlTypeOf } from "./context.js";

/**
 * A construct the dialect cannot express (a `PlanError`, so endpoints answer 400); the message
 * names the dialect, the span the rule of the recursion.
 */
export class UnsupportedConstructError extends PlanError {
  override readonly name = "UnsupportedConstructError";
}

/** The span of a plan part's rule with the policy's files, for an error. */
export function originIn(lowering: Lowering, origin: RuleOrigin): Located | null {
  return origin.span && { span: origin.span, sources: lowering.sources };
}

function isSelf(term: Term, self: string): boolean {
  return term.kind === "column" && term.alias === self;
}

/** Whether a term reads a source of the step (else it is a value, compared outside). */
function readsSource(term: Term): boolean {
  return term.kind === "column" || term.kind === "outer";
}

function mentionsSelf(branch: Branch, self: string): boolean {
  let found = false;
  mapBranch(branch, {
    alias: (alias) => alias,
    term: (term) => {
      if (isSelf(term, self)) found = true;
      return term;
    },
  });
  return found;
}

interface StepParts {
  readonly step: Branch;
  /** The conditions that do not mention `self`: the body's. */
  readonly kept: readonly Condition[];
  /** The body's exposed columns and their values. */
  readonly values: ReadonlyMap<string, OperationNode>;
  /** The step's conditions on `self`, over the exposed columns of the union. */
  readonly conditions: readonly OperationNode[];
  /** Per CTE column: the value from `self`, or the exposed column holding it. */
  readonly outputs: readonly ({ readonly self: OperationNode } | { readonly column: string })[];
}

/** The recursive SELECT that applies every step of `cte` (named `name`) to the rows of `self`. */
export function joinedSteps(lowering: Lowering, cte: RecursiveCte, name: string): SelectQueryNode {
  const stepAlias = aliasName(lowering, "step");
  const stepColumn = (column: string) => columnRef(stepAlias, column);
  const parts = cte.steps.map((step, index) => stepParts(lowering, cte, step, index, stepColumn));
  // Every body selects every exposed column (NULL for the other steps'), in one order.
  const exposed = parts.flatMap((part) => [...part.values.keys()]);
  const bodies = parts.map((part, index) =>
    branchNode(lowering, { ...part.step, conditions: part.kept }, [
      aliased(constant(index + 1), "t"),
      ...exposed.map((column) => aliased(part.values.get(column) ?? constant(null), column)),
    ]),
  );
  const where = parts
    .map(
      (part, index): OperationNode =>
        ParensNode.create(
          conjunction([binary(stepColumn("t"), "=", constant(index + 1)), ...part.conditions])!,
        ),
    )
    .reduce((left: OperationNode, right) => OrNode.create(left, right));
  const selections = cte.columns.map((column, n) => {
    const node = outputNode(parts, n, stepColumn);
    // A recursive column's type comes from the seeds: cast where the rules say so.
    if (!lowering.rules.castsRecursiveColumns) return node;
    return cast(node, lowering.rules.castType(column.type, sqlTypeOf(lowering, column.type)));
  });
  return select({
    selections,
    from: [
      tableAs(name, aliasName(lowering, cte.self)),
      aliased(parens(union(bodies, true)), stepAlias),
    ],
    where,
  });
}

function outputNode(
  parts: readonly StepParts[],
  n: number,
  stepColumn: (column: string) => OperationNode,
): OperationNode {
  let node = CaseNode.create(stepColumn("t"));
  parts.forEach((part, index) => {
    const output = part.outputs[n]!;
    const value = "self" in output ? output.self : stepColumn(output.column);
    node = CaseNode.cloneWithWhen(node, WhenNode.create(constant(index + 1)));
    node = CaseNode.cloneWithThen(node, value);
  });
  return node;
}

function stepParts(
  lowering: Lowering,
  cte: RecursiveCte,
  step: Branch,
  index: number,
  stepColumn: (column: string) => OperationNode,
): StepParts {
  const self = cte.self;
  const values = new Map<string, OperationNode>();
  const expose = (term: Term, kind: "j" | "o"): string => {
    const column = `${kind}${index + 1}_${values.size}`;
    values.set(column, termNode(lowering, term));
    return column;
  };
  const kept: Condition[] = [];
  const conditions: OperationNode[] = [];
  for (const condition of step.conditions) {
    switch (condition.kind) {
      case "compare": {
        const left = isSelf(condition.left, self);
        const right = isSelf(condition.right, self);
        if (!left && !right) {
          kept.push(condition);
        } else if ((left && right) || !readsSource(left ? condition.right : condition.left)) {
          conditions.push(conditionNode(lowering, condition));
        } else {
          const type = termType(left ? condition.left : condition.right);
          const other = stepColumn(expose(left ? condition.right : condition.left, "j"));
          const mine = termNode(lowering, left ? condition.left : condition.right);
          conditions.push(
            lowering.rules.compare(
              condition.op,
              left ? mine : other,
              left ? other : mine,
              type,
              sqlTypeOf(lowering, type),
            ),
          );
        }
        break;
      }
      case "in":
        if (condition.values.some((v) => isSelf(v, self))) unsupported(lowering, cte);
        if (isSelf(condition.term, self)) conditions.push(conditionNode(lowering, condition));
        else kept.push(condition);
        break;
      case "not_exists":
      case "exists":
        if (condition.branches.some((b) => mentionsSelf(b, self))) unsupported(lowering, cte);
        kept.push(condition);
        break;
      default: {
        const _never: never = condition;
        return _never;
      }
    }
  }
  const outputs = step.outputs.map((output) => {
    if (output.kind === "any") throw new Error("internal: wildcard in a recursive CTE");
    if (isSelf(output, self)) return { self: termNode(lowering, output) };
    return { column: expose(output, "o") };
  });
  return { step, kept, values, conditions, outputs };
}

function unsupported(lowering: Lowering, cte: RecursiveCte): never {
  throw new UnsupportedConstructError(
    {
      code: "P703",
      kind: "dialect-step-reads-itself",
      dialect: lowering.rules.name,
      predicate: cte.origin.predicate,
    },
    originIn(lowering, cte.origin),
  );
}
