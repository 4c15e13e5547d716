/**
 * One scan for bindings that read the same row (data bindings `keys`, a project extension).
 * When a branch joins two plain scans of one table (`SELECT … FROM docs [WHERE …]`) on every
 * column of the table's declared key, both read the same row: they become one scan with both
 * conditions, `SELECT id, org_id, id FROM docs WHERE (c1) AND (c2)` (printed from `Binding.scan`). PostgreSQL cannot do this
 * without knowing the key, and one scan lets one index serve both conditions (a partial index
 * on `org_id WHERE is_public`, say) where two scans probe the table once per candidate row.
 *
 * Runs on a resolved plan: a scan that also reads central or context rows stays as it is.
 */
import type { Binding, DataBindings } from "../../bindings/types.js";
import { argColumn, type Branch, isSubquery, type SourceRef, type Term } from "../ir.js";
import { mapBranch } from "../rewrite.js";
import type { ResolvedPlan } from "./resolve.js";

/** Merged bindings of one data bindings object, appended after its own. */
interface Merged {
  readonly base: DataBindings;
  readonly added: Binding[];
  /** `a+b` (binding indexes) -> index of their merged binding. */
  readonly byPair: Map<string, number>;
  /** `base` plus `added`, rebuilt when `added` grows. */
  view: DataBindings;
}

const mergedByBindings = new WeakMap<DataBindings, Merged>();

/**
 * The plan with keyed scans merged, and the bindings its sources now index (the given ones
 * when nothing merged).
 *
 *   const { plan, bindings } = mergeKeyedScans(resolved, dataBindings);
 */
export function mergeKeyedScans(
  plan: ResolvedPlan,
  base: DataBindings,
): { plan: ResolvedPlan; bindings: DataBindings } {
  if (base.keys.size === 0) return { plan, bindings: base };
  let merged = mergedByBindings.get(base);
  if (!merged) {
    merged = { base, added: [], byPair: new Map(), view: base };
    mergedByBindings.set(base, merged);
  }
  const state = merged;
  let changed = false;
  const visit = (branch: Branch): Branch => {
    const next = mergeBranch(branch, state);
    changed ||= next !== branch;
    return next;
  };
  const ctes = plan.ctes.map(
    (cte) => cte && { ...cte, seeds: cte.seeds.map(visit), steps: cte.steps.map(visit) },
  );
  const branches = plan.branches.map(visit);
  if (!changed) return { plan, bindings: base };
  return { plan: { ...plan, ctes, branches }, bindings: state.view };
}

function bindingAt(state: Merged, index: number): Binding {
  const count = state.base.bindings.length;
  return index < count ? state.base.bindings[index]! : state.added[index - count]!;
}

function mergeBranch(branch: Branch, state: Merged): Branch {
  let current = branch;
  if (branch.conditions.some(isSubquery)) {
    current = {
      ...branch,
      conditions: branch.conditions.map((c) =>
        isSubquery(c) ? { ...c, branches: c.branches.map((b) => mergeBranch(b, state)) } : c,
      ),
    };
  }
  for (;;) {
    const pair = keyedPair(current, state);
    if (!pair) return current;
    current = mergePair(current, pair[0], pair[1], state);
  }
}

/** A binding source of the branch that is a plain scan of a table with a declared key. */
interface KeyedScan {
  readonly ref: SourceRef;
  readonly binding: number;
  readonly table: string;
  /** The `alias.argN` column of each key column. */
  readonly terms: readonly Term[];
}

/** The source as a keyed scan; null when it is none or also reads central or context rows. */
function keyedScan(ref: SourceRef, state: Merged): KeyedScan | null {
  const source = ref.source;
  if (source.kind !== "binding" || (source.rows?.length ?? 0) > 0) return null;
  const binding = bindingAt(state, source.binding);
  const scan = binding.scan;
  const key = scan && state.base.keys.get(scan.tableName);
  if (!scan || !key) return null;
  const slotOfItem = binding.slots.flatMap((slot, i) => (slot.kind === "column" ? [i] : []));
  const terms: Term[] = [];
  for (const column of key) {
    const item = scan.columns.indexOf(column);
    if (item < 0) return null;
    const position = slotOfItem[item]!;
    terms.push({
      kind: "column",
      alias: ref.alias,
      column: argColumn(position),
      type: binding.slots[position]!.type,
    });
  }
  return { ref, binding: source.binding, table: scan.tableName, terms };
}

