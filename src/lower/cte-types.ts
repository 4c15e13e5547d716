/**
 * The SQL types of recursive CTE columns holding entity ids without `sql_types`
 * (docs/local-authorization.md, "Ids without sql_types"). PostgreSQL takes a recursive CTE's
 * column types from its seeds, so a seed `select '3'` would make a column text that its steps
 * fill from an integer binding column (`operator does not exist: integer = text`). Two ways:
 *
 * - when every id a seed writes compares untyped, the seed takes the column's type from the
 *   binding column a step reads: `coalesce((select q.arg2 from polar_c0 as q where false), '3')`
 *   (the subquery is a NULL of the column's type; its indexes keep serving every step);
 * - otherwise (an id such as `abc`, which an integer column cannot read, or central rows, which
 *   are text) the CTE holds text:
 *   its binding columns are cast to text, and what reads it compares the columns it meets
 *   with their text.
 */
import type { OperationNode } from "kysely";
import { FunctionNode } from "kysely";
import type { Branch, Output, RecursiveCte } from "../plan/ir.js";
import { columnRef, constant, select, tableAs } from "../sql/nodes.js";
import type { Lowering } from "./context.js";
import { comparesUntyped, readsBindingAsText, requestId, untypedIds } from "./untyped-ids.js";

const textModes = new WeakMap<Lowering, Map<number, boolean>>();

/**
 * Whether the plan's CTE `index` holds its untyped id columns as text: some seed or step
 * writes there an id that does not compare untyped, or a column of rows known when printing.
 */
export function cteHoldsText(lowering: Lowering, index: number): boolean {
  let modes = textModes.get(lowering);
  if (!modes) {
    modes = new Map();
    textModes.set(lowering, modes);
  }
  let mode = modes.get(index);
  if (mode === undefined) {
    const cte = lowering.plan.ctes[index];
    mode =
      cte !== null &&
      cte !== undefined &&
      [...cte.seeds, ...cte.steps].some((branch) =>
        branch.outputs.some((output, i) => {
          if (!untypedIds(lowering, cte.columns[i]!.type)) return false;
          if (output.kind === "column") {
            // Rows known when printing are text, and so are the ids of an array parameter.
            const source = branch.sources.find((ref) => ref.alias === output.alias)?.source;
            if (source?.kind === "binding") return readsBindingAsText(lowering, source);
            return source?.kind === "values" || source?.kind === "param";
          }
          if (output.kind !== "literal" && output.kind !== "param") return false;
          const id = requestId(lowering, output);
          return id === null || !comparesUntyped(lowering, id);
        }),
      );
    modes.set(index, mode);
  }
  return mode;
}

/**
 * For each untyped id column of the CTE, a NULL of the SQL type a step reads it from (a
 * binding column): `(select q.argN from <binding> as q where false)`; undefined where none.
 */
export function cteColumnTypes(
  lowering: Lowering,
  cte: RecursiveCte,
): (OperationNode | undefined)[] {
  return cte.columns.map((column, i) => {
    if (!untypedIds(lowering, column.type)) return undefined;
    for (const branch of [...cte.steps, ...cte.seeds]) {
      const binding = bindingColumn(branch, branch.outputs[i]!);
      if (!binding) continue;
      const name = lowering.bindingNames.get(binding.binding);
      if (name === undefined) continue;
      return select({
        selections: [columnRef("q", binding.column)],
        from: [tableAs(name, "q")],
        where: constant(false),
      });
    }
    return undefined;
  });
}

/** `coalesce(typed NULL, value)`: the value, of the column's SQL type. */
export function typedLike(typeSource: OperationNode, value: OperationNode): OperationNode {
  return FunctionNode.create("coalesce", [typeSource, value]);
}

function bindingColumn(
  branch: Branch,
  output: Output,
): { readonly binding: number; readonly column: string } | null {
  if (output.kind !== "column") return null;
  const source = branch.sources.find((ref) => ref.alias === output.alias)?.source;
  return source?.kind === "binding" ? { binding: source.binding, column: output.column } : null;
}
