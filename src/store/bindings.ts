/**
 * Central questions run through the same compiler as local ones: the fact table is presented
 * to the planner as data bindings, one per stored fact shape (predicate + argument types).
 * `has_role(User:_, String:_, Org:_)` reads
 * `select i0, i1, i2 from polar_fact where predicate = 'has_role' and arity = 3 and t0 = 'User' …`,
 * a query built as a SQL tree and printed by the PostgreSQL dialect.
 */
import type { OperationNode } from "kysely";
import { isPolarName } from "../bindings/signature.js";
import type { Binding, DataBindings } from "../bindings/types.js";
import type { Value } from "../core/value.js";
import { binary, cast, columnRef, conjunction, select, table } from "../lower/nodes.js";
import { valueNode } from "../lower/sql-value.js";
import type { Dialect } from "../print/dialect.js";
import { postgres } from "../print/postgres.js";
import { printTree } from "../print/printer.js";
import type { FactShape } from "./facts.js";
import { FACT_TABLE } from "./schema.js";

/**
 * Argument `index` of a row of `table` (the fact table, or a table of the same columns) as a
 * value of its Polar type: ids are stored as text.
 */
export function storedArgument(
  dialect: Dialect,
  table: string,
  type: string,
  index: number,
): OperationNode {
  const node = columnRef(table, `i${index}`);
  if (type === "Integer") return cast(node, dialect.castType(type, undefined));
  // SQLite has no boolean type: its booleans are the integers a comparison gives.
  if (type === "Boolean") {
    return dialect.name === "sqlite"
      ? binary(
          node,
          "=",
          valueNode({ kind: "literal", value: { type: "String", id: "true" } }, undefined, false),
        )
      : cast(node, "boolean");
  }
  return node;
}

function equals(name: string, value: Value): OperationNode {
  return binary(
    columnRef(FACT_TABLE, name),
    "=",
    valueNode({ kind: "literal", value }, undefined, false),
  );
}

function shapeQuery(dialect: Dialect, predicate: string, types: readonly string[]): string {
  const node = select({
    selections: types.map((type, index) => storedArgument(dialect, FACT_TABLE, type, index)),
    from: [table(FACT_TABLE)],
    where: conjunction([
      equals("predicate", { type: "String", id: predicate }),
      equals("arity", { type: "Integer", id: String(types.length) }),
      ...types.map((type, i) => equals(`t${i}`, { type: "String", id: type })),
    ]),
  });
  const runtime = { params: new Map(), now: 0n };
  return printTree(dialect, node, { kind: "literals", runtime }, new Set()).sql;
}

/**
 * The fact table as data bindings. Shapes whose names the policy language cannot write are
 * left out: no rule can reach them; so are zero-argument facts (the service inlines them).
 */
export function storeBindings(
  shapes: readonly FactShape[],
  dialect: Dialect = postgres,
): DataBindings {
  const bindings: Binding[] = [];
  for (const { predicate, types } of shapes) {
    if (types.length === 0) continue;
    if (!isPolarName(predicate) || !types.every(isPolarName)) continue;
    bindings.push({
      signature: `${predicate}(${types.map((t) => `${t}:_`).join(", ")})`,
      predicate,
      slots: types.map((type) => ({ kind: "column", type })),
      query: shapeQuery(dialect, predicate, types),
      line: 0,
      scan: null,
    });
  }
  return { bindings, sqlTypes: new Map(), keys: new Map() };
}
