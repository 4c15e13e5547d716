/**
 * What a policy reads: every call in a rule body as a pattern (literal arguments as values,
 * variables with the type their clause gives them), and among those the calls that no rule
 * head can answer, which only facts (bindings or central facts) can make true.
 */
import { BUILTINS } from "../builtins/registry.js";
import { isSubtype, type Program } from "../check/program.js";
import { forEachCall, visitExpr } from "../check/walk.js";
import { booleanValue, integerValue, stringValue, type Value } from "../core/value.js";
import type { Expr, Param, Term } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import type { BindingSlot } from "./types.js";

export type PatternArg =
  /** A literal argument. */
  | { readonly kind: "value"; readonly value: Value }
  /** A variable whose type the clause gives. */
  | { readonly kind: "type"; readonly type: string }
  /** A variable of any type. */
  | { readonly kind: "any" };

export interface FactPattern {
  readonly name: string;
  readonly args: readonly PatternArg[];
  /** The call in the policy. */
  readonly span: Span;
}

export interface PolicyUse {
  /** Every call in a rule body, in source order. */
  readonly calls: readonly FactPattern[];
  /** The calls by predicate name. */
  readonly callsByName: ReadonlyMap<string, readonly FactPattern[]>;
  /** Calls no rule head can answer, one per distinct pattern: they read facts only. */
  readonly leaves: readonly FactPattern[];
}

const ANY: PatternArg = { kind: "any" };

function literalArg(term: Term): PatternArg | null {
  switch (term.kind) {
    case "string":
      return { kind: "value", value: stringValue(term.value) };
    case "integer":
      return { kind: "value", value: integerValue(term.value) };
    case "boolean":
      return { kind: "value", value: booleanValue(term.value) };
    case "object":
      return { kind: "value", value: { type: term.type.name, id: String(term.value.value) } };
    case "builtin":
      return { kind: "type", type: BUILTINS[term.name].type };
    case "variable":
      return null;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

function headArg(param: Param): PatternArg {
  if (param.kind === "typed") return { kind: "type", type: param.type.name };
  return literalArg(param) ?? ANY;
}

/**
 * Variable types of one clause: its typed parameters and its `matches` atoms. A variable with
 * types that do not narrow to one (`x matches A` in one branch, `x matches B` in another) is
 * left untyped, so that no pattern is narrower than the policy.
 */
function clauseTypes(program: Program, params: readonly Param[], body: Expr): Map<string, string> {
  const seen = new Map<string, string[]>();
  const add = (name: string, type: string) => seen.set(name, [...(seen.get(name) ?? []), type]);
  for (const param of params) if (param.kind === "typed") add(param.variable.name, param.type.name);
  visitExpr(body, { matches: (atom) => add(atom.variable.name, atom.type.name) });
  const types = new Map<string, string>();
  for (const [name, candidates] of seen) {
    const narrowest = candidates.find((t) => candidates.every((u) => isSubtype(program, t, u)));
    if (narrowest !== undefined) types.set(name, narrowest);
  }
  return types;
}

/** Two arguments can denote the same value. */
export function argsOverlap(program: Program, a: PatternArg, b: PatternArg): boolean {
  if (a.kind === "any" || b.kind === "any") return true;
  if (a.kind === "value" && b.kind === "value") {
    return a.value.type === b.value.type && a.value.id === b.value.id;
  }
  if (a.kind === "value" && b.kind === "type") return isSubtype(program, a.value.type, b.type);
  if (a.kind === "type" && b.kind === "value") return isSubtype(program, b.value.type, a.type);
  if (a.kind === "type" && b.kind === "type") {
    return isSubtype(program, a.type, b.type) || isSubtype(program, b.type, a.type);
  }
  return false;
}

export function patternsOverlap(
  program: Program,
  a: readonly PatternArg[],
  b: readonly PatternArg[],
): boolean {
  return a.length === b.length && a.every((arg, i) => argsOverlap(program, arg, b[i]!));
}

/** A binding slot as a pattern argument. */
export function slotArg(slot: BindingSlot): PatternArg {
  return slot.kind === "column"
    ? { kind: "type", type: slot.type }
    : { kind: "value", value: { type: slot.type, id: slot.value } };
}

const cache = new WeakMap<Program, PolicyUse>();

/**
 * The calls of `program` and the leaves among them (cached per program).
 *
 *   policyUse(program).leaves.map((p) => p.name) // ["has_relation", "has_role", …]
 */
export function policyUse(program: Program): PolicyUse {
  const known = cache.get(program);
  if (known) return known;
  const calls: FactPattern[] = [];
  for (const clauses of program.rules.values()) {
    for (const clause of clauses) {
      if (!clause.body) continue;
      const types = clauseTypes(program, clause.params, clause.body);
      forEachCall(clause.body, (call) => {
        const args = call.args.map((term): PatternArg => {
          const literal = literalArg(term);
          if (literal) return literal;
          const type = term.kind === "variable" ? types.get(term.name) : undefined;
          return type === undefined ? ANY : { kind: "type", type };
        });
        calls.push({ name: call.name.name, args, span: call.span });
      });
    }
  }
  calls.sort((a, b) => a.span.file.localeCompare(b.span.file) || a.span.start - b.span.start);
  const leaves = new Map<string, FactPattern>();
  for (const call of calls) {
    const heads = program.rules.get(`${call.name}/${call.args.length}`) ?? [];
    const answered = heads.some((clause) =>
      patternsOverlap(program, clause.params.map(headArg), call.args),
    );
    const key = JSON.stringify([call.name, call.args]);
    if (!answered && !leaves.has(key)) leaves.set(key, call);
  }
  const callsByName = new Map<string, FactPattern[]>();
  for (const call of calls)
    callsByName.set(call.name, [...(callsByName.get(call.name) ?? []), call]);
  const use = { calls, callsByName, leaves: [...leaves.values()] };
  cache.set(program, use);
  return use;
}
