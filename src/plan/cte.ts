/**
 * Building the recursive CTEs of expand.ts: the accumulate form (answers for the free
 * arguments) and the walk form (demanded values of the varying bound arguments), registered
 * once per distinct definition.
 */
import { freshAlias, ruleOrigin, universalRuleOrigin } from "./context.js";
import { at, PlanError } from "./errors.js";
import type { Prefix } from "./expand.js";
import {
  type Expansion,
  freeColumns,
  positionsOf,
  type RecursivePlan,
  recref,
  withoutSource,
} from "./expansion.js";
import {
  type Branch,
  type ColumnTerm,
  type Condition,
  type CteColumn,
  column,
  type Output,
  type RecursiveCallSource,
  type RecursiveCte,
  type Term,
  termType,
} from "./ir.js";
import { simplifyBranches } from "./merge.js";
import { flattenExits, recordWalk } from "./reuse.js";
import { branchAliases, instantiate, mapBranch, replaceColumns } from "./rewrite.js";

function register(expansion: Expansion, cte: RecursiveCte): number {
  const canonical = canonicalCte({
    ...cte,
    seeds: simplifyBranches(cte.seeds, "m"),
    steps: simplifyBranches(cte.steps, "m"),
  });
  // The same rows from another recursion are the same CTE: the origin is not part of the key.
  const { origin: _origin, ...definition } = canonical;
  const key = JSON.stringify(definition);
  const known = expansion.cteIndex.get(key);
  if (known !== undefined) return known;
  expansion.ctes.push(canonical);
  expansion.cteIndex.set(key, expansion.ctes.length - 1);
  return expansion.ctes.length - 1;
}

/** Renames the aliases inside a CTE to `q0, q1, …` (and `rec` for the self reference). */
function canonicalCte(cte: RecursiveCte): RecursiveCte {
  const names = new Map<string, string>([[cte.self, "rec"]]);
  const all = [...cte.seeds, ...cte.steps].flatMap((branch) => branchAliases(branch));
  for (const alias of all) if (!names.has(alias)) names.set(alias, `q${names.size - 1}`);
  const mapper = { alias: (a: string) => names.get(a) ?? a, term: (t: Term) => t };
  return {
    columns: cte.columns,
    seeds: cte.seeds.map((branch) => mapBranch(branch, mapper)),
    steps: cte.steps.map((branch) => mapBranch(branch, mapper)),
    self: "rec",
    origin: cte.origin,
  };
}

function onlyTerms(expansion: Expansion, outputs: readonly Output[], plan: RecursivePlan): Term[] {
  return outputs.map((output) => {
    if (output.kind === "any") {
      const { planner } = expansion;
      const origin = universalRuleOrigin(planner, plan.name, plan.adornment.length);
      throw new PlanError(
        { code: "P703", kind: "recursion-through-any", predicate: plan.name },
        at(origin.span, planner.program.sources),
      );
    }
    return output;
  });
}

function keyColumns(call: RecursiveCallSource, dynamic: readonly number[]): CteColumn[] {
  return dynamic.map((i) => ({ name: `k${i}`, type: termType(call.args[i]!) }));
}

/**
 * The caller's branch without the sources its CTE's seed copied (the prefix), when nothing but
 * the call's dynamic arguments reads them: every key of the CTE comes from a prefix row, so
 * joining the prefix again (`document.id = $resource and walk.k = document.folder`) reads the
 * seed twice. Those arguments become the key columns `keys` gives (by `alias.column`). Null
 * when another condition, output or call reads a prefix column.
 */
function absorbPrefix(
  branch: Branch,
  prefix: Prefix,
  keys: ReadonlyMap<string, ColumnTerm>,
): Branch | null {
  const kept: Branch = {
    sources: branch.sources.filter((ref) => !prefix.aliases.has(ref.alias)),
    conditions: branch.conditions.filter((condition) => !prefix.conditions.includes(condition)),
    outputs: branch.outputs,
  };
  let readsPrefix = false;
  const absorbed = mapBranch(kept, {
    alias: (alias) => alias,
    term: (term) => {
      if (term.kind !== "column" || !prefix.aliases.has(term.alias)) return term;
      const key = keys.get(`${term.alias}.${term.column}`);
      if (!key) readsPrefix = true;
      return key ?? term;
    },
  });
  return readsPrefix ? null : absorbed;
}

/** The key column of each dynamic argument, by the argument's `alias.column`. */
function keyTerms(
  args: readonly (Term | null)[],
  dynamic: readonly number[],
  key: (i: number) => ColumnTerm,
): Map<string, ColumnTerm> {
  const keys = new Map<string, ColumnTerm>();
  for (const i of dynamic) {
    const arg = args[i]!;
    const name = arg.kind === "column" ? `${arg.alias}.${arg.column}` : null;
    if (name && !keys.has(name)) keys.set(name, key(i));
  }
  return keys;
}

