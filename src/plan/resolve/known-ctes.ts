/**
 * Recursive CTEs over rows known when printing. When every seed and step of a resolved CTE reads
 * only rows the compiler already holds (central and context facts, param lists), the recursion
 * is computed here, semi-naively, from the seeds the question binds: only the part the question
 * reaches goes into the statement, as rows, instead of the whole relation and a recursive CTE
 * (a `managed_by` chain held centrally: a manager's three reports, not every pair of the company).
 *
 * The computation is bounded: when the answer would hold more rows than the statement would
 * otherwise inline (and more than `MIN_ROWS`), or takes more than `MAX_STEPS` joins, the CTE is
 * left to the database.
 */
import { compareValues, type Value, valueKey, valuesEqual } from "../../core/value.js";
import { type Branch, type Condition, isSubquery, type RecursiveCte, type Term } from "../ir.js";
import { staticValue } from "./runtime.js";

/** Rows a CTE may always have computed; above, only as many as its inputs hold. */
const MIN_ROWS = 1000;
/** Candidate rows tried across one CTE's computation before giving up. */
const MAX_STEPS = 200_000;

type Runtime = Parameters<typeof staticValue>[1];

/** The values of the aliases bound so far: alias -> column -> value. */
type Binding = ReadonlyMap<string, ReadonlyMap<string, Value>>;

interface Budget {
  steps: number;
}

class OverBudget extends Error {}

/**
 * The CTE's rows, or null when it reads anything but known rows or is too large to be worth
 * computing here.
 *
 *   knownRows(cte, runtime) // [[{ type: "User", id: "7" }], …]
 */
export function knownRows(cte: RecursiveCte, runtime: Runtime): Value[][] | null {
  const branches = [...cte.seeds, ...cte.steps];
  if (!branches.every(readsKnownRows)) return null;
  // Rows from params alone stay in the statement as params: a text printed for one request's
  // ids serves every request of its shape (print/statement.ts), so no id may become a constant.
  const inputRows = branches.reduce((n, b) => n + knownInputRows(b), 0);
  if (inputRows === 0) return null;
  const limit = Math.max(MIN_ROWS, inputRows);
  const budget: Budget = { steps: 0 };
  const found = new Map<string, Value[]>();
  let delta: Value[][] = [];
  const add = (row: Value[]) => {
    const key = row.map(valueKey).join("\u0001");
    if (found.has(key)) return;
    if (found.size >= limit) throw new OverBudget();
    found.set(key, row);
    delta.push(row);
  };
  try {
    for (const seed of cte.seeds) solve(seed, new Map(), runtime, budget, add);
    while (delta.length > 0) {
      const rows = delta;
      delta = [];
      for (const row of rows) {
        const self = new Map(cte.columns.map((column, i) => [column.name, row[i]!]));
        for (const step of cte.steps)
          solve(step, new Map([[cte.self, self]]), runtime, budget, add);
      }
    }
  } catch (error) {
    if (error instanceof OverBudget) return null;
    throw error;
  }
  return [...found.values()];
}

/** Whether a branch (and what it negates) reads nothing but rows held here. */
function readsKnownRows(branch: Branch): boolean {
  return (
    branch.sources.every((ref) => ref.source.kind === "values") &&
    branch.conditions.every((c) => !isSubquery(c) || c.branches.every(readsKnownRows)) &&
    branch.outputs.every((output) => output.kind !== "any" && output.kind !== "null")
  );
}

function knownInputRows(branch: Branch): number {
  return branch.sources.reduce(
    (n, ref) => n + (ref.source.kind === "values" ? ref.source.rows.length : 0),
    0,
  );
}

