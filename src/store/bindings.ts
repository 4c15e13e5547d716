/**
 * Central questions run through the same compiler as local ones: the fact table is presented
 * to the planner as data bindings, one per stored fact shape (predicate + argument types).
 * `has_role(User:_, String:_, Org:_)` reads
 * `SELECT i0, i1, i2 FROM polar_fact WHERE predicate = 'has_role' AND arity = 3 AND t0 = 'User' …`.
 */
import { isPolarName } from "../bindings/signature.js";
import { quoteString } from "../sql/literal.js";
import type { FactShape } from "./facts.js";
import { FACT_TABLE } from "./schema.js";

function column(type: string, index: number): string {
  switch (type) {
    case "Integer":
      return `CAST(i${index} AS bigint)`;
    case "Boolean":
      return `CAST(i${index} AS boolean)`;
    default:
      return `i${index}`;
  }
}

/**
 * Data-bindings YAML over the fact table. Shapes whose names the policy language cannot write
 * are left out: no rule can reach them; so are zero-argument facts.
 */
export function storeBindingsYaml(shapes: readonly FactShape[]): string {
  const lines = ["facts:"];
  for (const { predicate, types } of shapes) {
    // Zero-argument facts have no signature to bind; the service inlines them.
    if (types.length === 0) continue;
    if (!isPolarName(predicate) || !types.every(isPolarName)) continue;
    const signature = `${predicate}(${types.map((t) => `${t}:_`).join(", ")})`;
    const conditions = [
      `predicate = ${quoteString(predicate)}`,
      `arity = ${types.length}`,
      ...types.map((type, i) => `t${i} = ${quoteString(type)}`),
    ];
    const columns = types.map(column).join(", ");
    const query = `SELECT ${columns} FROM ${FACT_TABLE} WHERE ${conditions.join(" AND ")}`;
    lines.push(`  ${JSON.stringify(signature)}:`, `    query: ${JSON.stringify(query)}`);
  }
  return lines.length === 1 ? "facts:\n" : `${lines.join("\n")}\n`;
}
