/**
 * Expanding recursive calls into `WITH RECURSIVE` CTEs once the question is planned, seeded
 * from the bound side (magic sets; planner-notes §4):
 *
 * - walk (demand): the recursion changes bound arguments and passes the free ones through
 *   (`role if role on "parent"` asked for a given folder). The CTE holds the demanded
 *   argument values, seeded with the question's values (or with the rows of the rest of the
 *   branch when those are selective); exits are joined on it.
 * - accumulate: the bound arguments stay the same and the recursion computes the free ones
 *   (the same rule asked for all folders of an actor). The CTE holds the answers, seeded by
 *   the exits.
 * - otherwise the instance is planned with every argument free and joined afterwards.
 *
 * Bound arguments that come from another source's column are seeded from that source when
 * the branch constrains it by a question value; otherwise they are treated as free.
 */
import { tick } from "../source/diagnostic.js";
import { type Adornment, freshAlias, type InstancePlan, type Planner } from "./context.js";
import { PlanError } from "./errors.js";
import { planInstance } from "./instance.js";
import {
  argColumn,
  type Branch,
  type Condition,
  type CteColumn,
  column,
  type Output,
  type RecursiveCallSource,
  type RecursiveCte,
  type SourceRef,
  type Term,
  termType,
} from "./ir.js";
import { canonicalAliases, mergeBranches } from "./merge.js";
import {
  branchAliases,
  instantiate,
  mapBranch,
  mentions,
  mentionsAlias,
  replaceColumns,
} from "./rewrite.js";
import { exactType } from "./types.js";

export interface Expansion {
  readonly planner: Planner;
  readonly ctes: RecursiveCte[];
  readonly cteIndex: Map<string, number>;
  /** Walk CTEs: seeded by question values, so they hold few rows. */
  readonly selectiveCtes: Set<number>;
  /** Recursive instances whose CTE is being built (a guard against endless expansion). */
  readonly building: string[];
  /** Walk CTEs by index: their varying positions and step relation (see `walkSignature`). */
  readonly walks: Map<number, { readonly varying: readonly number[]; readonly signature: string }>;
}

const MAX_NESTED_CTES = 64;

type RecursivePlan = Extract<InstancePlan, { kind: "recursive" }>;

/** Every branch with its `reccall` sources (also inside `not_exists`) replaced by CTE reads. */
export function expandBranches(expansion: Expansion, branches: readonly Branch[]): Branch[] {
  return branches.flatMap((branch) => expandBranch(expansion, branch));
}

function expandBranch(expansion: Expansion, branch: Branch): Branch[] {
  const conditions = branch.conditions.map((condition) =>
    condition.kind === "not_exists"
      ? { ...condition, branches: expandBranches(expansion, condition.branches) }
      : condition,
  );
  const current: Branch = { ...branch, conditions };
  const index = current.sources.findIndex((ref) => ref.source.kind === "reccall");
  if (index < 0) return [current];
  return expandCall(expansion, current, index).flatMap((next) => expandBranch(expansion, next));
}

interface Prefix {
  readonly sources: readonly SourceRef[];
  readonly conditions: readonly Condition[];
  readonly aliases: ReadonlySet<string>;
  /** Some source is constrained by a question value: seeding from it is cheap. */
  readonly selective: boolean;
}

/** The rest of the branch that a CTE can copy as its seed (no recursion, no correlation). */
function prefixOf(expansion: Expansion, branch: Branch, skip: number): Prefix {
  const sources = branch.sources.filter(
    (ref, i) =>
      i !== skip &&
      (ref.source.kind === "binding" ||
        ref.source.kind === "facts" ||
        ref.source.kind === "param" ||
        ref.source.kind === "cte"),
  );
  const aliases = new Set(sources.map((ref) => ref.alias));
  const inside = (term: Term) =>
    term.kind === "column"
      ? aliases.has(term.alias)
      : term.kind !== "outer" && term.kind !== "input";
  const conditions = branch.conditions.filter((condition) => {
    switch (condition.kind) {
      case "compare":
        return inside(condition.left) && inside(condition.right);
      case "in":
        return inside(condition.term) && condition.values.every(inside);
      case "not_exists":
        return false;
      default: {
        const _never: never = condition;
        return _never;
      }
    }
  });
  const isQuestionValue = (term: Term) => term.kind === "param";
  const hasParamSource = sources.some(
    (ref) =>
      ref.source.kind === "param" ||
      (ref.source.kind === "cte" && expansion.selectiveCtes.has(ref.source.cte)),
  );
  const selective =
    hasParamSource ||
    conditions.some((condition) =>
      condition.kind === "compare"
        ? condition.op === "=" &&
          (isQuestionValue(condition.left) || isQuestionValue(condition.right))
        : condition.kind === "in" && condition.values.some(isQuestionValue),
    );
  return { sources, conditions, aliases, selective };
}

