/**
 * The plan IR: what the planner produces and the SQL emitter prints. Plain readonly data.
 *
 * A plan is a UNION of branches; a branch is a conjunctive query: sources with aliases
 * (binding CTEs, central/context fact lists, recursive CTEs), conditions, and one output per
 * question variable. Every term has one concrete Polar type, so a column holds bare ids of a
 * single type. Runtime values (the question's ids, central and context facts, builtins) are
 * not in the plan: params and fact sources are resolved when the plan is printed, so one plan
 * serves every question of the same shape.
 */
import { BUILTINS, type BuiltinName } from "../builtins/registry.js";
import type { Value } from "../core/value.js";
import type { CompareOp } from "../polar/ast.js";
import type { Span } from "../source/source.js";

/** A column of a source in scope: `alias.column`. */
export interface ColumnTerm {
  readonly kind: "column";
  readonly alias: string;
  readonly column: string;
  readonly type: string;
}
/** A value fixed by the policy (`"read"`, `User{"admin"}`) or by the question shape. */
export interface LiteralTerm {
  readonly kind: "literal";
  readonly value: Value;
}
/** A question value supplied when the plan is printed (actor id, resource id, id lists). */
export interface ParamTerm {
  readonly kind: "param";
  readonly name: string;
  readonly type: string;
}
/** A builtin (src/builtins/registry.ts), valued from the request when the plan is printed. */
export interface BuiltinTerm {
  readonly kind: "builtin";
  readonly name: BuiltinName;
}
/** Planner-internal: argument `index` of a predicate instance, bound by the caller. */
interface InputTerm {
  readonly kind: "input";
  readonly index: number;
  readonly type: string;
}

/**
 * The caller's column in filter mode and `list_query` (`tickets.id`), when a variable can only
 * be bound by the caller's rows (a wildcard under `not` or a comparison, docs/policy-language.md#wildcards).
 */
interface OuterTerm {
  readonly kind: "outer";
  readonly type: string;
}

/**
 * No value (SQL NULL of `type`): a column of a merged recursive CTE that belongs to another
 * member than the row's (see component.ts). Never equal to anything.
 */
interface NullTerm {
  readonly kind: "null";
  readonly type: string;
}

export type Term =
  | ColumnTerm
  | LiteralTerm
  | ParamTerm
  | BuiltinTerm
  | InputTerm
  | OuterTerm
  | NullTerm;

/** An output that holds for every value of its type (a universal rule, docs/policy-language.md#wildcards). */
export interface AnyOutput {
  readonly kind: "any";
  /** Identifies the unbound variable inside one branch (two outputs may share it). */
  readonly id: string;
  readonly constraint: TypeConstraint;
}

export type Output = Term | AnyOutput;

/**
 * What a value must be: exactly `exact` when set (question variables: no subtypes), and a
 * subtype of every type in `requires`.
 */
export interface TypeConstraint {
  readonly exact: string | null;
  readonly requires: readonly string[];
}

/** A data binding's query, read through its CTE; columns `argN` for the `_` slots. */
export interface BindingSource {
  readonly kind: "binding";
  /** Index into `DataBindings.bindings`. */
  readonly binding: number;
  /**
   * Central and context facts with the binding's signature (these argument types, the
   * binding's constants), read together with the binding: one source instead of two branches.
   */
  readonly facts?: { readonly predicate: string; readonly types: readonly string[] };
  /** Those facts once resolved: values of the `_` slots, appended to the binding's rows. */
  readonly rows?: readonly (readonly Value[])[];
}
/**
 * Central and context facts of any of `predicates` whose arguments have exactly these types
 * (null: any type, for an argument nothing reads); inlined as VALUES (or folded) when
 * printed. Columns `argN`. Several predicates: a chain of rules `c0(x) if c1(x); c1(x) if …`
 * reads the stored facts of every link in one source, not one branch per link
 * (src/plan/merge.ts).
 */
export interface FactsSource {
  readonly kind: "facts";
  readonly predicates: readonly string[];
  readonly types: readonly (string | null)[];
}
/**
 * The ids of a question variable given as a list of several (`ids: ["1", "2"]`), one row
 * each; column `arg0`. Supplied when printing.
 */
interface ParamSource {
  readonly kind: "param";
  readonly name: string;
  readonly type: string;
}
/** Rows known when printing (resolved facts and params): `(VALUES …) AS alias(columns)`. */
export interface ValuesSource {
  readonly kind: "values";
  readonly columns: readonly CteColumn[];
  readonly rows: readonly (readonly Value[])[];
}
/** A recursive CTE of the plan (index into `Plan.ctes`). */
interface CteSource {
  readonly kind: "cte";
  readonly cte: number;
}
/**
 * Planner-internal: a call of a recursive instance. `args[i]` is the term passed at a bound
 * position and null at a free one; free positions are the columns `argN` of the source.
 * `recref` is the self reference inside the instance's own clauses; `reccall` a finished
 * recursive instance, expanded into a CTE once the whole question is planned.
 */
