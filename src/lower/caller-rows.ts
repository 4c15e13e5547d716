/**
 * Filter branches that read the caller's own rows (docs/local-authorization.md, "keys (an
 * extension)"). A `list_query` filter is `caller IN (SELECT key FROM table WHERE …)`:
 * PostgreSQL cannot tell that the caller's rows are the table's, so it finds every listed row
 * of the caller again through the key (bench/RESULTS.md, "what the list contract costs").
 * When the caller's column names the binding's table and its declared key (`app.reports.id`,
 * `keys: {app.reports: id}`), a row of the caller is the row the branch reads, so the branch
 * is written on that row:
 *
 * - a branch that reads only the table: its conditions, `app.reports.owner_id = any('{…}') and
 *   app.reports.id is not null`;
 * - a branch that joins the table to other sources through one of its columns: that column
 *   among the values the others give, `app.documents.folder_id in (with recursive … select …)`,
 *   and the conditions on the table alone beside it;
 * - beside others, on PostgreSQL: each subquery as `= any(array(…))`, so that an `OR` of them
 *   is still served by indexes.
 *
 * `IN (subquery) OR …` is not a join: without the array form (MySQL, SQLite), the filter takes
 * this form only where it stays one condition with a subquery, or conditions without any.
 *
 * Only a source that is a plain scan of a schema-qualified table without a WHERE condition,
 * with columns read as bare names, qualifies: the table then names one table whatever the
 * caller's query (a CTE cannot be schema-qualified), and every column the conditions read is
 * one of its columns.
 */
import { AndNode, type OperationNode, OperationNodeTransformer, type ReferenceNode } from "kysely";
import type { PlainScan } from "../bindings/query.js";
import { tableName } from "../bindings/query.js";
import type { Binding } from "../bindings/types.js";
import { DEFAULT_DIALECT, type DialectName } from "../dialects/registry.js";
import {
  argColumn,
  type Branch,
  type ColumnTerm,
  type Condition,
  type SourceRef,
  type Term,
  termType,
} from "../plan/ir.js";
import { mapBranch, mentionsAlias } from "../plan/rewrite.js";
import {
  binary,
  callerSql,
  conjunction,
  constant,
  disjunction,
  parens,
  union,
} from "../sql/nodes.js";
import { branchNode, selectedNode } from "./branch.js";
import { aliasName, type Lowering, narrowLowering, sqlTypeOf } from "./context.js";
import { cteHoldsText } from "./cte-types.js";
import { withPrefix } from "./ctes.js";
import { untypedIds } from "./untyped-ids.js";

/**
 * The filter with the branches that qualify written on the caller's row; null when none does,
 * or when the filter would be several conditions of which one holds a subquery and the
 * dialect has no `memberOfArray` (then it stays one `IN (…)`). Branches with the same
 * conditions on the row and joined through the same column share one subquery.
 *
 *   callerRowFilter(lowering, "app.documents.id")
 *   // app.documents.folder_id in (with recursive … select f1.arg2 from polar_r0 as f1)
 *   //   and app.documents.id is not null
 */
