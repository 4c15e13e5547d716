/**
 * Mutual recursion in which several instances call themselves (docs/local-authorization.md#recursion). PostgreSQL
 * allows one self reference per recursive CTE and no CTEs that read each other, so such a
 * component is computed in one CTE whose first column names the member a row belongs to.
 *
 * When the root of a recursive component is planned, its members are the instances its
 * branches read through `recref` sources, transitively, each with the branches last planned
 * for it (every such union of branches is the member's definition with some calls unfolded,
 * so together they have the same least fixpoint as the policy).
 *
 * For expansion the component becomes one recursive plan over merged arguments: position 0
 * holds the member (an Integer), then one position per distinct (adornment kind, position,
 * type) among the members' non-literal arguments. A row leaves other members' positions NULL.
 * Like a single recursive instance (expand.ts), it is expanded in one of two forms:
 * - demand: the member is a bound argument that the steps vary; a walk of demanded
 *   (member, values) rows, when every step passes the free arguments through;
 * - answers: the member is a free argument; an accumulation of (member, answers) rows.
 */
import { predicateKey } from "../check/program.js";
import type { Adornment, Component, InstancePlan, Member, Planner } from "./context.js";
import { at, PlanError } from "./errors.js";
import {
  argColumn,
  type Branch,
  type Condition,
  column,
  literal,
  type Output,
  type RecursiveCallSource,
  type SourceRef,
  type Term,
} from "./ir.js";
import { nonLinearSite } from "./nonlinear.js";
import { mapBranch } from "./rewrite.js";
import { exactType } from "./types.js";

type RecursivePlan = Extract<InstancePlan, { kind: "recursive" }>;

/** The members of the component whose root has these branches (the root first). */
export function componentMembers(planner: Planner, root: Member): Member[] {
  const members = [root];
  for (let i = 0; i < members.length; i++) {
    for (const branch of members[i]!.branches) {
      for (const { source } of branch.sources) {
        if (source.kind !== "recref" || members.some((m) => m.key === source.instance)) continue;
        const branches = planner.provisional.get(source.instance);
        const instance = planner.instances.get(source.instance);
        if (!branches || !instance) {
          throw new Error(`internal: no branches recorded for ${source.instance}`);
        }
        members.push({ key: source.instance, ...instance, branches });
      }
    }
  }
  return members;
}

/** Every member memoized as a member of one component; the plan of the root. */
export function mergeComponent(planner: Planner, members: readonly Member[]): InstancePlan {
  const names = [...new Set(members.map((member) => member.name))];
  for (const member of members) {
    for (const branch of member.branches) {
      if (branch.sources.filter((ref) => ref.source.kind === "recref").length > 1) {
        const keys = members.map((m) => predicateKey(m.name, m.adornment.length));
        const site = nonLinearSite(planner.program, keys, new Set(keys));
        throw new PlanError(
          {
            code: "P703",
            kind: "nonlinear-mutual",
            predicate: site?.clause.name ?? member.name,
            members: names,
          },
          at(site?.call.span, planner.program.sources),
        );
      }
    }
  }
  const component: Component = { key: `merged ${members[0]!.key}`, members };
  for (const member of members) {
    planner.memo.set(member.key, { kind: "member", key: member.key, component });
    planner.provisional.delete(member.key);
  }
  return planner.memo.get(members[0]!.key) as InstancePlan;
}

// ---------------------------------------------------------------- the merged plan

type Form = "demand" | "answers";

/** The layout of the merged arguments. */
interface Layout {
  readonly form: Form;
  readonly component: Component;
  readonly adornment: readonly Adornment[];
  /** Per member key, the merged position of each of its arguments (null for a literal). */
  readonly positions: ReadonlyMap<string, readonly (number | null)[]>;
}

export interface Merged extends Layout {
  readonly plan: RecursivePlan;
}

const MEMBER_TYPE = "Integer";

function memberValue(index: number): Term {
  return literal({ type: MEMBER_TYPE, id: `${index}` });
}

function typeOf(wanted: Adornment): string {
  switch (wanted.kind) {
    case "bound":
      return wanted.type;
    case "free":
      if (wanted.constraint.exact === null) throw new Error("internal: untyped recursive argument");
      return wanted.constraint.exact;
    case "literal":
      return wanted.value.type;
    default: {
      const _never: never = wanted;
      return _never;
    }
  }
}

function equals(left: Term, right: Term): Condition {
  return { kind: "compare", op: "=", left, right };
}

/** The column number of `argN`. */
function positionOf(name: string): number {
  return Number(name.slice("arg".length));
}

/**
 * The component as one recursive plan in `form`.
 *
 *   mergedPlan(component, "answers").plan.adornment // [free Integer, bound User, free Folder]
 */
