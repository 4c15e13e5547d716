/**
 * Merges branches that differ only in the literal one condition compares with
 * (`f2.arg1 = 'member'` and `f2.arg1 = 'admin'`) into one branch with `IN ('member', 'admin')`.
 * Role hierarchies produce many such branches; one index probe serves them all. Branches that
 * differ only in the predicates of a facts source become one source of all those predicates
 * (a chain of n rules would otherwise carry n fact branches up every link: n² work).
 */
import { checkPlanClock } from "../core/budget.js";
import {
  type Branch,
  type Condition,
  type FactsSource,
  isSubquery,
  type LiteralTerm,
  type SourceRef,
  type Term,
} from "./ir.js";
import { branchAliases, mapBranch } from "./rewrite.js";

interface Slot {
  readonly subject: Term;
  readonly values: readonly LiteralTerm[];
}

/** The subject and literals of `x = lit`, `lit = x` or `x IN (lits)`, else null. */
function literalSlot(condition: Condition): Slot | null {
  if (condition.kind === "compare" && condition.op === "=") {
    if (condition.right.kind === "literal" && condition.left.kind !== "literal") {
      return { subject: condition.left, values: [condition.right] };
    }
    if (condition.left.kind === "literal" && condition.right.kind !== "literal") {
      return { subject: condition.right, values: [condition.left] };
    }
  }
  if (condition.kind === "in" && condition.values.every((v) => v.kind === "literal")) {
    return { subject: condition.term, values: condition.values as LiteralTerm[] };
  }
  return null;
}

interface Keyed {
  readonly branch: Branch;
  /**
   * The branch with the aliases it declares renamed in order of appearance: branches of one
   * `[NOT] EXISTS` declare different aliases for the same shape.
   */
  readonly shape: Branch;
  /** Each source of the shape as JSON. */
  readonly sources: readonly string[];
  readonly conditions: readonly string[];
  readonly outputs: string;
}

function keyed(branch: Branch): Keyed {
  const shape = canonicalAliases(branch, "\u0000");
  return {
    branch,
    shape,
    sources: shape.sources.map((ref) => JSON.stringify(ref)),
    conditions: shape.conditions.map((c) => JSON.stringify(c)),
    outputs: JSON.stringify(shape.outputs),
  };
}

/** The shape's identity: equal for branches that differ only in the aliases they declare. */
function identity(entry: Keyed): string {
  return `${entry.sources.join(",")}|${entry.conditions.join(",")}|${entry.outputs}`;
}

/** The branch's identity with condition `index` reduced to its subject. */
function keyWithout(entry: Keyed, index: number, subject: Term): string {
  const conditions = entry.conditions.map((c, i) =>
    i === index ? `slot:${JSON.stringify(subject)}` : c,
  );
  return `${entry.sources.join(",")}|${conditions.join(",")}|${entry.outputs}`;
}

function valueKey(term: LiteralTerm): string {
  return `${term.value.type}\u0000${term.value.id}`;
}

/** One pass over every condition position, merging each group that differs only there. */
function mergePass(entries: readonly Keyed[]): Keyed[] | null {
  let changed = false;
  let current = [...entries];
  const width = Math.max(0, ...current.map((e) => e.conditions.length));
  for (let c = 0; c < width; c++) {
    checkPlanClock();
    const groups = new Map<string, number[]>();
    current.forEach((entry, i) => {
      const condition = entry.shape.conditions[c];
      const slot = condition && literalSlot(condition);
      if (!slot) return;
      const key = keyWithout(entry, c, slot.subject);
      const group = groups.get(key);
      if (group) group.push(i);
      else groups.set(key, [i]);
    });
    const dropped = new Set<number>();
    const replaced = new Map<number, Keyed>();
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      changed = true;
      const first = current[group[0]!]!;
      const subject = literalSlot(first.branch.conditions[c]!)!.subject;
      // Deduplicated through a set of keys: a group may hold thousands of literals.
      const values: LiteralTerm[] = [];
      const seen = new Set<string>();
      for (const i of group) {
        for (const value of literalSlot(current[i]!.branch.conditions[c]!)!.values) {
          const key = valueKey(value);
          if (seen.has(key)) continue;
          seen.add(key);
          values.push(value);
        }
        if (i !== group[0]) dropped.add(i);
      }
      const merged: Condition =
        values.length === 1
          ? { kind: "compare", op: "=", left: subject, right: values[0]! }
          : { kind: "in", term: subject, values };
      const conditions = first.branch.conditions.map((cond, k) => (k === c ? merged : cond));
      replaced.set(group[0]!, keyed({ ...first.branch, conditions }));
    }
    if (dropped.size > 0) {
      current = current.flatMap((entry, i) => (dropped.has(i) ? [] : [replaced.get(i) ?? entry]));
    }
  }
  return changed ? current : null;
}

