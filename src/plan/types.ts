/**
 * Type constraints of planner variables. A bound term has one concrete type; an unbound
 * variable carries a constraint (an exact type, and supertypes it must have) until a source
 * binds it.
 */
import { isSubtype, type Program } from "../check/program.js";
import type { TypeConstraint } from "./ir.js";

export const ANY_TYPE: TypeConstraint = { exact: null, requires: [] };

/** No type information at all: any value, of any type (also types the policy never names). */
export function isUnconstrained(constraint: TypeConstraint): boolean {
  return constraint.exact === null && constraint.requires.length === 0;
}

/** Exactly this type, no subtype (question variables). */
export function exactType(type: string): TypeConstraint {
  return { exact: type, requires: [] };
}

/** Whether a value of concrete type `type` meets the constraint. */
export function satisfies(program: Program, type: string, constraint: TypeConstraint): boolean {
  if (constraint.exact !== null && constraint.exact !== type) return false;
  return constraint.requires.every((sup) => isSubtype(program, type, sup));
}

/**
 * Concrete types that meet the constraint: the exact type, or every non-abstract type the
 * program knows (primitives, declared and undeclared entity types) that has all `requires`.
 *
 *   candidateTypes(program, { exact: null, requires: ["Actor"] }) // ["User", "Group"]
 */
export function candidateTypes(program: Program, constraint: TypeConstraint): string[] {
  if (constraint.exact !== null) {
    return satisfies(program, constraint.exact, constraint) ? [constraint.exact] : [];
  }
  const found: string[] = [];
  for (const info of program.types.values()) {
    if (info.kind === "abstract") continue;
    if (satisfies(program, info.name, constraint)) found.push(info.name);
  }
  return found.sort();
}

/** Both constraints at once, or null when no value can meet them. */
export function mergeConstraints(
  program: Program,
  a: TypeConstraint,
  b: TypeConstraint,
): TypeConstraint | null {
  if (a.exact !== null && b.exact !== null && a.exact !== b.exact) return null;
  const requires = [...new Set([...a.requires, ...b.requires])].sort();
  const merged: TypeConstraint = { exact: a.exact ?? b.exact, requires };
  if (merged.exact !== null) return satisfies(program, merged.exact, merged) ? merged : null;
  if (requires.length <= 1 && (requires.length === 0 || program.types.has(requires[0]!))) {
    return merged;
  }
  return candidateTypes(program, merged).length > 0 ? merged : null;
}

/** A short key for plan-cache keys: `=User`, `<Actor`, `*`. */
export function constraintKey(constraint: TypeConstraint): string {
  if (constraint.exact !== null) return `=${constraint.exact}`;
  return constraint.requires.length === 0 ? "*" : `<${constraint.requires.join("&")}`;
}

/** The constraint for humans: `User`, `Actor & Resource`, `any`. */
export function formatConstraint(constraint: TypeConstraint): string {
  if (constraint.exact !== null) return constraint.exact;
  return constraint.requires.length === 0 ? "any" : constraint.requires.join(" & ");
}