function recursivePlan(expansion: Expansion, key: string): RecursivePlan {
  const plan = expansion.planner.memo.get(key);
  if (!plan || plan instanceof PlanError || plan.kind !== "recursive") {
    throw new Error(`internal: instance ${key} is not a planned recursive instance`);
  }
  return plan;
}

function positionsOf(plan: RecursivePlan, kind: Adornment["kind"]): number[] {
  return plan.adornment.flatMap((wanted, i) => (wanted.kind === kind ? [i] : []));
}

function recref(step: Branch, key: string): SourceRef & { source: RecursiveCallSource } {
  const ref = step.sources.find((s) => s.source.kind === "recref" && s.source.instance === key);
  return ref as SourceRef & { source: RecursiveCallSource };
}

function expandCall(expansion: Expansion, branch: Branch, index: number): Branch[] {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const plan = recursivePlan(expansion, call.instance);
  if (expansion.building.length > MAX_NESTED_CTES || expansion.building.includes(plan.key)) {
    throw new PlanError(
      "P703",
      `cannot compile the recursion of ${tick(plan.name)}: its recursive calls use arguments in ways one recursive CTE cannot follow`,
    );
  }
  const bound = positionsOf(plan, "bound");
  const reused = reuseWalk(expansion, branch, index, plan, bound);
  if (reused) return reused;
  const prefix = prefixOf(expansion, branch, index);
  const dynamic = bound.filter(
    (i) => call.args[i]!.kind === "column" || call.args[i]!.kind === "outer",
  );
  const seedable = dynamic.every((i) => {
    const arg = call.args[i]!;
    return arg.kind === "column" && prefix.aliases.has(arg.alias);
  });
  if (dynamic.length > 0 && !(prefix.selective && seedable)) {
    return replan(expansion, branch, index, plan, dynamic);
  }
  const varying = varyingPositions(plan, bound);
  const passThrough = plan.steps.every((step) => passesThrough(plan, step));
  if (varying.length === 0) {
    return passThrough
      ? inlineExits(expansion, branch, index, plan, [], null)
      : [accumulate(expansion, branch, index, plan, dynamic, prefix)];
  }
  if (passThrough) return walk(expansion, branch, index, plan, dynamic, varying, prefix);
  return replan(expansion, branch, index, plan, bound);
}

/** Bound positions whose value some step changes (the others are invariant). */
function varyingPositions(plan: RecursivePlan, bound: readonly number[]): number[] {
  return bound.filter((i) =>
    plan.steps.some((step) => {
      const arg = recref(step, plan.key).source.args[i];
      return !(arg?.kind === "input" && arg.index === i);
    }),
  );
}

const SIGNATURE_SELF = "%self";

/**
 * The step relation of a walk over `plan`: what each step reads and which values it leads
 * to, with the recursive reference itself left out. Two instances with the same signature
 * (`role if role on "parent"` asked for "reader" and for "writer") walk the same way.
 */
function walkSignature(
  plan: RecursivePlan,
  stepInputs: readonly (Term | null)[],
  varying: readonly number[],
): string {
  let n = 0;
  const steps = plan.steps.map((step) => {
    const copy = instantiate(step, () => `%sig${n++}`, stepInputs);
    const inner = recref(copy, plan.key);
    const relation: Branch = {
      sources: copy.sources.filter((s) => s.alias !== inner.alias),
      conditions: copy.conditions,
      outputs: varying.map((i) => inner.source.args[i]!),
    };
    return JSON.stringify(canonicalAliases(relation, "w"));
  });
  return JSON.stringify(steps.sort());
}

/**
 * A recursive call whose varying arguments are the values of a walk with the same step
 * relation needs no walk of its own: the walk's rows are closed under its steps, so the
 * call holds on some row iff one of its exits holds on some row. (Only when nothing else
 * in the branch reads those rows' values.)
 */
