/**
 * A branch of the plan (a conjunctive query) as one SELECT: its sources in FROM, its
 * conditions and the null guards of binding columns in WHERE, and a select list chosen by the
 * caller (the statement's outputs, a CTE's columns, or `1` under EXISTS).
 */
import { type OperationNode, SelectAllNode, type SelectQueryNode } from "kysely";
import { isPrimitiveType, type Value } from "../core/value.js";
import type { Branch, Condition, CteColumn, Output, SourceRef, Term } from "../plan/ir.js";
import { argColumn, termType } from "../plan/ir.js";
import { aliasName, type Lowering } from "./context.js";
import {
  aliased,
  binary,
  callerSql,
  cast,
  columnRef,
  conjunction,
  constant,
  select,
  table,
  tableAs,
  unary,
  union,
} from "./nodes.js";
import { valueNode } from "./sql-value.js";

export function sqlTypeOf(lowering: Lowering, type: string): string | undefined {
  return lowering.bindings.sqlTypes.get(type);
}

/** `CAST(NULL AS <type>)`: no value, of a Polar type. */
export function typedNull(lowering: Lowering, type: string): OperationNode {
  return cast(constant(null), lowering.rules.castType(type, sqlTypeOf(lowering, type)));
}

export function termNode(lowering: Lowering, term: Term, typed = false): OperationNode {
  switch (term.kind) {
    case "column":
      return columnRef(aliasName(lowering, term.alias), term.column);
    case "literal":
    case "param":
    case "time":
      return valueNode(term, sqlTypeOf(lowering, termType(term)), typed);
    case "outer":
      if (lowering.shape.kind !== "filter") {
        throw new Error("internal: caller column outside filter mode");
      }
      return callerSql(lowering.shape.column);
    case "null":
      return typedNull(lowering, term.type);
    case "input":
      throw new Error(`internal: unresolved ${term.kind} term`);
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

/** An output in a select list, where the engine cannot infer a literal's type. */
export function selectedNode(lowering: Lowering, output: Output, type: string): OperationNode {
  if (output.kind === "any") return typedNull(lowering, type);
  const value = output.kind === "literal" || output.kind === "param" || output.kind === "time";
  return termNode(lowering, output, value);
}

/** A value of a recursive CTE's column, cast to the column's SQL type where it is known. */
export function cteValueNode(lowering: Lowering, output: Output, column: CteColumn): OperationNode {
  if (output.kind === "any") throw new Error("internal: wildcard in a recursive CTE");
  const node = termNode(lowering, output);
  const declared = sqlTypeOf(lowering, column.type);
  const keep =
    !lowering.rules.castsRecursiveColumns &&
    (output.kind === "null" ||
      (declared === undefined && !isPrimitiveType(column.type) && output.kind !== "literal"));
  return keep ? node : cast(node, lowering.rules.castType(column.type, declared));
}

export function conditionNode(lowering: Lowering, condition: Condition): OperationNode {
  switch (condition.kind) {
    case "compare":
      return lowering.rules.compare(
        condition.op,
        termNode(lowering, condition.left),
        termNode(lowering, condition.right),
        termType(condition.left),
        sqlTypeOf(lowering, termType(condition.left)),
      );
    case "in":
      return lowering.rules.member(
        termNode(lowering, condition.term),
        condition.values.map((v) => termNode(lowering, v)),
        termType(condition.term),
        sqlTypeOf(lowering, termType(condition.term)),
      );
    case "not_exists":
      return unary(
        "not exists",
        union(
          condition.branches.map((b) => branchNode(lowering, b, [constant(1)])),
          true,
        ),
      );
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

function literalNode(lowering: Lowering, value: Value, typed: boolean): OperationNode {
  return valueNode({ kind: "literal", value }, sqlTypeOf(lowering, value.type), typed);
}

function sourceNode(lowering: Lowering, ref: SourceRef): OperationNode {
  const name = aliasName(lowering, ref.alias);
  const source = ref.source;
  switch (source.kind) {
    case "binding": {
      const cte = lowering.bindingNames.get(source.binding)!;
      if (!source.rows?.length) return tableAs(cte, name);
      // The binding's rows, then the central and context facts read with it.
      // The CTE's columns name the union's; untyped literals take the columns' types.
      const rows = source.rows.map((row) =>
        select({ selections: row.map((value) => literalNode(lowering, value, false)) }),
      );
      const all = select({ selections: [SelectAllNode.create()], from: [table(cte)] });
      return aliased(union([all, ...rows], true), name);
    }
    case "cte":
      lowering.cteReads.set(source.cte, (lowering.cteReads.get(source.cte) ?? 0) + 1);
      return tableAs(lowering.cteNames.get(source.cte)!, name);
    case "values":
      return lowering.rules.rowsTable(
        name,
        source.columns.map((c) => c.name),
        source.rows.map((row) => row.map((value) => literalNode(lowering, value, true))),
      );
    case "facts":
    case "param":
    case "recref":
    case "reccall":
      throw new Error(`internal: unresolved ${source.kind} source`);
    default: {
      const _never: never = source;
      return _never;
    }
  }
}

/**
 * `alias.argN IS NOT NULL` for binding columns that no top-level condition constrains: a row
 * holding NULL matches nothing (docs/local-authorization.md, "NULL columns"), also when the
 * column is only output or unused.
 */
function nullGuards(lowering: Lowering, branch: Branch): OperationNode[] {
  const constrains = (alias: string, column: string) => {
    const is = (term: Term) =>
      term.kind === "column" && term.alias === alias && term.column === column;
    return branch.conditions.some((c) =>
      c.kind === "compare" ? is(c.left) || is(c.right) : c.kind === "in" && is(c.term),
    );
  };
  const guards: OperationNode[] = [];
  for (const ref of branch.sources) {
    if (ref.source.kind !== "binding") continue;
    const slots = lowering.bindings.bindings[ref.source.binding]!.slots;
    slots.forEach((slot, i) => {
      if (slot.kind === "column" && !constrains(ref.alias, argColumn(i))) {
        const column = columnRef(aliasName(lowering, ref.alias), argColumn(i));
        guards.push(binary(column, "is not", constant(null)));
      }
    });
  }
  return guards;
}

export interface BranchOptions {
  /** Sources before the branch's own (a recursive step's self reference). */
  readonly leading?: readonly OperationNode[];
  readonly distinct?: boolean;
  readonly offsetZero?: boolean;
}

/** `SELECT <selections> [FROM …] [WHERE …]` for a branch. */
export function branchNode(
  lowering: Lowering,
  branch: Branch,
  selections: readonly OperationNode[],
  options: BranchOptions = {},
): SelectQueryNode {
  const conditions = [
    ...branch.conditions.map((c) => conditionNode(lowering, c)),
    ...nullGuards(lowering, branch),
  ];
  return select({
    selections,
    from: [...(options.leading ?? []), ...branch.sources.map((ref) => sourceNode(lowering, ref))],
    where: conjunction(conditions),
    ...(options.distinct && { distinct: true }),
    ...(options.offsetZero && { offsetZero: true }),
  });
}

export function isTrivial(branch: Branch): boolean {
  return branch.sources.length === 0 && branch.conditions.length === 0;
}
