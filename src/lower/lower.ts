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
  OrNode,
  type SelectQueryNode,
} from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { Branch, Output, PlanOutput, Term } from "../plan/ir.js";
import type { ResolvedPlan } from "../plan/resolve/resolve.js";
import type { SourceFile } from "../source/source.js";
import {
  aliased,
  binary,
  callerSql,
  cast,
  columnRef,
  conjunction,
  constant,
  disjunction,
  parens,
  select,
  unary,
  union,
} from "../sql/nodes.js";
import { branchNode, conditionNode, isTrivial, selectedNode, typedNull } from "./branch.js";
import { callerRowFilter } from "./caller-rows.js";
import { createLowering, type Lowering, type Shape, sqlTypeOf } from "./context.js";
import { cteHoldsText } from "./cte-types.js";
import { withPrefix } from "./ctes.js";
import type { LoweringRules } from "./rules.js";
import { valueNode } from "./sql-value.js";
import { originIn, UnsupportedConstructError } from "./step-union.js";
import { isolateRecursiveReads, unionReads } from "./union-reads.js";
import { textOf, untypedIds } from "./untyped-ids.js";

export type { Shape } from "./context.js";

/** A lowered statement and the names the caller chose (printed quoted, never bare). */
export interface Lowered {
  readonly node: OperationNode;
  readonly callerNames: ReadonlySet<string>;
}

/**
 * The statement for a resolved plan.
 *
 *   lowerStatement(resolved, plan.outputs, bindings, { kind: "exists", column: "allowed" }, postgres,
 *     program.sources)
 *   // SELECT EXISTS (SELECT 1 FROM polar_c0 AS f0 WHERE f0.arg0 = 17) AS allowed, as nodes
 */
export function lowerStatement(
  plan: ResolvedPlan,
  outputs: readonly PlanOutput[],
  bindings: DataBindings,
  shape: Shape,
  rules: LoweringRules,
  sources: readonly SourceFile[],
): Lowered {
  const lowering = createLowering(plan, outputs, bindings, shape, rules, sources);
  const lowered = lowerShape(lowering, shape);
  const node = isolatedReads(lowering, lowered.node);
  checkRecursiveReads(lowering, node);
  return { ...lowered, node };
}

/**
 * The statement with each SELECT of a UNION that reads a recursive CTE in a derived table of
 * its own (src/lower/union-reads.ts), where the dialect asks for it and the statement reads
 * more than its limit in such SELECTs; statements under the limit stay as they are (the
 * derived tables cost MariaDB a few percent of a short statement's time).
 */
function isolatedReads(lowering: Lowering, node: OperationNode): OperationNode {
  if (!lowering.rules.isolatesRecursiveReads) return node;
  const names = new Set(lowering.cteNames.values());
  const reads = [...unionReads(node, names).values()].reduce((sum, n) => sum + n, 0);
  if (reads <= (lowering.rules.maxRecursiveReads ?? 0)) return node;
  return isolateRecursiveReads(node, names, lowering.namePrefix);
}

/**
 * The dialect's limit on reads of recursive CTEs in SELECTs of a UNION (after
 * src/lower/union-reads.ts moved what it could into derived tables of their own).
 */
function checkRecursiveReads(lowering: Lowering, node: OperationNode): void {
  const max = lowering.rules.maxRecursiveReads;
  if (max === undefined) return;
  const indexOf = new Map([...lowering.cteNames].map(([index, name]) => [name, index]));
  const counts = [...unionReads(node, new Set(indexOf.keys()))];
  const reads = counts.reduce((sum, [, n]) => sum + n, 0);
  if (reads <= max) return;
  // The recursion read most often (the first of equals) is the rule to name.
  const [name, most] = counts.reduce((a, b) => (b[1] > a[1] ? b : a));
  const origin = lowering.plan.ctes[indexOf.get(name)!]!.origin;
  throw new UnsupportedConstructError(
    {
      code: "P703",
      kind: "dialect-recursive-reads",
      dialect: lowering.rules.name,
      reads,
      max,
      predicate: origin.predicate,
      predicateReads: most,
    },
    originIn(lowering, origin),
  );
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
  const exists = lowering.rules.existsPerBranch
    ? disjunction(parts.map((part) => unary("exists", part)))!
    : unary("exists", union(parts, true));
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
  // Branches over the caller's own rows filter them directly (src/lower/caller-rows.ts).
  const direct = callerRowFilter(lowering, column);
  if (direct) return parens(direct);
  const type = lowering.outputs[0]!.type;
  if (untypedIds(lowering, type)) {
    const known = knownOutputs(lowering, branches);
    if (known.length > 0) {
      // Ids known here meet the caller's column of unknown type (src/lower/untyped-ids.ts).
      const rest = branches.filter((branch) => !known.includes(branch));
      const parts = [filterOfKnown(lowering, known, caller, type)];
      if (rest.length > 0) {
        parts.unshift(
          lowerFilter({ ...lowering, plan: { ...lowering.plan, branches: rest } }, column),
        );
      }
      return parts.length === 1 ? parts[0]! : parens(OrNode.create(parts[0]!, parts[1]!));
    }
  }
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
  // An array computed once where the engine has one (PostgreSQL): `IN (…)` becomes a semi-join
  // whose size the planner guesses from the subquery, and a misjudged recursive walk made it
  // scan the caller's whole table (bench/RESULTS.md, "Lists as arrays"). Not for correlated
  // branches, which would run once per row of the caller's table.
  const arrays = lowering.rules.memberOfArray;
  if (arrays && !branches.some((branch) => wildcard(branch.outputs[0]!))) {
    return arrays(caller(), query);
  }
  return lowering.rules.memberOfQuery(caller(), query, type, sqlTypeOf(lowering, type));
}