export function mergedPlan(component: Component, form: Form): Merged {
  const adornment: Adornment[] = [
    form === "demand"
      ? { kind: "bound", type: MEMBER_TYPE }
      : { kind: "free", constraint: exactType(MEMBER_TYPE) },
  ];
  const slots = new Map<string, number>();
  const positions = new Map<string, (number | null)[]>();
  for (const member of component.members) {
    const own = member.adornment.map((wanted, position) => {
      if (wanted.kind === "literal") return null;
      const type = typeOf(wanted);
      const slot = `${wanted.kind} ${position} ${type}`;
      if (!slots.has(slot)) {
        slots.set(slot, adornment.length);
        adornment.push(
          wanted.kind === "bound" ? wanted : { kind: "free", constraint: exactType(type) },
        );
      }
      return slots.get(slot)!;
    });
    positions.set(member.key, own);
  }
  const layout: Layout = { form, component, adornment, positions };
  const exits: Branch[] = [];
  const steps: Branch[] = [];
  component.members.forEach((member, index) => {
    for (const branch of member.branches) {
      const converted = mergedBranch(layout, index, branch);
      if (converted.sources.some((ref) => ref.source.kind === "recref")) steps.push(converted);
      else exits.push(converted);
    }
  });
  const plan: RecursivePlan = {
    kind: "recursive",
    key: component.key,
    name: component.members[0]!.name,
    adornment,
    exits,
    steps,
  };
  return { ...layout, plan };
}

function memberIndex(component: Component, key: string): number {
  return component.members.findIndex((member) => member.key === key);
}

/**
 * Arguments in the merged positions for a call of member `key` with `args`: the member at
 * position 0 (bound in the demand form, free otherwise), NULL at other members' bound ones.
 */
function mergedArgs(layout: Layout, key: string, args: readonly (Term | null)[]): (Term | null)[] {
  const own = layout.positions.get(key)!;
  return layout.adornment.map((wanted, m) => {
    if (m === 0)
      return layout.form === "demand" ? memberValue(memberIndex(layout.component, key)) : null;
    const position = own.indexOf(m);
    if (position >= 0) return args[position] ?? null;
    return wanted.kind === "bound" ? { kind: "null", type: typeOf(wanted) } : null;
  });
}

/** A member's branch over the merged arguments, its recursive reference to the merged plan. */
function mergedBranch(layout: Layout, index: number, branch: Branch): Branch {
  const { adornment, component, form } = layout;
  const own = layout.positions.get(component.members[index]!.key)!;
  const ref = branch.sources.find((s) => s.source.kind === "recref") as
    | (SourceRef & { source: RecursiveCallSource })
    | undefined;
  const target = ref && layout.positions.get(ref.source.instance)!;
  const input = (m: number): Term => ({ kind: "input", index: m, type: typeOf(adornment[m]!) });
  const renamed = mapBranch(branch, {
    alias: (alias) => alias,
    term: (term) => {
      if (term.kind === "input") return input(own[term.index]!);
      if (ref && term.kind === "column" && term.alias === ref.alias) {
        return { ...term, column: argColumn(target![positionOf(term.column)]!) };
      }
      return term;
    },
  });
  const sources = renamed.sources.map((s): SourceRef => {
    if (s.source.kind !== "recref") return s;
    const args = mergedArgs(layout, s.source.instance, s.source.args);
    return { alias: s.alias, source: { kind: "recref", instance: component.key, args } };
  });
  const outputs = adornment.map((wanted, m): Output => {
    if (m === 0) return form === "demand" ? input(0) : memberValue(index);
    const position = own.indexOf(m);
    if (position >= 0) return renamed.outputs[position]!;
    if (wanted.kind === "bound") return input(m);
    // Demand form: a walk never stores free values, but a step passes them through.
    if (form === "demand" && ref) return column(ref.alias, argColumn(m), typeOf(wanted));
    return { kind: "null", type: typeOf(wanted) };
  });
  const which: Condition[] =
    form === "demand"
      ? [equals(input(0), memberValue(index))]
      : ref
        ? [
            equals(
              column(ref.alias, argColumn(0), MEMBER_TYPE),
              memberValue(memberIndex(component, ref.source.instance)),
            ),
          ]
        : [];
  return { sources, conditions: [...which, ...renamed.conditions], outputs };
}

/**
 * The caller's branch reading the merged plan instead of the member its `reccall` at `index`
 * names: merged arguments, the member's columns renamed to merged positions, and (answers
 * form) the rows of that member only.
 */
export function callMerged(merged: Merged, branch: Branch, index: number): Branch {
  const ref = branch.sources[index]!;
  const call = ref.source as RecursiveCallSource;
  const own = merged.positions.get(call.instance)!;
  const renamed = mapBranch(branch, {
    alias: (alias) => alias,
    term: (term) =>
      term.kind === "column" && term.alias === ref.alias
        ? { ...term, column: argColumn(own[positionOf(term.column)]!) }
        : term,
  });
  const args = mergedArgs(merged, call.instance, call.args);
  const instance = merged.plan.key;
  const sources = renamed.sources.map(
    (s, i): SourceRef =>
      i === index ? { alias: ref.alias, source: { kind: "reccall", instance, args } } : s,
  );
  const which =
    merged.form === "answers"
      ? [
          equals(
            column(ref.alias, argColumn(0), MEMBER_TYPE),
            memberValue(memberIndex(merged.component, call.instance)),
          ),
        ]
      : [];
  return { ...renamed, sources, conditions: [...renamed.conditions, ...which] };
}