export function callerRowFilter(lowering: Lowering, column: string): OperationNode | null {
  const groups = new Map<string, { own: readonly OperationNode[]; joined: Joined[] }>();
  const rest: Branch[] = [];
  let guard: OperationNode | null = null;
  for (const branch of lowering.plan.branches) {
    const split = callerRowBranch(lowering, branch, column);
    if (!split) {
      rest.push(branch);
      continue;
    }
    guard ??= split.guard;
    // The type too: a group's IN compares its values as the type's (collation, binary).
    const key = JSON.stringify([split.joined?.column ?? null, split.joined?.type, split.ownKey]);
    const group = groups.get(key) ?? { own: split.own, joined: [] as Joined[] };
    if (split.joined) group.joined.push(split.joined);
    groups.set(key, group);
  }
  if (!guard) return null;
  // A subquery in one of several disjuncts is not a join: PostgreSQL then reads every row of
  // the caller's table and tests each against a hashed subquery, where one `IN (…)` over all
  // the branches probes the listed rows by the key (bench/RESULTS.md, "Joined rules on the
  // caller's rows"). Disjuncts of plain conditions, or of `= any(array(…))`, use indexes.
  const subqueries = [...groups.values()].filter((g) => g.joined.length > 0).length;
  let member: Member = (term, query, type) =>
    lowering.rules.memberOfQuery(term, query, type, sqlTypeOf(lowering, type));
  if (groups.size + (rest.length > 0 ? 1 : 0) > 1 && subqueries + rest.length > 0) {
    const arrays = lowering.rules.memberOfArray;
    if (!arrays || !rest.every((branch) => selectsIds(lowering, branch))) return null;
    member = (term, query) => arrays(term, query);
  }
  const parts = [...groups.values()].map(({ own, joined }) => {
    const [first] = joined;
    const branches = joined.map((j) => j.branch);
    return conjunction([
      ...(first ? [memberOf(lowering, first.column, first.type, branches, member)] : []),
      ...own,
    ]);
  });
  if (rest.length > 0) {
    parts.unshift(memberOf(lowering, column, lowering.outputs[0]!.type, rest, member));
  }
  // Every part holds only where the key is not NULL: the guard is written once, outside the
  // OR, so that the OR is left to the indexes and never tested row by row.
  if (parts.some((part) => part === null)) return guard;
  const either = parts.length === 1 ? parts[0]! : parens(disjunction(parts as OperationNode[])!);
  return conjunction([either, guard])!;
}

/** `term IN (query)` or its array form (the dialect's rules). */
type Member = (term: OperationNode, query: OperationNode, type: string) => OperationNode;

/**
 * Whether a branch left in the subquery on the key outputs ids the caller's column compares as
 * the `IN (…)` form does (src/lower/lower.ts `lowerFilter`): not a wildcard, and not text
 * meeting a column of unknown type.
 */
function selectsIds(lowering: Lowering, branch: Branch): boolean {
  const output = branch.outputs[0]!;
  if (output.kind === "any" || output.kind === "outer") return false;
  return (
    !untypedIds(lowering, lowering.outputs[0]!.type) || readsTyped(lowering, branch.sources, output)
  );
}

/** A branch's join to the caller's row: one of the row's columns among the values `branch` gives. */
interface Joined {
  /** The row's column as the caller's SQL (`app.documents.folder_id`). */
  readonly column: string;
  readonly type: string;
  /** The branch's other sources and conditions, with the values as its one output. */
  readonly branch: Branch;
}

/**
 * The branch written on the caller's row: its conditions on the row alone (`own`) and, when
 * it reads other sources, its join to them; null when it does not qualify.
 */
function callerRowBranch(
  lowering: Lowering,
  branch: Branch,
  column: string,
): CallerRowBranch | null {
  const row = keyedRow(lowering, branch, column);
  if (!row) return null;
  const others = branch.sources.filter((ref) => ref !== row.ref);
  if (others.length === 0) {
    if (branch.conditions.some((c) => c.kind === "not_exists")) return null;
    return onRow(row, ownConditions(lowering, row, branch.conditions), null);
  }
  const split = splitConditions(branch.conditions, row.ref.alias);
  if (!split) return null;
  const [first, ...more] = split.partners;
  const type = termType(split.column);
  const item = row.items.get(split.column.column);
  if (!first || item === undefined) return null;
  if (untypedIds(lowering, type) && !split.partners.every((p) => readsTyped(lowering, others, p))) {
    return null;
  }
  const same = more.map(
    (term): Condition => ({ kind: "compare", op: "=", left: first, right: term }),
  );
  return onRow(row, ownConditions(lowering, row, split.own), {
    column: `${row.scan.table}.${row.scan.items[item]}`,
    type,
    branch: { sources: others, conditions: [...split.inner, ...same], outputs: [first] },
  });
}

/**
 * A branch on the caller's row. `own` leaves out the NULL guards its other parts imply: the
 * key's (`guard`, written once for the whole filter) and the joined column's.
 */