function reuseWalk(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  bound: readonly number[],
): Branch[] | null {
  const call = branch.sources[index]!.source as RecursiveCallSource;
  const varying = varyingPositions(plan, bound);
  const first = varying.length > 0 ? call.args[varying[0]!] : undefined;
  if (first?.kind !== "column") return null;
  const holder = branch.sources.find((ref) => ref.alias === first.alias);
  const walkInfo =
    holder?.source.kind === "cte" ? expansion.walks.get(holder.source.cte) : undefined;
  if (!walkInfo || walkInfo.varying.join() !== varying.join()) return null;
  const fromWalk = varying.every((i) => {
    const arg = call.args[i];
    return arg?.kind === "column" && arg.alias === first.alias && arg.column === `s${i}`;
  });
  const invariantStatic = bound.every(
    (i) => varying.includes(i) || ["literal", "param", "time"].includes(call.args[i]!.kind),
  );
  if (!fromWalk || !invariantStatic) return null;
  if (!plan.steps.every((step) => passesThrough(plan, step))) return null;
  const rest = withoutSource(branch, index);
  if (mentions(rest, (t) => t.alias === first.alias && t.column.startsWith("s"), true)) return null;
  const stepInputs = call.args.map((arg, i) =>
    varying.includes(i) ? column(SIGNATURE_SELF, `s${i}`, termType(arg!)) : arg,
  );
  if (walkSignature(plan, stepInputs, varying) !== walkInfo.signature) return null;
  return inlineExits(expansion, branch, index, plan, [], { inputs: call.args, joins: [] });
}

/** Each free argument of the step is the recursive call's own, and nothing else reads it. */
function passesThrough(plan: RecursivePlan, step: Branch): boolean {
  const self = recref(step, plan.key);
  const others: Branch = { ...step, sources: step.sources.filter((s) => s !== self) };
  if (mentionsAlias(others, self.alias, false)) return false;
  return positionsOf(plan, "free").every((i) => {
    const output = step.outputs[i]!;
    return (
      output.kind === "column" && output.alias === self.alias && output.column === argColumn(i)
    );
  });
}

// ---------------------------------------------------------------- replanning

/** Plans the instance again with `positions` free and joins them to the caller's terms. */
function replan(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  positions: readonly number[],
): Branch[] {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const adornment: Adornment[] = plan.adornment.map((wanted, i) =>
    positions.includes(i) && wanted.kind === "bound"
      ? { kind: "free", constraint: exactType(wanted.type) }
      : wanted,
  );
  const args = call.args.map((arg, i) => (positions.includes(i) ? null : arg));
  const joins = positions.map(
    (i): Condition => ({
      kind: "compare",
      op: "=",
      left: column(ref.alias, argColumn(i), termType(call.args[i]!)),
      right: call.args[i]!,
    }),
  );
  const replanned = planInstance(expansion.planner, plan.name, adornment);
  const rest = withoutSource(branch, index);
  switch (replanned.kind) {
    case "recursive":
      return [
        {
          ...rest,
          sources: [
            ...rest.sources,
            { alias: ref.alias, source: { kind: "reccall", instance: replanned.key, args } },
          ],
          conditions: [...rest.conditions, ...joins],
        },
      ];
    case "flat":
      return replanned.branches.flatMap((template) => {
        const copy = instantiate(template, () => freshAlias(expansion.planner), args);
        const joined: Branch = {
          sources: [...rest.sources, ...copy.sources],
          conditions: [...rest.conditions, ...copy.conditions, ...joins],
          outputs: rest.outputs,
        };
        return [substituteOutputs(joined, ref.alias, copy.outputs, plan.name)];
      });
    case "self":
      throw new Error("internal: replanning reached an instance on the stack");
    default: {
      const _never: never = replanned;
      return _never;
    }
  }
}

function withoutSource(branch: Branch, index: number): Branch {
  return { ...branch, sources: branch.sources.filter((_, i) => i !== index) };
}

/**
 * Replaces the columns of a removed source by the outputs that now supply them. An output
 * that holds for every value ("any") may only reach the branch's outputs.
 */
function substituteOutputs(
  branch: Branch,
  alias: string,
  outputs: readonly Output[],
  name: string,
): Branch {
  const positionOf = (columnName: string) => Number(columnName.slice("arg".length));
  const readsAny = mentions(
    branch,
    (term) => term.alias === alias && outputs[positionOf(term.column)]?.kind === "any",
    false,
  );
  if (readsAny) {
    throw new PlanError(
      "P703",
      `cannot compile a call of ${tick(name)} whose answer holds for every value of an argument that other conditions use`,
    );
  }
  const replaced = mapBranch(
    { ...branch, outputs: [] },
    {
      alias: (a) => a,
      term: (term) =>
        term.kind === "column" && term.alias === alias
          ? (outputs[positionOf(term.column)] as Term)
          : term,
    },
  );
  const finalOutputs = branch.outputs.map((output) =>
    output.kind === "column" && output.alias === alias
      ? outputs[positionOf(output.column)]!
      : output,
  );
  return { ...replaced, outputs: finalOutputs };
}

