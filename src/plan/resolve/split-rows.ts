/**
 * Central and context facts read along with a binding are appended to its query's rows
 * (`SELECT * FROM binding UNION ALL SELECT 'ada', 'member', '3'`), where each value takes the
 * type of the binding's column. A value the column's type might not read (an id without
 * `sql_types` such as `abc` against what may be an integer column) would make that union an
 * SQL error, so such rows are read apart: the branch is repeated over them as rows known when
 * printing, which lowering joins on the columns' text (docs/local-authorization.md, "Ids
 * without sql_types").
 */
import type { DataBindings } from "../../bindings/types.js";
import type { Value } from "../../core/value.js";
import { argColumn, type BindingSource, type Branch, type SourceRef } from "../ir.js";

/**
 * The branch, or one branch per way of reading its bindings' appended rows: with the rows a
 * union can hold, and with the others as a `values` source.
 */
export function splitBindingRows(
  branch: Branch,
  bindings: DataBindings,
  unionSafe: ((value: Value) => boolean) | undefined,
): Branch[] {
  if (!unionSafe) return [branch];
  const index = branch.sources.findIndex(
    (ref) =>
      ref.source.kind === "binding" &&
      ref.source.rows !== undefined &&
      partition(ref.source.rows, unionSafe).apart.length > 0,
  );
  if (index < 0) return [branch];
  const ref = branch.sources[index]!;
  const source = ref.source as BindingSource;
  const { kept, apart } = partition(source.rows!, unionSafe);
  const { rows: _rows, ...plain } = source;
  const withKept: SourceRef = {
    alias: ref.alias,
    source: kept.length > 0 ? { ...plain, rows: kept } : plain,
  };
  const slots = bindings.bindings[source.binding]!.slots;
  const columns = slots.flatMap((slot, i) =>
    slot.kind === "column" ? [{ name: argColumn(i), type: slot.type }] : [],
  );
  const withApart: SourceRef = {
    alias: ref.alias,
    source: { kind: "values", columns, rows: apart },
  };
  const replaced = (replacement: SourceRef): Branch => ({
    ...branch,
    sources: branch.sources.map((r, i) => (i === index ? replacement : r)),
  });
  // The kept part may hold more such sources; the part apart has one source fewer.
  return [
    ...splitBindingRows(replaced(withKept), bindings, unionSafe),
    ...splitBindingRows(replaced(withApart), bindings, unionSafe),
  ];
}

type Rows = readonly (readonly Value[])[];

/**
 * The rows a union can hold and the others, kept per rows array and test: central rows recur
 * in every request (the same array per data version), and so does the test for a bindings
 * object and dialect.
 */
function partition(rows: Rows, unionSafe: (value: Value) => boolean) {
  let byTest = partitions.get(rows);
  if (!byTest) {
    byTest = new WeakMap();
    partitions.set(rows, byTest);
  }
  let parts = byTest.get(unionSafe);
  if (!parts) {
    const kept: (readonly Value[])[] = [];
    const apart: (readonly Value[])[] = [];
    for (const row of rows) (row.every(unionSafe) ? kept : apart).push(row);
    // A part equal to the whole is the same array, so what is kept per array stays kept.
    parts = { kept: apart.length === 0 ? rows : kept, apart };
    byTest.set(unionSafe, parts);
  }
  return parts;
}

const partitions = new WeakMap<
  Rows,
  WeakMap<(value: Value) => boolean, { kept: Rows; apart: Rows }>
>();