/**
 * The entries with literal-only differences merged (order kept, first occurrence wins).
 *
 *   mergeEntries([b("f2.arg1 = 'member'"), b("f2.arg1 = 'admin'")]) // [b("f2.arg1 IN (…)")]
 */
function mergeEntries(entries: readonly Keyed[]): Keyed[] {
  let current = [...entries];
  const pass = (entries: readonly Keyed[]) => mergePass(entries) ?? mergeFactsPass(entries);
  for (let merged = pass(current); merged; merged = pass(current)) current = merged;
  return current;
}

function mergeBranches(branches: readonly Branch[]): Branch[] {
  return mergeEntries(branches.map((branch) => keyed(mergeNested(branch)))).map((e) => e.branch);
}

/**
 * One pass over every source position, merging each group of branches that differ only in
 * the predicates of the facts source there.
 */
function mergeFactsPass(entries: readonly Keyed[]): Keyed[] | null {
  let changed = false;
  let current = [...entries];
  const width = Math.max(0, ...current.map((e) => e.shape.sources.length));
  for (let s = 0; s < width; s++) {
    checkPlanClock();
    const groups = new Map<string, number[]>();
    current.forEach((entry, i) => {
      const ref = entry.shape.sources[s];
      if (ref?.source.kind !== "facts") return;
      // The source's predicates left out of its JSON: the others' JSON is kept.
      const facts = JSON.stringify({ alias: ref.alias, types: ref.source.types });
      const sources = entry.sources.map((json, k) => (k === s ? facts : json));
      const key = `${sources.join(",")}|${entry.conditions.join(",")}|${entry.outputs}`;
      const group = groups.get(key);
      if (group) group.push(i);
      else groups.set(key, [i]);
    });
    const dropped = new Set<number>();
    const replaced = new Map<number, Keyed>();
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      changed = true;
      const predicates = new Set<string>();
      for (const i of group) {
        for (const p of (current[i]!.branch.sources[s]!.source as FactsSource).predicates) {
          predicates.add(p);
        }
        if (i !== group[0]) dropped.add(i);
      }
      const first = current[group[0]!]!.branch;
      const ref = first.sources[s]!;
      const merged: SourceRef = {
        alias: ref.alias,
        source: { ...(ref.source as FactsSource), predicates: [...predicates] },
      };
      const sources = first.sources.map((r, k) => (k === s ? merged : r));
      replaced.set(group[0]!, keyed({ ...first, sources }));
    }
    if (dropped.size > 0) {
      current = current.flatMap((entry, i) => (dropped.has(i) ? [] : [replaced.get(i) ?? entry]));
    }
  }
  return changed ? current : null;
}

function mergeNested(branch: Branch): Branch {
  if (!branch.conditions.some(isSubquery)) return branch;
  return {
    ...branch,
    conditions: branch.conditions.map((c) =>
      isSubquery(c) ? { ...c, branches: mergeBranches(c.branches) } : c,
    ),
  };
}

/** Aliases `<prefix>0, <prefix>1, …` in order of appearance within the branch. */
export function canonicalAliases(branch: Branch, prefix: string): Branch {
  const names = new Map<string, string>();
  for (const alias of branchAliases(branch)) {
    if (!names.has(alias)) names.set(alias, `${prefix}${names.size}`);
  }
  return mapBranch(branch, { alias: (a) => names.get(a) ?? a, term: (t) => t });
}

/**
 * Canonical aliases, duplicates removed (different derivations often give the same join),
 * literal-only differences merged.
 *
 *   simplifyBranches(branches, "f") // stable names f0, f1, … in each branch
 */
export function simplifyBranches(branches: readonly Branch[], prefix: string): Branch[] {
  // One branch has nothing to be the same as, nor to merge with.
  if (branches.length === 1) return [canonicalAliases(mergeNested(branches[0]!), prefix)];
  const seen = new Set<string>();
  const distinct: Keyed[] = [];
  for (const branch of branches) {
    const entry = keyed(branch);
    const key = identity(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    distinct.push(branch.conditions.some(isSubquery) ? keyed(mergeNested(branch)) : entry);
  }
  // Merging keeps each branch's aliases and their order: naming them last names them as
  // naming them first would, once per branch left.
  return mergeEntries(distinct).map((entry) => canonicalAliases(entry.branch, prefix));
}
