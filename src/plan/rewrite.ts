/**
 * Structural rewrites of branches: renaming aliases, substituting terms. Every walk over a
 * branch goes through `mapBranch`, so nested `not_exists` branches and the arguments of
 * recursive calls are never forgotten.
 */
import { checkPlanClock } from "../core/budget.js";
import {
  type Branch,
  type ColumnTerm,
  type Condition,
  isSubquery,
  type Output,
  type Source,
  type SourceRef,
  type Term,
} from "./ir.js";

interface BranchMapper {
  /** The new name of a source alias (applied to sources and to column terms). */
  readonly alias: (alias: string) => string;
  /** Applied to every term after its alias was renamed. */
  readonly term: (term: Term) => Term;
}

function mapSource(source: Source, mapper: BranchMapper): Source {
  switch (source.kind) {
    case "binding":
    case "facts":
    case "param":
    case "values":
    case "cte":
      return source;
    case "recref":
    case "reccall":
      return { ...source, args: source.args.map((arg) => arg && mapTerm(arg, mapper)) };
    default: {
      const _never: never = source;
      return _never;
    }
  }
}

/** One term through the mapper (alias renamed first, then `mapper.term`). */
function mapTerm(term: Term, mapper: BranchMapper): Term {
  const renamed = term.kind === "column" ? { ...term, alias: mapper.alias(term.alias) } : term;
  return mapper.term(renamed);
}

function mapOutput(output: Output, mapper: BranchMapper): Output {
  return output.kind === "any" ? output : mapTerm(output, mapper);
}

function mapCondition(condition: Condition, mapper: BranchMapper): Condition {
  switch (condition.kind) {
    case "compare":
      return {
        ...condition,
        left: mapTerm(condition.left, mapper),
        right: mapTerm(condition.right, mapper),
      };
    case "in":
      return {
        ...condition,
        term: mapTerm(condition.term, mapper),
        values: condition.values.map((value) => mapTerm(value, mapper)),
      };
    case "not_exists":
    case "exists":
      return { ...condition, branches: condition.branches.map((b) => mapBranch(b, mapper)) };
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

function mapSourceRef(ref: SourceRef, mapper: BranchMapper): SourceRef {
  return { alias: mapper.alias(ref.alias), source: mapSource(ref.source, mapper) };
}

/**
 * The branch with every alias and term mapped, nested `[not_]exists` branches included.
 *
 *   mapBranch(branch, { alias: (a) => `x_${a}`, term: (t) => t }) // renames every alias
 */
export function mapBranch(branch: Branch, mapper: BranchMapper): Branch {
  checkPlanClock();
  return {
    sources: branch.sources.map((ref) => mapSourceRef(ref, mapper)),
    conditions: branch.conditions.map((condition) => mapCondition(condition, mapper)),
    outputs: branch.outputs.map((output) => mapOutput(output, mapper)),
  };
}

/** Aliases of every source in the branch, nested ones included, in order of appearance. */
export function branchAliases(branch: Branch, out: string[] = []): string[] {
  for (const ref of branch.sources) out.push(ref.alias);
  for (const condition of branch.conditions) {
    if (isSubquery(condition)) {
      for (const inner of condition.branches) branchAliases(inner, out);
    }
  }
  return out;
}

/**
 * A copy of a template branch for one use: every alias it declares gets a fresh name, and
 * `input` terms are replaced by the caller's terms.
 */
export function instantiate(
  branch: Branch,
  freshAlias: () => string,
  inputs: readonly (Term | null)[],
): Branch {
  const renamed = new Map<string, string>();
  for (const alias of branchAliases(branch)) renamed.set(alias, freshAlias());
  return mapBranch(branch, {
    alias: (alias) => renamed.get(alias) ?? alias,
    term: (term) => (term.kind === "input" ? (inputs[term.index] ?? term) : term),
  });
}

/** Replaces every column of `alias` by `replace(column)` (the alias itself stays declared). */
export function replaceColumns(
  branch: Branch,
  alias: string,
  replace: (column: string) => Term,
): Branch {
  return mapBranch(branch, {
    alias: (name) => name,
    term: (term) => (term.kind === "column" && term.alias === alias ? replace(term.column) : term),
  });
}

/** Whether some column term of the branch passes `test` (outputs only when asked). */
export function mentions(
  branch: Branch,
  test: (term: ColumnTerm) => boolean,
  withOutputs: boolean,
): boolean {
  let found = false;
  const probe = (term: Term): Term => {
    if (term.kind === "column" && test(term)) found = true;
    return term;
  };
  mapBranch(
    { ...branch, outputs: withOutputs ? branch.outputs : [] },
    { alias: (name) => name, term: probe },
  );
  return found;
}

/** Whether some term of the branch reads a column of `alias` (outputs only when asked). */
export function mentionsAlias(branch: Branch, alias: string, withOutputs: boolean): boolean {
  return mentions(branch, (term) => term.alias === alias, withOutputs);
}