interface CallerRowBranch {
  readonly own: readonly OperationNode[];
  /** `own` as text, the part of the key that groups branches. */
  readonly ownKey: string;
  readonly joined: Joined | null;
  readonly guard: OperationNode;
}

function onRow(
  row: KeyedRow,
  own: OperationNode | null,
  joined: Joined | null,
): CallerRowBranch | null {
  if (!own) return null;
  const guard = notNull(`${row.scan.table}.${row.scan.items[row.keyItem]}`);
  const implied = [guard, ...(joined ? [notNull(joined.column)] : [])].map((n) =>
    JSON.stringify(n),
  );
  const kept = conjuncts(own)
    .map((node) => ({ node, text: JSON.stringify(node) }))
    .filter(({ text }) => !implied.includes(text));
  return { own: kept.map((k) => k.node), ownKey: kept.map((k) => k.text).join(","), joined, guard };
}

/** `column is not null` on the caller's row, as src/lower/branch.ts guards a column. */
function notNull(column: string): OperationNode {
  return binary(callerSql(column), "is not", constant(null));
}

function conjuncts(node: OperationNode): OperationNode[] {
  return AndNode.is(node) ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node];
}

/**
 * Whether an id of unknown SQL type meets the caller's column as the join did: a column of a
 * binding or of a CTE that keeps the bindings' types, not rows known when printing (which the
 * join compares through the column's text, src/lower/untyped-ids.ts).
 */
function readsTyped(lowering: Lowering, sources: readonly SourceRef[], term: Term): boolean {
  if (term.kind !== "column") return false;
  const source = sources.find((ref) => ref.alias === term.alias)?.source;
  if (source?.kind === "binding") return !source.rows?.length;
  return source?.kind === "cte" && !cteHoldsText(lowering, source.cte);
}

/** The branch's source that is the caller's row, with what rewriting onto it needs. */
interface KeyedRow {
  readonly ref: SourceRef;
  readonly scan: PlainScan;
  /** `argN` -> index of the scan's select item, for slots read as bare columns. */
  readonly items: ReadonlyMap<string, number>;
  /** The select item of the key. */
  readonly keyItem: number;
}

function keyedRow(lowering: Lowering, branch: Branch, column: string): KeyedRow | null {
  const output = branch.outputs[0];
  if (output?.kind !== "column") return null;
  const ref = branch.sources.find((source) => source.alias === output.alias);
  if (ref?.source.kind !== "binding" || (ref.source.rows?.length ?? 0) > 0) return null;
  const binding = lowering.bindings.bindings[ref.source.binding]!;
  const scan = binding.scan;
  if (!scan || scan.conditions.length > 0 || qualifiedParts(scan) !== 2) return null;
  const key = lowering.bindings.keys.get(scan.tableName);
  if (key?.length !== 1) return null;
  const items = itemsByColumn(binding, scan);
  const outputItem = items.get(output.column);
  if (outputItem === undefined || scan.columns[outputItem] !== key[0]) return null;
  // The caller writes the column in the statement's dialect, the one the bindings were read in
  // (src/api/local.ts).
  const syntax = lowering.bindings.syntax ?? DEFAULT_DIALECT;
  if (!namesKey(column, scan.tableName, key[0]!, syntax)) return null;
  return { ref, scan, items, keyItem: outputItem };
}

/**
 * The branch's conditions on the row alone, lowered with the row's source only and written on
 * the caller's table; null when one reads anything else.
 */
function ownConditions(
  lowering: Lowering,
  row: KeyedRow,
  conditions: readonly Condition[],
): OperationNode | null {
  const lowered = branchNode(lowering, { sources: [row.ref], conditions, outputs: [] }, []);
  const where = lowered.where?.where;
  if (!where) return null;
  const alias = aliasName(lowering, row.ref.alias);
  let foreign = false;
  const rewritten = new (class extends OperationNodeTransformer {
    protected override transformReference(node: ReferenceNode): ReferenceNode {
      const table = node.table?.table.identifier.name;
      const name = node.column.kind === "ColumnNode" ? node.column.column.name : null;
      const item = name === null ? undefined : row.items.get(name);
      if (table !== alias || item === undefined) {
        foreign = true;
        return node;
      }
      // A raw node in place of the reference: the table and column exactly as the binding writes them.
      const { scan } = row;
      return callerSql(`${scan.table}.${scan.items[item]}`) as unknown as ReferenceNode;
    }
  })().transformNode(where);
  return foreign ? null : rewritten;
}