/** Calls `emit` with the outputs of every way the branch holds, given `outer`. */
function solve(
  branch: Branch,
  outer: Binding,
  runtime: Runtime,
  budget: Budget,
  emit: (row: Value[]) => void,
): void {
  const visit = (index: number, binding: Binding): void => {
    if (index === branch.sources.length) {
      if (!branch.conditions.every((c) => holds(c, binding, runtime, budget))) return;
      emit(branch.outputs.map((output) => termValue(output as Term, binding, runtime)!));
      return;
    }
    const ref = branch.sources[index]!;
    if (ref.source.kind !== "values") throw new Error("internal: unknown rows");
    const { columns } = ref.source;
    for (const row of candidates(branch, ref.alias, ref.source, binding, runtime)) {
      if (++budget.steps > MAX_STEPS) throw new OverBudget();
      const next = new Map(binding);
      next.set(ref.alias, new Map(columns.map((column, i) => [column.name, row[i]!])));
      // Prune early: a condition whose terms are all bound must already hold.
      if (branch.conditions.every((c) => !bound(c, next) || holds(c, next, runtime, budget))) {
        visit(index + 1, next);
      }
    }
  };
  visit(0, outer);
}

type Rows = readonly (readonly Value[])[];

/**
 * The rows of a source that can meet the binding: those whose column equals a bound value
 * where an `=` condition says so (through an index kept with the rows), else all.
 */
function candidates(
  branch: Branch,
  alias: string,
  source: { readonly columns: readonly { readonly name: string }[]; readonly rows: Rows },
  binding: Binding,
  runtime: Runtime,
): Rows {
  for (const condition of branch.conditions) {
    if (condition.kind !== "compare" || condition.op !== "=") continue;
    for (const [mine, other] of [
      [condition.left, condition.right],
      [condition.right, condition.left],
    ] as const) {
      if (mine.kind !== "column" || mine.alias !== alias) continue;
      if (other.kind === "column" && other.alias === alias) continue;
      const value = termValue(other, binding, runtime);
      if (value === null) continue;
      const column = source.columns.findIndex((c) => c.name === mine.column);
      if (column < 0) continue;
      return indexOf(source.rows, column).get(valueKey(value)) ?? [];
    }
  }
  return source.rows;
}

const indexes = new WeakMap<Rows, Map<number, Map<string, Value[][]>>>();

function indexOf(rows: Rows, column: number): Map<string, Value[][]> {
  let byColumn = indexes.get(rows);
  if (!byColumn) {
    byColumn = new Map();
    indexes.set(rows, byColumn);
  }
  let index = byColumn.get(column);
  if (!index) {
    index = new Map();
    for (const row of rows) {
      const key = valueKey(row[column]!);
      const list = index.get(key);
      if (list) list.push(row as Value[]);
      else index.set(key, [row as Value[]]);
    }
    byColumn.set(column, index);
  }
  return index;
}

/** The value of a term under the binding; null when it reads an alias not bound yet. */
function termValue(term: Term, binding: Binding, runtime: Runtime): Value | null {
  if (term.kind === "column") return binding.get(term.alias)?.get(term.column) ?? null;
  return staticValue(term, runtime);
}

function bound(condition: Condition, binding: Binding): boolean {
  switch (condition.kind) {
    case "compare":
      return [condition.left, condition.right].every(
        (t) => t.kind !== "column" || binding.has(t.alias),
      );
    case "in":
      return [condition.term, ...condition.values].every(
        (t) => t.kind !== "column" || binding.has(t.alias),
      );
    case "not_exists":
    case "exists":
      return false;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

function holds(condition: Condition, binding: Binding, runtime: Runtime, budget: Budget): boolean {
  switch (condition.kind) {
    case "compare": {
      const left = termValue(condition.left, binding, runtime);
      const right = termValue(condition.right, binding, runtime);
      return left !== null && right !== null && compareValues(condition.op, left, right);
    }
    case "in": {
      const term = termValue(condition.term, binding, runtime);
      if (term === null) return false;
      return condition.values.some((v) => {
        const value = termValue(v, binding, runtime);
        return value !== null && valuesEqual(term, value);
      });
    }
    case "not_exists":
    case "exists": {
      let found = false;
      for (const inner of condition.branches) {
        solve(inner, binding, runtime, budget, () => {
          found = true;
        });
        if (found) break;
      }
      return found === (condition.kind === "exists");
    }
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}
