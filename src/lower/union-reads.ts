/**
 * Each SELECT of a UNION that reads a recursive CTE, wrapped in a derived table of its own
 * (`select polar_u0.c0 from (select 1 as c0 from polar_r0 as f0 …) as polar_u0 union all …`),
 * for engines whose rules ask for it (`isolatesRecursiveReads`, applied by src/lower/lower.ts
 * to statements over the rules' `maxRecursiveReads`). MariaDB prepares a UNION whose SELECTs
 * read recursive CTEs in time and memory exponential in the number of those reads (14 reads
 * in 7 SELECTs: over 1 GB); the same SELECTs each in a derived table of their own prepare in
 * milliseconds (docs/dialects.md, "Recursion"). The bodies of recursive CTEs are left as
 * they are: their self references must stay where the engine looks for them.
 */
import {
  AliasNode,
  IdentifierNode,
  type OperationNode,
  OperationNodeTransformer,
  type RawNode,
  ReferenceNode,
  SelectAllNode,
  SelectQueryNode,
  SetOperationNode,
  TableNode,
} from "kysely";
import { aliased, columnRef, select } from "../sql/nodes.js";
import { isFixedBlock } from "./fixed-rows.js";
import { inlinedReads } from "./inline-scans.js";

/**
 * The statement body with every UNION operand that reads one of `recursive` (CTE names)
 * in its own FROM list wrapped as a derived table named `<prefix>u<n>`.
 *
 *   isolateRecursiveReads(body, new Set(["polar_r0"]), "polar_")
 */
export function isolateRecursiveReads(
  node: OperationNode,
  recursive: ReadonlySet<string>,
  prefix: string,
): OperationNode {
  if (recursive.size === 0) return node;
  return new Isolator(recursive, prefix).transformNode(node);
}

/** Whether the SELECT's own FROM list reads one of the names (not its subqueries). */
function readsDirectly(node: SelectQueryNode, names: ReadonlySet<string>): boolean {
  return (node.from?.froms ?? []).some((item) => {
    const table = AliasNode.is(item) ? item.node : item;
    return TableNode.is(table) && names.has(table.table.identifier.name);
  });
}

class Isolator extends OperationNodeTransformer {
  #count = 0;

  constructor(
    private readonly recursive: ReadonlySet<string>,
    private readonly prefix: string,
  ) {
    super();
  }

  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    // Rows of constants: no CTE read inside, and the printer knows the node by identity.
    if (isFixedBlock(node)) return node;
    const { setOperations, with: clause, ...core } = node;
    const plain = super.transformSelectQuery(core as SelectQueryNode);
    if (!setOperations?.length) return clause ? { ...plain, with: clause } : plain;
    // ORDER BY and LIMIT of the first SELECT apply to the whole union: it stays as it is.
    const modified = core.orderBy || core.limit || core.offset;
    const first = modified ? plain : this.#isolated(plain);
    const operations = setOperations.map((operation) => {
      const operand = this.transformNode(operation.expression);
      return SelectQueryNode.is(operand)
        ? SetOperationNode.create(operation.operator, this.#isolated(operand), operation.all)
        : SetOperationNode.create(operation.operator, operand, operation.all);
    });
    return Object.freeze({
      ...first,
      setOperations: operations,
      ...(clause && { with: clause }),
    });
  }

  // Scans read from their tables must stay recognizable to `correlated` (src/lower/inline-scans.ts).
  protected override transformRaw(node: RawNode): RawNode {
    return inlinedReads(node) === undefined ? super.transformRaw(node) : node;
  }

  #isolated(node: SelectQueryNode): SelectQueryNode {
    if (!readsDirectly(node, this.recursive) || correlated(node) || selectsAll(node)) return node;
    const alias = `${this.prefix}u${this.#count++}`;
    // Each column named, so that the outer SELECT names it again (`u.actions`, `u.c0`).
    const names: string[] = [];
    const selections = (node.selections ?? []).map((selection, i) => {
      const inner = selection.selection;
      if (AliasNode.is(inner) && IdentifierNode.is(inner.alias)) {
        names.push(inner.alias.name);
        return inner;
      }
      names.push(`c${i}`);
      return aliased(inner, `c${i}`);
    });
    const inner: SelectQueryNode = Object.freeze({
      ...node,
      selections: select({ selections }).selections,
    });
    return select({
      selections: names.map((name) => columnRef(alias, name)),
      from: [aliased(inner, alias)],
    });
  }
}

/** Whether the select list holds a `*` (its columns cannot be named one by one here). */
function selectsAll(node: SelectQueryNode): boolean {
  return (node.selections ?? []).some(({ selection }) => {
    const inner = AliasNode.is(selection) ? selection.node : selection;
    return SelectAllNode.is(inner) || (ReferenceNode.is(inner) && SelectAllNode.is(inner.column));
  });
}

/**
 * Whether the SELECT reads a table alias it does not declare (a correlated subquery), or the
 * caller's SQL other than a scan read from its table (whose aliases are known): MariaDB's
 * derived tables cannot see the enclosing query.
 */
function correlated(node: SelectQueryNode): boolean {
  const declared = new Set<string>();
  const referenced: string[] = [];
  let raw = false;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const kind = (value as { kind?: unknown }).kind;
    if (kind === "AliasNode" && IdentifierNode.is((value as AliasNode).alias)) {
      declared.add(((value as AliasNode).alias as IdentifierNode).name);
    } else if (kind === "ReferenceNode") {
      const table = (value as ReferenceNode).table;
      if (table) referenced.push(table.table.identifier.name);
    } else if (kind === "RawNode" && (value as RawNode).parameters.length === 0) {
      const reads = inlinedReads(value as RawNode);
      if (reads) referenced.push(reads);
      else if (reads === undefined) {
        raw ||= (value as RawNode).sqlFragments.some((text) => text.trim() !== "");
      }
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(node);
  return raw || referenced.some((name) => !declared.has(name));
}

/**
 * How often the statement reads each of `recursive` (CTE names) in the FROM lists of SELECTs
 * that are operands of a UNION, outside the WITH clauses: the reads that MariaDB prepares in
 * exponential time. Reads in a lone SELECT, in a derived table of their own or in a CTE's
 * body are not counted.
 *
 *   unionReads(node, new Set(["polar_r0"])) // Map { "polar_r0" => 2 }
 */
export function unionReads(
  node: OperationNode,
  recursive: ReadonlySet<string>,
): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (select: SelectQueryNode) => {
    for (const item of select.from?.froms ?? []) {
      const table = AliasNode.is(item) ? item.node : item;
      if (!TableNode.is(table)) continue;
      const name = table.table.identifier.name;
      if (recursive.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    if (SelectQueryNode.is(value as OperationNode)) {
      const query = value as SelectQueryNode;
      if (query.setOperations?.length) {
        count(query);
        for (const operation of query.setOperations) {
          if (SelectQueryNode.is(operation.expression)) count(operation.expression);
        }
      }
    }
    for (const [key, child] of Object.entries(value)) if (key !== "with") visit(child);
  };
  visit(node);
  return counts;
}
