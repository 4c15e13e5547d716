/**
 * The WITH clause: one CTE per data binding the plan reads (the caller's query, inlined where
 * the engine allows it), then the plan's recursive CTEs.
 *
 * A recursive CTE is `name(columns) AS (seed UNION … UNION <steps>)`. Each step reads the CTE
 * once, as `self`. Engines that allow one self reference (PostgreSQL) run every step for each
 * new row in one recursive term over a LATERAL union; `OFFSET 0` keeps each step a per-row
 * subquery, because PostgreSQL badly overestimates recursive CTEs and would otherwise scan
 * whole tables on every iteration instead of probing their indexes with the row's values.
 * Other engines take one recursive SELECT per step.
 */
import {
  AliasNode,
  CommonTableExpressionNameNode,
  CommonTableExpressionNode,
  JoinNode,
  type OperationNode,
  type SelectQueryNode,
  WithNode,
} from "kysely";
import type { Binding } from "../bindings/types.js";
import type { Branch, Output, RecursiveCte } from "../plan/ir.js";
import { argColumn } from "../plan/ir.js";
import {
  callerSql,
  columnRef,
  conjunction,
  correlation,
  parens,
  select,
  tableAs,
  union,
  unionOfParenthesized,
} from "../sql/nodes.js";
import { branchNode, cteValueNode, termNode } from "./branch.js";
import { aliasName, type Lowering } from "./context.js";
import { cteColumnTypes, cteHoldsText, typedLike } from "./cte-types.js";
import { inlineScans } from "./inline-scans.js";
import { joinedSteps } from "./step-union.js";
import { type KnownRows, textOf, untypedIds } from "./untyped-ids.js";

/**
 * The SELECT with the WITH clause it needs (none when it reads no binding and no recursive
 * CTE). Where the rules say `inlineScans`, plain scans are read from their tables and only the
 * binding CTEs still read are written (src/lower/inline-scans.ts).
 */
export function withPrefix(lowering: Lowering, node: SelectQueryNode): SelectQueryNode {
  let recursive = false;
  let ctes: OperationNode[] = [];
  lowering.plan.ctes.forEach((cte, index) => {
    if (!cte) return;
    recursive ||= cte.steps.length > 0;
    ctes.push(recursiveCte(lowering, cte, lowering.cteNames.get(index)!, index));
  });
  let body: OperationNode = node;
  let kept: ((name: string) => boolean) | undefined;
  if (lowering.rules.inlineScans) {
    const inlined = inlineScans(lowering, [node, ...ctes]);
    [body, ...ctes] = inlined.nodes as [OperationNode, ...OperationNode[]];
    kept = (name) => inlined.kept.has(name);
  }
  const expressions: CommonTableExpressionNode[] = [];
  for (const [index, name] of lowering.bindingNames) {
    if (kept && !kept(name)) continue;
    expressions.push(bindingCte(lowering, lowering.bindings.bindings[index]!, name));
  }
  expressions.push(...(ctes as CommonTableExpressionNode[]));
  const [first, ...rest] = expressions;
  if (!first) return body as SelectQueryNode;
  const clause = rest.reduce(
    (with_, expression) => WithNode.cloneWithExpression(with_, expression),
    WithNode.create(first, { recursive }),
  );
  return Object.freeze({ ...(body as SelectQueryNode), with: clause });
}

function bindingCte(lowering: Lowering, binding: Binding, name: string): CommonTableExpressionNode {
  const columns = binding.slots.flatMap((slot, i) =>
    slot.kind === "column" ? [argColumn(i)] : [],
  );
  const node = CommonTableExpressionNode.create(
    CommonTableExpressionNameNode.create(name, columns),
    binding.tree ?? (binding.merged ? scanNode(binding) : parens(callerSql(binding.query))),
  );
  return lowering.rules.inlineHint
    ? CommonTableExpressionNode.cloneWith(node, { materialized: false })
    : node;
}

/** A merged keyed scan: `SELECT items FROM table WHERE (c1) AND (c2)`, from the caller's parts. */
function scanNode(binding: Binding): SelectQueryNode {
  const scan = binding.scan!;
  return select({
    selections: scan.items.map(callerSql),
    from: [callerSql(scan.table)],
    where: conjunction(scan.conditions.map((c) => parens(callerSql(c)))),
  });
}

function recursiveCte(
  lowering: Lowering,
  cte: RecursiveCte,
  name: string,
  index: number,
): CommonTableExpressionNode {
  const columns = cte.columns.map((c) => c.name);
  // Columns of ids without `sql_types`: of a binding column's type, or text (cte-types.ts).
  const text = cteHoldsText(lowering, index);
  const types = text ? [] : cteColumnTypes(lowering, cte);
  const outputNode = (output: Output, i: number): OperationNode => {
    const column = cte.columns[i]!;
    if (output.kind !== "any" && untypedIds(lowering, column.type)) {
      if (text && output.kind === "column") return textOf(lowering, termNode(lowering, output));
      if (text && output.kind !== "null") return termNode(lowering, output, true);
      const typeSource = types[i];
      if (typeSource && output.kind === "null") return typeSource;
      if (typeSource && output.kind !== "column") {
        return typedLike(typeSource, termNode(lowering, output));
      }
    }
    return cteValueNode(lowering, output, column);
  };
  const outputsOf = (branch: Branch) => branch.outputs.map(outputNode);
  const known: KnownRows = new Map(text ? [[cte.self, null]] : []);
  const seeds = cte.seeds.map((seed) => branchNode(lowering, seed, outputsOf(seed)));
  const self = tableAs(name, aliasName(lowering, cte.self));
  let steps: SelectQueryNode[] = [];
  if (cte.steps.length > 1 && lowering.rules.recursion === "lateral") {
    const lateral = aliasName(lowering, "step");
    const bodies = cte.steps.map((step) =>
      branchNode(lowering, step, outputsOf(step), { offsetZero: true, known }),
    );
    const stepTable = AliasNode.create(stepsNode(bodies), correlation(lateral, columns));
    steps = [
      select({
        selections: columns.map((c) => columnRef(lateral, c)),
        from: [self],
        joins: [JoinNode.create("LateralCrossJoin", stepTable)],
      }),
    ];
  } else if (cte.steps.length > 1 && lowering.rules.recursion === "joined") {
    steps = [joinedSteps(lowering, cte, name)];
  } else {
    steps = cte.steps.map((step) =>
      branchNode(lowering, step, outputsOf(step), { leading: [self], known }),
    );
  }
  return CommonTableExpressionNode.create(
    CommonTableExpressionNameNode.create(name, columns),
    union([...seeds, ...steps], false),
  );
}

function stepsNode(bodies: readonly SelectQueryNode[]): OperationNode {
  return bodies.length === 1 ? bodies[0]! : parens(unionOfParenthesized(bodies));
}