export interface RecursiveCallSource {
  readonly kind: "recref" | "reccall";
  readonly instance: string;
  readonly args: readonly (Term | null)[];
}

export type Source =
  | BindingSource
  | FactsSource
  | ParamSource
  | ValuesSource
  | CteSource
  | RecursiveCallSource;

export interface SourceRef {
  readonly alias: string;
  readonly source: Source;
}

export interface CompareCondition {
  readonly kind: "compare";
  readonly op: CompareOp;
  readonly left: Term;
  readonly right: Term;
}
/** `term IN (values)`; the values are literals or params. */
export interface InCondition {
  readonly kind: "in";
  readonly term: Term;
  readonly values: readonly Term[];
}
/**
 * `NOT EXISTS (branch UNION ALL …)` (a `not`) or `EXISTS (branch UNION ALL …)` (an `or` kept
 * whole because every variable it shares with the rest of the rule is bound before it:
 * docs/limits.md, "branches"), correlated through the outer aliases it mentions.
 */
interface SubqueryCondition {
  readonly kind: "not_exists" | "exists";
  readonly branches: readonly Branch[];
}

export type Condition = CompareCondition | InCondition | SubqueryCondition;

/** Whether a condition holds a nested union of branches (`EXISTS` or `NOT EXISTS`). */
export function isSubquery(condition: Condition): condition is SubqueryCondition {
  return condition.kind === "exists" || condition.kind === "not_exists";
}

export interface Branch {
  readonly sources: readonly SourceRef[];
  readonly conditions: readonly Condition[];
  /** One per output position; empty inside `not_exists`. */
  readonly outputs: readonly Output[];
}

export interface CteColumn {
  readonly name: string;
  readonly type: string;
}

/**
 * `name(columns) AS (seed UNION … UNION step)`: seeds do not mention the CTE; each step
 * reads it exactly once, under the alias `self`. Several steps are printed as one recursive
 * term over a LATERAL union, because PostgreSQL allows a single self reference.
 */
export interface RecursiveCte {
  readonly columns: readonly CteColumn[];
  readonly seeds: readonly Branch[];
  readonly steps: readonly Branch[];
  readonly self: string;
  /** The recursion it computes, for refusals of later stages (the dialect's limits). */
  readonly origin: RuleOrigin;
}

/**
 * The predicate a part of the plan comes from and the span of its rule (its first rule that
 * calls its own recursion); null when no rule of the policy wrote it.
 */
export interface RuleOrigin {
  readonly predicate: string;
  readonly span: Span | null;
}

/** A question variable that the plan outputs. */
export interface PlanOutput {
  readonly variable: string;
  readonly type: string;
}

export interface Plan {
  /** In dependency order: a CTE reads only earlier ones (and itself). */
  readonly ctes: readonly RecursiveCte[];
  readonly branches: readonly Branch[];
  readonly outputs: readonly PlanOutput[];
  /**
   * Where the policy writes the constants that branches output or compare (plan/constants.ts),
   * beside the terms and never in a key; absent: none.
   */
  readonly constants?: readonly PolicyConstant[];
}

/** A constant of the policy and the span of its text, for a refusal of the value. */
export interface PolicyConstant {
  readonly value: Value;
  readonly span: Span;
}

/**
 * The concrete Polar type of a term.
 *
 *   termType({ kind: "literal", value: { type: "Doc", id: "d1" } }) // "Doc"
 */
export function termType(term: Term): string {
  switch (term.kind) {
    case "column":
    case "param":
    case "input":
    case "outer":
    case "null":
      return term.type;
    case "literal":
      return term.value.type;
    case "builtin":
      return BUILTINS[term.name].type;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

/** `column("f0", "arg2", "Folder")` is `f0.arg2`, holding Folder ids. */
export function column(alias: string, name: string, type: string): ColumnTerm {
  return { kind: "column", alias, column: name, type };
}

/** `literal({ type: "String", id: "read" })` is `"read"`. */
export function literal(value: Value): LiteralTerm {
  return { kind: "literal", value };
}

/** The column name of argument position `index` of a binding or fact source. */
export function argColumn(index: number): string {
  return `arg${index}`;
}

/** The same term (the same column, literal, param…), not merely equal values. */
export function termsEqual(a: Term, b: Term): boolean {
  switch (a.kind) {
    case "column":
      return b.kind === "column" && a.alias === b.alias && a.column === b.column;
    case "literal":
      return b.kind === "literal" && a.value.type === b.value.type && a.value.id === b.value.id;
    case "param":
      return b.kind === "param" && a.name === b.name;
    case "builtin":
      return b.kind === "builtin" && a.name === b.name;
    case "input":
      return b.kind === "input" && a.index === b.index;
    case "outer":
      return b.kind === "outer";
    case "null":
      return false;
    default: {
      const _never: never = a;
      return _never;
    }
  }
}
