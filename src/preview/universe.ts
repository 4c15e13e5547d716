/**
 * What a preview compares (docs/policy-preview.md): the actor types, resource types and
 * permissions either policy declares, and the entities of those types the facts name. Plain
 * functions over the two programs and the facts' shapes; no SQL runs here.
 */
import type { Program } from "../check/program.js";
import { compareCodePoints, type GroundFact } from "../core/value.js";
import type { FactShape } from "../store/facts.js";

/** One (actor type, permission, resource type) whose `allow` answers are compared. */
export interface PreviewEntry {
  readonly actorType: string;
  readonly action: string;
  readonly resourceType: string;
}

/**
 * Every entry the two policies declare, in the order pages list them: by resource type,
 * permission, then actor type (code point order).
 *
 *   previewEntries(p, p2) // [{ actorType: "User", action: "push", resourceType: "Repo" }, …]
 */
export function previewEntries(active: Program, candidate: Program): PreviewEntry[] {
  const actorTypes = new Set<string>();
  const permissions = new Map<string, Set<string>>();
  for (const program of [active, candidate]) {
    for (const info of program.types.values()) {
      if (info.kind === "actor") actorTypes.add(info.name);
    }
    for (const meta of program.resources.values()) {
      if (meta.kind !== "resource") continue;
      const known = permissions.get(meta.name) ?? new Set<string>();
      for (const permission of meta.permissions) known.add(permission);
      permissions.set(meta.name, known);
    }
  }
  const actors = [...actorTypes].sort(compareCodePoints);
  const entries: PreviewEntry[] = [];
  for (const resourceType of [...permissions.keys()].sort(compareCodePoints)) {
    const actions = [...permissions.get(resourceType)!].sort(compareCodePoints);
    for (const action of actions) {
      for (const actorType of actors) entries.push({ actorType, action, resourceType });
    }
  }
  return entries;
}

/** The resource types and permissions of the entries, for counts with zeros where nothing changes. */
export function declaredActions(entries: readonly PreviewEntry[]): Map<string, string[]> {
  const actions = new Map<string, string[]>();
  for (const { resourceType, action } of entries) {
    const known = actions.get(resourceType) ?? [];
    if (!known.includes(action)) known.push(action);
    actions.set(resourceType, known);
  }
  return actions;
}

/** Where the stored facts hold an entity of a type: (predicate, arity, position). */
export interface EntityPlace {
  readonly predicate: string;
  readonly arity: number;
  readonly position: number;
}

/** The places of stored facts that hold values of `type`. */
export function entityPlaces(shapes: readonly FactShape[], type: string): EntityPlace[] {
  const places: EntityPlace[] = [];
  for (const { predicate, types } of shapes) {
    types.forEach((found, position) => {
      if (found === type) places.push({ predicate, arity: types.length, position });
    });
  }
  return places;
}

/** The ids of `type` that the context facts name, without repeats. */
export function contextIds(facts: readonly GroundFact[], type: string): string[] {
  const ids = new Set<string>();
  for (const fact of facts) {
    for (const arg of fact.args) if (arg.type === type) ids.add(arg.id);
  }
  return [...ids];
}
