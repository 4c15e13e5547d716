/**
 * A branch of the plan (a conjunctive query) as one SELECT: its sources in FROM, its
 * conditions and the null guards of binding columns in WHERE, and a select list chosen by the
 * caller (the statement's outputs, a CTE's columns, or `1` under EXISTS).
 */
import { AndNode, type OperationNode, OrNode, SelectAllNode, type SelectQueryNode } from "kysely";
import { isPrimitiveType, type Value } from "../core/value.js";
import type {
  BindingSource,
  Branch,
  CompareCondition,
  Condition,
  CteColumn,
  InCondition,
  Output,
  SourceRef,
  Term,
} from "../plan/ir.js";
import { argColumn, termType } from "../plan/ir.js";
import {
  aliased,
  binary,
  callerSql,
  cast,
  columnRef,
  conjunction,
  constant,
  parens,
  select,
  table,
  tableAs,
  unary,
  union,
  unionAll,
} from "../sql/nodes.js";
import { aliasName, type Lowering, sqlTypeOf } from "./context.js";
import { cteHoldsText } from "./cte-types.js";
import { fixedRowsUnion } from "./fixed-rows.js";
import { idsNode, valueNode } from "./sql-value.js";
import {
  comparesUntyped,
  type KnownRows,
  literals,
  readsBindingAsText,
  readsKnownRows,
  requestId,
  textOf,
  untypedIds,
  untypedKeys,
  untypedMember,
} from "./untyped-ids.js";

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
    case "builtin":
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
  const value = output.kind === "literal" || output.kind === "param" || output.kind === "builtin";
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

