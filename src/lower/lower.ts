/**
 * Lowering: a resolved plan becomes one SQL statement (or, for `list_query`, one boolean
 * expression) as a tree of Kysely operation nodes. The tree holds no SQL text of ours: values
 * are `SqlValue` nodes and identifiers are identifier nodes, printed by the dialect
 * (src/print). Only the caller's own SQL (binding queries, the filter column) enters as raw
 * text.
 */
import {
  FunctionNode,
  LimitNode,
  type OperationNode,
  OrderByItemNode,
  OrderByNode,
  type SelectQueryNode,
} from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { Branch, Output, PlanOutput } from "../plan/ir.js";
import type { ResolvedPlan } from "../plan/resolve/resolve.js";
import {
  branchNode,
  conditionNode,
  isTrivial,
  selectedNode,
  sqlTypeOf,
  typedNull,
} from "./branch.js";
import { createLowering, type Lowering, type Shape } from "./context.js";
import { withPrefix } from "./ctes.js";
import {
  aliased,
  binary,
  callerSql,
  cast,
  columnRef,
  conjunction,
  constant,
  select,
  unary,
  union,
} from "./nodes.js";
import type { LoweringRules } from "./rules.js";
import { valueNode } from "./sql-value.js";
import { UnsupportedConstructError } from "./step-union.js";

export type { Shape } from "./context.js";

/** A lowered statement and the names the caller chose (printed quoted, never bare). */
export interface Lowered {
  readonly node: OperationNode;
  readonly callerNames: ReadonlySet<string>;
}

/**
 * The statement for a resolved plan.
 *
 *   lowerStatement(resolved, plan.outputs, bindings, { kind: "exists", column: "allowed" }, postgres)
 *   // SELECT EXISTS (SELECT 1 FROM polar_c0 AS f0 WHERE f0.arg0 = 17) AS allowed, as nodes
 */
export function lowerStatement(
  plan: ResolvedPlan,
  outputs: readonly PlanOutput[],
  bindings: DataBindings,
  shape: Shape,
  rules: LoweringRules,
): Lowered {
  const lowering = createLowering(plan, outputs, bindings, shape, rules);
  const lowered = lowerShape(lowering, shape);
  checkRecursiveReads(lowering);
  return lowered;
}

function checkRecursiveReads(lowering: Lowering): void {
  const max = lowering.rules.maxRecursiveReads;
  if (max === undefined) return;
  const reads = [...lowering.cteReads.values()].reduce((sum, n) => sum + n, 0);
  if (reads > max) {
    throw new UnsupportedConstructError(
      `the ${lowering.rules.name} dialect cannot run this question: it reads recursive ` +
        `relations ${reads} times, and MariaDB plans more than ${max} such reads in ` +
        "exponential time and memory (docs/dialects.md)",
    );
  }
}

function lowerShape(lowering: Lowering, shape: Shape): Lowered {
  switch (shape.kind) {
    case "exists":
      return { node: lowerExists(lowering, shape.column), callerNames: new Set() };
    case "actions":
      return { node: lowerActions(lowering), callerNames: new Set() };
    case "filter":
      return { node: lowerFilter(lowering, shape.column), callerNames: new Set() };
    case "select":
      return { node: lowerSelect(lowering, shape.names), callerNames: new Set(shape.names) };
    case "page":
      return { node: lowerPage(lowering, shape.after, shape.limit), callerNames: new Set() };
    default: {
      const _never: never = shape;
      return _never;
    }
  }
}

function lowerExists(lowering: Lowering, column: string): SelectQueryNode {
  const branches = lowering.plan.branches;
  if (branches.length === 0) return select({ selections: [aliased(constant(false), column)] });
  if (branches.some(isTrivial)) return select({ selections: [aliased(constant(true), column)] });
  const parts = branches.map((branch) => branchNode(lowering, branch, [constant(1)]));
  const exists = unary("exists", union(parts, true));
  return withPrefix(lowering, select({ selections: [aliased(exists, column)] }));
}