/** Two sources of the branch that read the same row by a declared key, if any. */
function keyedPair(branch: Branch, state: Merged): [KeyedScan, KeyedScan] | null {
  const keyed = branch.sources.flatMap((ref) => keyedScan(ref, state) ?? []);
  if (keyed.length < 2) return null;
  const same = equalTerms(branch);
  for (let i = 0; i < keyed.length; i++) {
    for (let j = i + 1; j < keyed.length; j++) {
      const a = keyed[i]!;
      const b = keyed[j]!;
      if (a.table !== b.table) continue;
      if (a.terms.every((term, k) => same(term, b.terms[k]!))) return [a, b];
    }
  }
  return null;
}

/** What identifies a value a term stands for; null for terms no key join goes through. */
function termKey(term: Term): string | null {
  if (term.kind === "column") return `c\u0000${term.alias}\u0000${term.column}`;
  if (term.kind === "literal") return `l\u0000${term.value.type}\u0000${term.value.id}`;
  if (term.kind === "param") return `p\u0000${term.name}`;
  return null;
}

/** Whether the branch's top-level `=` conditions make two terms equal (transitively). */
function equalTerms(branch: Branch): (a: Term, b: Term) => boolean {
  const parent = new Map<string, string>();
  const root = (key: string): string => {
    let at = key;
    while (parent.has(at)) at = parent.get(at)!;
    return at;
  };
  for (const condition of branch.conditions) {
    if (condition.kind !== "compare" || condition.op !== "=") continue;
    const left = termKey(condition.left);
    const right = termKey(condition.right);
    if (left === null || right === null) continue;
    if (root(left) !== root(right)) parent.set(root(left), root(right));
  }
  return (a, b) => {
    const left = termKey(a);
    const right = termKey(b);
    return left !== null && right !== null && root(left) === root(right);
  };
}

/** Reads `b`'s columns from `a`'s source, which now scans both bindings' items. */
function mergePair(branch: Branch, scanA: KeyedScan, scanB: KeyedScan, state: Merged): Branch {
  const a = scanA.ref;
  const b = scanB.ref;
  const index = mergedBinding(state, scanA.binding, scanB.binding);
  const offset = bindingAt(state, scanA.binding).slots.length;
  const moved = mapBranch(
    { ...branch, sources: branch.sources.filter((ref) => ref !== b) },
    {
      alias: (alias) => alias,
      term: (term) =>
        term.kind === "column" && term.alias === b.alias
          ? {
              ...term,
              alias: a.alias,
              column: argColumn(offset + Number(term.column.slice("arg".length))),
            }
          : term,
    },
  );
  const sources = moved.sources.map(
    (ref): SourceRef =>
      ref.alias === a.alias ? { alias: a.alias, source: { kind: "binding", binding: index } } : ref,
  );
  return { ...moved, sources };
}

function mergedBinding(state: Merged, first: number, second: number): number {
  const pairKey = `${first}+${second}`;
  const known = state.byPair.get(pairKey);
  if (known !== undefined) return known;
  const a = bindingAt(state, first);
  const b = bindingAt(state, second);
  const scanA = a.scan!;
  const scanB = b.scan!;
  state.added.push({
    signature: `${a.signature} & ${b.signature}`,
    predicate: a.predicate,
    slots: [...a.slots, ...b.slots],
    query: "",
    merged: true,
    line: a.line,
    scan: {
      ...scanA,
      items: [...scanA.items, ...scanB.items],
      columns: [...scanA.columns, ...scanB.columns],
      conditions: [...scanA.conditions, ...scanB.conditions],
    },
  });
  const index = state.base.bindings.length + state.added.length - 1;
  state.byPair.set(pairKey, index);
  state.view = { ...state.base, bindings: [...state.base.bindings, ...state.added] };
  return index;
}