// ---------------------------------------------------------------- CTEs

function register(expansion: Expansion, cte: RecursiveCte): number {
  const canonical = canonicalCte({
    ...cte,
    seeds: mergeBranches(cte.seeds),
    steps: mergeBranches(cte.steps),
  });
  const key = JSON.stringify(canonical);
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
  };
}

function onlyTerms(outputs: readonly Output[], name: string): Term[] {
  return outputs.map((output) => {
    if (output.kind === "any") {
      throw new PlanError(
        "P703",
        `cannot compile the recursion of ${tick(name)} through a rule that holds for every value of an argument`,
      );
    }
    return output;
  });
}

function freeColumns(plan: RecursivePlan): CteColumn[] {
  return positionsOf(plan, "free").map((i) => {
    const wanted = plan.adornment[i] as Extract<Adornment, { kind: "free" }>;
    return { name: argColumn(i), type: wanted.constraint.exact! };
  });
}

function keyColumns(call: RecursiveCallSource, dynamic: readonly number[]): CteColumn[] {
  return dynamic.map((i) => ({ name: `k${i}`, type: termType(call.args[i]!) }));
}

/** The accumulate form: the CTE holds the free arguments (plus the dynamic bound ones). */
function accumulate(
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
  const seeds = expandBranches(
    expansion,
    plan.exits.map((exit) => {
      const copy = instantiate(exit, () => freshAlias(planner), call.args);
      return {
        sources: [...(dynamic.length > 0 ? prefix.sources : []), ...copy.sources],
        conditions: [...(dynamic.length > 0 ? prefix.conditions : []), ...copy.conditions],
        outputs: [
          ...dynamic.map((i) => call.args[i]!),
          ...onlyTerms(
            free.map((i) => copy.outputs[i]!),
            plan.name,
          ),
        ],
      };
    }),
  );
  const stepInputs = call.args.map((arg, i) => (dynamic.includes(i) ? keyOf(i) : arg));
  const steps = expandBranches(
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
            free.map((i) => reading.outputs[i]!),
            plan.name,
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
  });
  const rest = withoutSource(branch, index);
  return {
    ...rest,
    sources: [...rest.sources, { alias: ref.alias, source: { kind: "cte", cte } }],
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
function walk(
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
  const steps = expandBranches(
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
  });
  expansion.selectiveCtes.add(cte);
  const signatureInputs = call.args.map((arg, i) =>
    varying.includes(i)
      ? column(SIGNATURE_SELF, `s${i}`, typeOf(i))
      : dynamic.includes(i)
        ? column(SIGNATURE_SELF, `k${i}`, typeOf(i))
        : arg,
  );
  expansion.walks.set(cte, { varying, signature: walkSignature(plan, signatureInputs, varying) });
  const demand = freshAlias(planner);
  const inputs = call.args.map((arg, i) =>
    varying.includes(i) ? column(demand, `s${i}`, typeOf(i)) : arg,
  );
  const joins = dynamic.map(
    (i): Condition => ({
      kind: "compare",
      op: "=",
      left: column(demand, `k${i}`, typeOf(i)),
      right: call.args[i]!,
    }),
  );
  return inlineExits(
    expansion,
    branch,
    index,
    plan,
    [{ alias: demand, source: { kind: "cte", cte } }],
    {
      inputs,
      joins,
    },
  );
}

/** The caller's branch once per exit, the exit's outputs replacing the call's columns. */
function inlineExits(
  expansion: Expansion,
  branch: Branch,
  index: number,
  plan: RecursivePlan,
  extraSources: readonly SourceRef[],
  demand: { inputs: readonly (Term | null)[]; joins: readonly Condition[] } | null,
): Branch[] {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const rest = withoutSource(branch, index);
  return plan.exits.flatMap((exit) => {
    const copy = instantiate(
      exit,
      () => freshAlias(expansion.planner),
      demand?.inputs ?? call.args,
    );
    const joined: Branch = {
      sources: [...rest.sources, ...extraSources, ...copy.sources],
      conditions: [...rest.conditions, ...(demand?.joins ?? []), ...copy.conditions],
      outputs: rest.outputs,
    };
    return [substituteOutputs(joined, ref.alias, copy.outputs, plan.name)];
  });
}
