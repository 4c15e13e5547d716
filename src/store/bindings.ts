/**
 * Central questions run through the same compiler as local ones: the fact table is presented
 * to the planner as data bindings, one per stored fact shape (predicate + argument types).
 * `has_role(User:_, String:_, Org:_)` reads
 * `select i0, i1, i2 from polar_fact where predicate = 'has_role' and arity = 3 and t0 = 'User' …`,
 * a SQL tree that lowering places as it is (`Binding.tree`).
 */
import { type OperationNode, ValueNode } from "kysely";
import { isPolarName } from "../bindings/signature.js";
import type { Binding, DataBindings } from "../bindings/types.js";
import type { Dialect } from "../dialects/dialect.js";
import { postgres } from "../dialects/postgres/index.js";
import { valueNode } from "../lower/sql-value.js";
import { binary, cast, columnRef, conjunction, select, table } from "../sql/nodes.js";
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

/**
 * `name = value` with the value written into the text: the store's own constants (names the
 * policy language can write, an arity), so every question over a shape shares its statement
 * text and the engine plans with the real values.
 */
function equals(name: string, value: string | number): OperationNode {
  return binary(columnRef(FACT_TABLE, name), "=", ValueNode.createImmediate(value));
}

function shapeQuery(dialect: Dialect, predicate: string, types: readonly string[]): OperationNode {
  return select({
    selections: types.map((type, index) => storedArgument(dialect, FACT_TABLE, type, index)),
    from: [table(FACT_TABLE)],
    where: conjunction([
      equals("predicate", predicate),
      equals("arity", types.length),
      ...types.map((type, i) => equals(`t${i}`, type)),
    ]),
  });
}

/** The names a shape's query reads, for `Binding.query` (generated names avoid them). */
function namesRead(arity: number): string {
  const columns = Array.from({ length: arity }, (_, i) => `t${i} i${i}`);
  return [FACT_TABLE, "predicate", "arity", ...columns].join(" ");
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
      query: namesRead(types.length),
      tree: shapeQuery(dialect, predicate, types),
      line: 0,
      scan: null,
    });
  }
  return { bindings, sqlTypes: new Map(), keys: new Map() };
}