function lowerActions(lowering: Lowering): SelectQueryNode {
  const branches = lowering.plan.branches;
  const type = lowering.outputs[0]!.type;
  if (branches.length === 0) {
    return select({
      selections: [aliased(typedNull(lowering, type), "actions")],
      where: constant(false),
    });
  }
  const parts = branches.map((branch) => {
    const output = branch.outputs[0]!;
    const value =
      output.kind === "any"
        ? valueNode({ kind: "literal", value: { type: "String", id: "*" } }, undefined, true)
        : selectedNode(lowering, output, type);
    return branchNode(lowering, branch, [aliased(value, "actions")]);
  });
  if (lowering.rules.distinctRows) {
    const column = { name: "actions", type, sqlType: sqlTypeOf(lowering, type) };
    return withPrefix(lowering, lowering.rules.distinctRows(union(parts, true), [column]));
  }
  return withPrefix(
    lowering,
    select({
      distinct: true,
      selections: [columnRef("a", "actions")],
      from: [aliased(union(parts, true), "a")],
    }),
  );
}

function lowerFilter(lowering: Lowering, column: string): OperationNode {
  const branches = lowering.plan.branches;
  const caller = () => callerSql(column);
  const wildcard = (output: Output) => output.kind === "any" || output.kind === "outer";
  const callerRow = (where: OperationNode | null) => select({ selections: [caller()], where });
  if (branches.length === 0) return binary(caller(), "in", callerRow(constant(false)));
  if (branches.some((b) => isTrivial(b) && wildcard(b.outputs[0]!))) {
    return binary(caller(), "in", callerRow(null));
  }
  const type = lowering.outputs[0]!.type;
  const parts = branches.map((branch: Branch) => {
    const output = branch.outputs[0]!;
    if (!wildcard(output)) {
      return branchNode(lowering, branch, [selectedNode(lowering, output, type)]);
    }
    // Every row of the caller qualifies when the branch holds: keep the correlated form.
    if (branch.sources.length === 0) {
      return callerRow(conjunction(branch.conditions.map((c) => conditionNode(lowering, c))));
    }
    return callerRow(unary("exists", branchNode(lowering, branch, [constant(1)])));
  });
  const query = withPrefix(lowering, union(parts, true));
  return lowering.rules.memberOfQuery(caller(), query, type, sqlTypeOf(lowering, type));
}

function lowerSelect(lowering: Lowering, names: readonly string[]): SelectQueryNode {
  const branches = lowering.plan.branches;
  if (branches.length === 0) {
    const nulls = lowering.outputs.map((output, i) =>
      aliased(typedNull(lowering, output.type), names[i]!),
    );
    return select({ selections: nulls, where: constant(false) });
  }
  const exact = lowering.rules.distinctRows;
  const parts = branches.map((branch) =>
    branchNode(
      lowering,
      branch,
      branch.outputs.map((output, i) =>
        aliased(selectedNode(lowering, output, lowering.outputs[i]!.type), names[i]!),
      ),
      { distinct: !exact && branches.length === 1 },
    ),
  );
  if (exact) {
    const columns = lowering.outputs.map((output, i) => ({
      name: names[i]!,
      type: output.type,
      sqlType: sqlTypeOf(lowering, output.type),
    }));
    return withPrefix(lowering, exact(union(parts, true), columns));
  }
  return withPrefix(lowering, union(parts, false));
}

function lowerPage(lowering: Lowering, after: string, limit: string): SelectQueryNode {
  const { rules } = lowering;
  const text = cast(columnRef("x", "c0"), rules.castType("String", undefined));
  const star = valueNode({ kind: "literal", value: { type: "String", id: "*" } }, undefined, false);
  const id = FunctionNode.create("coalesce", [text, star]);
  const afterValue = valueNode({ kind: "param", name: after, type: "String" }, undefined, false);
  const page = select({
    distinct: true,
    selections: [aliased(rules.codePointOrder(id), "id")],
    from: [aliased(lowerSelect(lowering, ["c0"]), "x")],
    where: rules.compare(">", id, afterValue, "String", undefined),
  });
  return Object.freeze({
    ...page,
    orderBy: OrderByNode.create([OrderByItemNode.create(constant(1))]),
    limit: LimitNode.create(
      valueNode({ kind: "param", name: limit, type: "Integer" }, undefined, false),
    ),
  });
}