export function conditionNode(
  lowering: Lowering,
  condition: Condition,
  known: KnownRows = NO_KNOWN_ROWS,
): OperationNode {
  switch (condition.kind) {
    case "compare":
      return compareNode(lowering, condition, known);
    case "in":
      return memberNode(lowering, condition, known);
    case "not_exists":
    case "exists":
      return unary(
        condition.kind === "exists" ? "exists" : "not exists",
        union(
          condition.branches.map((b) => branchNode(lowering, b, [constant(1)], { known })),
          true,
        ),
      );
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

const NO_KNOWN_ROWS: KnownRows = new Map();

/**
 * `left op right`. Entity ids without `sql_types` meet a column of unknown type through its
 * text where an untyped literal could fail (src/lower/untyped-ids.ts).
 */
function compareNode(
  lowering: Lowering,
  condition: CompareCondition,
  known: KnownRows,
): OperationNode {
  const { op, left, right } = condition;
  const type = termType(left);
  const nodeOf = (term: Term) => termNode(lowering, term);
  const sqlType = sqlTypeOf(lowering, type);
  const plain = () => lowering.rules.compare(op, nodeOf(left), nodeOf(right), type, sqlType);
  if ((op !== "=" && op !== "!=") || !untypedIds(lowering, type)) return plain();
  // A column of unknown type: not a value, not a column of rows known here (typed text).
  const unknownType = (term: Term) =>
    (term.kind === "column" && !known.has(term.alias)) || term.kind === "outer";
  for (const [mine, other] of [
    [left, right],
    [right, left],
  ] as const) {
    if (!unknownType(mine)) continue;
    const id = requestId(lowering, other);
    if (id !== null) {
      if (comparesUntyped(lowering, id)) return plain();
      const text = textOf(lowering, termNode(lowering, mine));
      return lowering.rules.compare(op, text, termNode(lowering, other), type, sqlType);
    }
    if (other.kind !== "column" || !readsKnownRows(other, known)) continue;
    const join = lowering.rules.compare(
      op,
      textOf(lowering, termNode(lowering, mine)),
      termNode(lowering, other),
      type,
      sqlType,
    );
    // The same keys as a list the column's index can serve (the join is on its text).
    const keys = op === "=" ? untypedKeys(lowering, known.get(other.alias)!, other.column) : null;
    if (!keys) return join;
    const list = untypedMember(
      lowering,
      termNode(lowering, mine),
      literals(type, keys),
      type,
      nodeOf,
    );
    return AndNode.create(list, join);
  }
  return plain();
}

/**
 * `term IN (values)`. Ids that compare untyped form one list (an array literal when long);
 * against a column of unknown type, the others are compared with its text.
 */
function memberNode(lowering: Lowering, condition: InCondition, known: KnownRows): OperationNode {
  const type = termType(condition.term);
  const term = termNode(lowering, condition.term);
  const nodeOf = (value: Term) => termNode(lowering, value);
  const sqlType = sqlTypeOf(lowering, type);
  const plain = (values: readonly Term[]) =>
    lowering.rules.member(term, values.map(nodeOf), type, sqlType);
  if (isPrimitiveType(type) || readsKnownRows(condition.term, known)) {
    return plain(condition.values);
  }
  const direct: Term[] = [];
  const other: Term[] = [];
  for (const value of condition.values) {
    const id = requestId(lowering, value);
    if (id !== null && comparesUntyped(lowering, id)) direct.push(value);
    else other.push(value);
  }
  if (!untypedIds(lowering, type)) {
    // Typed ids: only a long list of integer literals changes form.
    return other.length === 0
      ? untypedMember(lowering, term, direct, type, nodeOf)
      : plain(condition.values);
  }
  const parts: OperationNode[] = [];
  if (direct.length > 0) parts.push(untypedMember(lowering, term, direct, type, nodeOf));
  if (other.length > 0) {
    const text = textOf(lowering, term);
    parts.push(
      other.length === 1
        ? lowering.rules.compare("=", text, nodeOf(other[0]!), type, sqlType)
        : lowering.rules.member(text, other.map(nodeOf), type, sqlType),
    );
  }
  return parts.length === 1 ? parts[0]! : parens(OrNode.create(parts[0]!, parts[1]!));
}

/**
 * The binding's columns in a union with rows known when printing: all of them, or with its
 * untyped id columns as text where the union would lose their type (`readsBindingAsText`).
 */
function bindingColumns(lowering: Lowering, source: BindingSource, cte: string): OperationNode[] {
  if (!readsBindingAsText(lowering, source)) return [SelectAllNode.create()];
  const binding = lowering.bindings.bindings[source.binding]!;
  return binding.slots.flatMap((slot, i) => {
    if (slot.kind !== "column") return [];
    const column = columnRef(cte, argColumn(i));
    return [
      untypedIds(lowering, slot.type) ? aliased(textOf(lowering, column), argColumn(i)) : column,
    ];
  });
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
      const rows = fixedRowsUnion(source.rows, lowering.bindings, lowering.rules, (row) =>
        row.map((value) => literalNode(lowering, value, false)),
      );
      const all = select({ selections: bindingColumns(lowering, source, cte), from: [table(cte)] });
      return aliased(unionAll(all, rows), name);
    }
    case "cte":
      return tableAs(lowering.cteNames.get(source.cte)!, name);
    case "values":
      return lowering.rules.rowsTable(
        name,
        source.columns.map((c) => c.name),
        source.rows.map((row) => row.map((value) => literalNode(lowering, value, true))),
      );
    case "param": {
      // Left unresolved only where the dialect reads lists as one array (resolve/runtime.ts).
      const sqlType = sqlTypeOf(lowering, source.type);
      const ids = idsNode(source.name, source.type, sqlType);
      const table = lowering.rules.idsTable?.(name, argColumn(0), ids, source.type, sqlType);
      if (!table) throw new Error("internal: unresolved param source");
      return table;
    }
    case "facts":
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

interface BranchOptions {
  /** Rows known when printing that outer branches read (for a branch under `NOT EXISTS`). */
  readonly known?: KnownRows;
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
  const known = new Map(options.known ?? NO_KNOWN_ROWS);
  for (const ref of branch.sources) {
    if (ref.source.kind === "values") known.set(ref.alias, ref.source);
    else if (
      ref.source.kind === "param" ||
      (ref.source.kind === "cte" && cteHoldsText(lowering, ref.source.cte)) ||
      (ref.source.kind === "binding" && readsBindingAsText(lowering, ref.source))
    ) {
      known.set(ref.alias, null);
    } else known.delete(ref.alias);
  }
  const conditions = [
    ...branch.conditions.map((c) => conditionNode(lowering, c, known)),
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
