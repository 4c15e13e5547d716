/**
 * Head matching: which clauses of a predicate an instance can use, and the initial state of
 * their bodies. Literals in the head prune clauses at plan time (`"read"` never meets
 * `"delete"`); types prune through the subtype graph.
 */
import { BUILTINS } from "../builtins/registry.js";
import { termValue } from "../check/facts.js";
import { type Clause, isSubtype, type Program } from "../check/program.js";
import { valuesEqual } from "../core/value.js";
import type { Param, Variable } from "../polar/ast.js";
import { type Adornment, freshVariable, type Planner } from "./context.js";
import { literal, type Output, type Term } from "./ir.js";
import {
  addConditions,
  bindVariable,
  constrainVariable,
  EMPTY_STATE,
  equateTerms,
  type State,
} from "./state.js";
import { satisfies } from "./types.js";

/** Where a head position's output comes from once the body is planned. */
type HeadOutput =
  | { readonly kind: "variable"; readonly name: string }
  | { readonly kind: "term"; readonly term: Term };

export interface HeadMatch {
  readonly state: State;
  readonly outputs: readonly HeadOutput[];
}

/** Clause-local variable names: every `_` is a fresh variable. */
export function variableName(planner: Planner, variable: Variable): string {
  return variable.name === "_" ? freshVariable(planner) : variable.name;
}

/** The term a caller passes at a bound or literal position. */
export function inputTerm(adornment: Adornment, index: number): Term | null {
  switch (adornment.kind) {
    case "literal":
      return literal(adornment.value);
    case "bound":
      return { kind: "input", index, type: adornment.type };
    case "free":
      return null;
    default: {
      const _never: never = adornment;
      return _never;
    }
  }
}

function matchVariable(
  planner: Planner,
  state: State,
  name: string,
  type: string | null,
  adornment: Adornment,
  index: number,
): State | null {
  const program = planner.program;
  let next: State | null = state;
  if (type !== null)
    next = constrainVariable(program, next, name, { exact: null, requires: [type] });
  if (next && adornment.kind === "free") {
    next = constrainVariable(program, next, name, adornment.constraint);
  }
  const input = inputTerm(adornment, index);
  return next && input ? bindVariable(program, next, name, input) : next;
}

function matchParam(
  planner: Planner,
  state: State,
  param: Param,
  adornment: Adornment,
  index: number,
): { state: State; output: HeadOutput } | null {
  const input = inputTerm(adornment, index);
  switch (param.kind) {
    case "typed":
    case "variable": {
      const variable = param.kind === "typed" ? param.variable : param;
      const type = param.kind === "typed" ? param.type.name : null;
      const name = variableName(planner, variable);
      const next = matchVariable(planner, state, name, type, adornment, index);
      return next && { state: next, output: { kind: "variable", name } };
    }
    case "builtin": {
      const builtin: Term = { kind: "builtin", name: param.name };
      if (input) {
        const next = equateTerms(state, input, builtin);
        return next && { state: next, output: { kind: "term", term: input } };
      }
      const type = BUILTINS[param.name].type;
      if (adornment.kind === "free" && !satisfies(planner.program, type, adornment.constraint)) {
        return null;
      }
      return { state, output: { kind: "term", term: builtin } };
    }
    default: {
      const value = termValue(param)!;
      const term = literal(value);
      switch (adornment.kind) {
        case "literal":
          return valuesEqual(adornment.value, value)
            ? { state, output: { kind: "term", term } }
            : null;
        case "bound": {
          if (adornment.type !== value.type) return null;
          const next = addConditions(state, [
            { kind: "compare", op: "=", left: input!, right: term },
          ]);
          return { state: next, output: { kind: "term", term: input! } };
        }
        case "free":
          return satisfies(planner.program, value.type, adornment.constraint)
            ? { state, output: { kind: "term", term } }
            : null;
        default: {
          const _never: never = adornment;
          return _never;
        }
      }
    }
  }
}

/**
 * The initial body state of `clause` for a call with this adornment, or null when the head
 * cannot match.
 *
 *   matchHead(planner, clause /* has_role(actor: Actor, "viewer", resource: Doc) *\/,
 *             [{kind: "bound", type: "User"}, {kind: "literal", value: "editor"}, …]) // null
 */
export function matchHead(
  planner: Planner,
  clause: Clause,
  adornment: readonly Adornment[],
): HeadMatch | null {
  if (!positionsMayMatch(planner.program, clause, adornment)) return null;
  let state: State = EMPTY_STATE;
  const outputs: HeadOutput[] = [];
  for (let index = 0; index < clause.params.length; index++) {
    const matched = matchParam(planner, state, clause.params[index]!, adornment[index]!, index);
    if (!matched) return null;
    state = matched.state;
    outputs.push(matched.output);
  }
  return { state, outputs };
}

/**
 * False when one head position alone refuses the call: a typed parameter given a value of
 * another type, or a literal given another value. It allocates nothing, so a predicate with
 * thousands of clauses for other types (docs/limits.md) costs a scan, not a state per clause.
 * `matchParam` refuses every call this refuses; it decides the rest.
 */
function positionsMayMatch(
  program: Program,
  clause: Clause,
  adornment: readonly Adornment[],
): boolean {
  for (let index = 0; index < clause.params.length; index++) {
    const param = clause.params[index]!;
    const wanted = adornment[index]!;
    if (wanted.kind === "free") continue;
    const given = wanted.kind === "bound" ? wanted.type : wanted.value.type;
    if (param.kind === "typed") {
      if (!isSubtype(program, given, param.type.name)) return false;
      continue;
    }
    if (param.kind === "variable" || param.kind === "builtin") continue;
    const value = termValue(param);
    if (!value) continue;
    if (wanted.kind === "literal" ? !valuesEqual(wanted.value, value) : given !== value.type)
      return false;
  }
  return true;
}

/** A head position's output once the body is planned. */
export function resolveHeadOutput(
  output: HeadOutput,
  resolveVariable: (name: string) => Output,
): Output {
  return output.kind === "term" ? output.term : resolveVariable(output.name);
}