/**
 * The conditions of a branch that joins the row (`alias`) to other sources: those on the row
 * alone, those without it, and the equalities between one column of the row and the others'
 * terms. Null when the row meets the others in another way (two of its columns, an ordering,
 * a nested subquery that reads it) or not at all.
 */
function splitConditions(
  conditions: readonly Condition[],
  alias: string,
): { own: Condition[]; inner: Condition[]; column: ColumnTerm; partners: Term[] } | null {
  const own: Condition[] = [];
  const inner: Condition[] = [];
  const partners: Term[] = [];
  let column: ColumnTerm | null = null;
  const isRow = (term: Term): term is ColumnTerm => term.kind === "column" && term.alias === alias;
  const isOther = (term: Term) => term.kind === "column" && term.alias !== alias;
  for (const condition of conditions) {
    const wrapped: Branch = { sources: [], conditions: [condition], outputs: [] };
    if (mentionsOuter(condition)) return null;
    if (!mentionsAlias(wrapped, alias, false)) {
      const local =
        condition.kind === "compare" && !isOther(condition.left) && !isOther(condition.right);
      (local ? own : inner).push(condition);
      continue;
    }
    if (condition.kind === "in") {
      own.push(condition);
      continue;
    }
    if (condition.kind !== "compare") return null;
    const { left, right } = condition;
    if (!isOther(left) && !isOther(right)) {
      own.push(condition);
      continue;
    }
    const [mine, theirs] = isRow(left) ? [left, right] : [right as ColumnTerm, left];
    if (condition.op !== "=" || (column && column.column !== mine.column)) return null;
    column = mine;
    partners.push(theirs);
  }
  return column ? { own, inner, column, partners } : null;
}

/** Whether the condition reads the caller's column (a wildcard's `outer` term) anywhere. */
function mentionsOuter(condition: Condition): boolean {
  let found = false;
  const probe = (term: Term): Term => {
    found ||= term.kind === "outer";
    return term;
  };
  mapBranch(
    { sources: [], conditions: [condition], outputs: [] },
    { alias: (a) => a, term: probe },
  );
  return found;
}

/**
 * `column in (with … select … union all select …)` (or the array form) over the values of
 * `branches`, each lowered on its own so that the WITH clause holds only what they read.
 */
function memberOf(
  lowering: Lowering,
  column: string,
  type: string,
  branches: readonly Branch[],
  member: Member,
): OperationNode {
  const narrow = narrowLowering(lowering, branches, [{ variable: "value", type }]);
  const parts = branches.map((branch) =>
    branchNode(narrow, branch, [selectedNode(narrow, branch.outputs[0]!, type)]),
  );
  return member(callerSql(column), withPrefix(narrow, union(parts, true)), type);
}

function qualifiedParts(scan: PlainScan): number {
  return (JSON.parse(scan.tableName) as string[]).length;
}

/** `argN` -> index of the select item, for slots read as bare columns. */
function itemsByColumn(binding: Binding, scan: PlainScan): Map<string, number> {
  const items = new Map<string, number>();
  let item = 0;
  binding.slots.forEach((slot, position) => {
    if (slot.kind !== "column") return;
    if (scan.columns[item] !== null) items.set(argColumn(position), item);
    item++;
  });
  return items;
}

/** Whether the caller's column is `<table>.<key>` for this canonical table and key column. */
function namesKey(column: string, table: string, key: string, syntax: DialectName): boolean {
  for (let dot = column.lastIndexOf("."); dot > 0; dot = column.lastIndexOf(".", dot - 1)) {
    const prefix = tableName(column.slice(0, dot).trim(), syntax);
    const suffix = tableName(column.slice(dot + 1).trim(), syntax);
    if (prefix === table && suffix === key) return true;
  }
  return false;
}