/** The accumulate form: the CTE holds the free arguments (plus the dynamic bound ones). */
export function accumulate(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  dynamic: readonly number[],
  prefix: Prefix,
): Branch {
  const { planner } = expansion;
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const free = positionsOf(plan, "free");
  const self = freshAlias(planner);
  const keyOf = (i: number) => column(self, `k${i}`, termType(call.args[i]!));
  expansion.building.push(plan.key);
  const exits =
    dynamic.length === 0
      ? flattenExits(expansion, plan, call.args, new Set([plan.key]))
      : plan.exits.map((exit) => instantiate(exit, () => freshAlias(planner), call.args));
  const seeds = expansion.expandBranches(
    expansion,
    exits.map((copy) => {
      return {
        sources: [...(dynamic.length > 0 ? prefix.sources : []), ...copy.sources],
        conditions: [...(dynamic.length > 0 ? prefix.conditions : []), ...copy.conditions],
        outputs: [
          ...dynamic.map((i) => call.args[i]!),
          ...onlyTerms(
            expansion,
            free.map((i) => copy.outputs[i]!),
            plan,
          ),
        ],
      };
    }),
  );
  const stepInputs = call.args.map((arg, i) => (dynamic.includes(i) ? keyOf(i) : arg));
  const steps = expansion.expandBranches(
    expansion,
    plan.steps.map((step) => {
      const copy = instantiate(step, () => freshAlias(planner), stepInputs);
      const inner = recref(copy, plan.key);
      const reading = replaceColumns(copy, inner.alias, (name) =>
        column(self, name, freeColumns(plan).find((c) => c.name === name)!.type),
      );
      return {
        sources: reading.sources.filter((s) => s.alias !== inner.alias),
        conditions: reading.conditions,
        outputs: [
          ...dynamic.map(keyOf),
          ...onlyTerms(
            expansion,
            free.map((i) => reading.outputs[i]!),
            plan,
          ),
        ],
      };
    }),
  );
  expansion.building.pop();
  const cte = register(expansion, {
    columns: [...keyColumns(call, dynamic), ...freeColumns(plan)],
    seeds,
    steps,
    self,
    origin: ruleOrigin(planner, plan.name, plan.adornment.length),
  });
  const rest = withoutSource(branch, index);
  const read = { alias: ref.alias, source: { kind: "cte", cte } } as const;
  const keys = keyTerms(call.args, dynamic, (i) =>
    column(ref.alias, `k${i}`, termType(call.args[i]!)),
  );
  const absorbed = dynamic.length > 0 ? absorbPrefix(rest, prefix, keys) : null;
  if (absorbed) return { ...absorbed, sources: [...absorbed.sources, read] };
  return {
    ...rest,
    sources: [...rest.sources, read],
    conditions: [
      ...rest.conditions,
      ...dynamic.map(
        (i): Condition => ({
          kind: "compare",
          op: "=",
          left: column(ref.alias, `k${i}`, termType(call.args[i]!)),
          right: call.args[i]!,
        }),
      ),
    ],
  };
}

/** The walk form: the CTE holds the demanded values of the varying bound arguments. */
export function walk(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  dynamic: readonly number[],
  varying: readonly number[],
  prefix: Prefix,
): Branch[] {
  const { planner } = expansion;
  const call = branch.sources[index]!.source as RecursiveCallSource;
  const self = freshAlias(planner);
  const typeOf = (i: number) => termType(call.args[i]!);
  const stepInputs = call.args.map((arg, i) =>
    varying.includes(i)
      ? column(self, `s${i}`, typeOf(i))
      : dynamic.includes(i)
        ? column(self, `k${i}`, typeOf(i))
        : arg,
  );
  expansion.building.push(plan.key);
  const steps = expansion.expandBranches(
    expansion,
    plan.steps.map((step) => {
      const copy = instantiate(step, () => freshAlias(planner), stepInputs);
      const inner = recref(copy, plan.key);
      return {
        sources: copy.sources.filter((s) => s.alias !== inner.alias),
        conditions: copy.conditions,
        outputs: [
          ...dynamic.map((i) => column(self, `k${i}`, typeOf(i))),
          ...varying.map((i) => inner.source.args[i]!),
        ],
      };
    }),
  );
  expansion.building.pop();
  const seed: Branch = {
    sources: dynamic.length > 0 ? prefix.sources : [],
    conditions: dynamic.length > 0 ? prefix.conditions : [],
    outputs: [...dynamic.map((i) => call.args[i]!), ...varying.map((i) => call.args[i]!)],
  };
  const cte = register(expansion, {
    columns: [
      ...keyColumns(call, dynamic),
      ...varying.map((i) => ({ name: `s${i}`, type: typeOf(i) })),
    ],
    seeds: [seed],
    steps,
    self,
    origin: ruleOrigin(planner, plan.name, plan.adornment.length),
  });
  expansion.selectiveCtes.add(cte);
  recordWalk(expansion, cte, plan, call.args, dynamic, varying);
  const demand = freshAlias(planner);
  const keys = keyTerms(call.args, dynamic, (i) => column(demand, `k${i}`, typeOf(i)));
  const absorbed = dynamic.length > 0 ? absorbPrefix(branch, prefix, keys) : null;
  const caller = absorbed ?? branch;
  const callIndex = absorbed
    ? caller.sources.findIndex((ref) => ref.alias === branch.sources[index]!.alias)
    : index;
  const args = (caller.sources[callIndex]!.source as RecursiveCallSource).args;
  const inputs = args.map((arg, i) =>
    varying.includes(i) ? column(demand, `s${i}`, typeOf(i)) : arg,
  );
  const joins = absorbed
    ? []
    : dynamic.map(
        (i): Condition => ({
          kind: "compare",
          op: "=",
          left: column(demand, `k${i}`, typeOf(i)),
          right: call.args[i]!,
        }),
      );
  return expansion.inlineExits(
    expansion,
    caller,
    callIndex,
    plan,
    [{ alias: demand, source: { kind: "cte", cte } }],
    {
      inputs,
      joins,
    },
  );
}