/** Branches whose output is a value or a column holding ids as text. */
function knownOutputs(lowering: Lowering, branches: readonly Branch[]): Branch[] {
  return branches.filter((branch) => writesText(lowering, branch, branch.outputs[0]!));
}

/**
 * Whether an output of entity ids is text whatever the bindings' column types: a value (typed
 * as text where it is selected), a column of rows known when printing or of a CTE holding text.
 */
function writesText(lowering: Lowering, branch: Branch, output: Output): boolean {
  if (output.kind === "literal" || output.kind === "param") return true;
  if (output.kind !== "column") return false;
  const source = branch.sources.find((ref) => ref.alias === output.alias)?.source;
  return (
    source?.kind === "values" ||
    source?.kind === "param" ||
    (source?.kind === "cte" && cteHoldsText(lowering, source.cte))
  );
}

/**
 * The caller's column among ids known here: a list for branches that are nothing but those ids
 * (compared as `IN` conditions are), the column's text among the others' outputs.
 */
function filterOfKnown(
  lowering: Lowering,
  branches: readonly Branch[],
  caller: () => OperationNode,
  type: string,
): OperationNode {
  const ids: Term[] = [];
  const others: Branch[] = [];
  for (const branch of branches) {
    const output = branch.outputs[0]! as Term;
    if (isTrivial(branch)) {
      ids.push(output);
      continue;
    }
    const [only] = branch.sources;
    if (
      branch.sources.length === 1 &&
      branch.conditions.length === 0 &&
      only!.source.kind === "values" &&
      output.kind === "column"
    ) {
      const index = only!.source.columns.findIndex((c) => c.name === output.column);
      for (const row of only!.source.rows) ids.push({ kind: "literal", value: row[index]! });
      continue;
    }
    others.push(branch);
  }
  const parts: OperationNode[] = [];
  if (ids.length > 0) {
    const outer: Term = { kind: "outer", type };
    parts.push(conditionNode(lowering, { kind: "in", term: outer, values: ids }));
  }
  if (others.length > 0) {
    const selects = others.map((branch) =>
      branchNode(lowering, branch, [selectedNode(lowering, branch.outputs[0]!, type)]),
    );
    parts.push(
      binary(textOf(lowering, caller()), "in", withPrefix(lowering, union(selects, true))),
    );
  }
  return parts.length === 1 ? parts[0]! : parens(OrNode.create(parts[0]!, parts[1]!));
}

function lowerSelect(lowering: Lowering, names: readonly string[]): SelectQueryNode {
  const branches = lowering.plan.branches;
  if (branches.length === 0) {
    const nulls = lowering.outputs.map((output, i) =>
      aliased(typedNull(lowering, output.type), names[i]!),
    );
    return select({ selections: nulls, where: constant(false) });
  }
  // Where one branch writes ids as text and another a binding's column of unknown type, every
  // branch writes text there, so that the union's column has one type.
  const asText = lowering.outputs.map(
    (output, i) =>
      branches.length > 1 &&
      untypedIds(lowering, output.type) &&
      branches.some((branch) => writesText(lowering, branch, branch.outputs[i]!)),
  );
  const exact = lowering.rules.distinctRows;
  const parts = branches.map((branch) =>
    branchNode(
      lowering,
      branch,
      branch.outputs.map((output, i) => {
        const node = selectedNode(lowering, output, lowering.outputs[i]!.type);
        const text = asText[i] && output.kind === "column" && !writesText(lowering, branch, output);
        return aliased(text ? textOf(lowering, node) : node, names[i]!);
      }),
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
