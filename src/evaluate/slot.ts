/**
 * One position of an answer: a concrete value, or a wildcard that stands for every value of some
 * types (docs/policy-language.md#wildcards). Wildcards are never expanded; joining narrows them.
 */
import { isSubtype, type Program } from "../check/program.js";
import { parseInteger, type Value, valueKey } from "../core/value.js";

/** Every value whose type is (a subtype of) each of `types`; no types: any value at all. */
export interface Wildcard {
  readonly kind: "any";
  /** Sorted, and no entry is a supertype of another. */
  readonly types: readonly string[];
}

export type Slot = Value | Wildcard;

export type TypeTable = Pick<Program, "types">;

export const ANY: Wildcard = { kind: "any", types: [] };

export function isWildcard(slot: Slot): slot is Wildcard {
  return (slot as Partial<Wildcard>).kind === "any";
}

/** `anyOf("User")` is "any `User`"; `anyOf(null)` is any value. */
export function anyOf(type: string | null): Wildcard {
  return type === null ? ANY : { kind: "any", types: [type] };
}

/** Integer ids compare numerically, so `007` and `7` must become the same value. */
export function canonicalValue(value: Value): Value {
  if (value.type !== "Integer") return value;
  const parsed = parseInteger(value.id);
  if (parsed === null || parsed.toString() === value.id) return value;
  return { type: "Integer", id: parsed.toString() };
}

/** The value has every type of the wildcard (subtypes included, docs/policy-language.md#values-and-types). */
export function fits(table: TypeTable, value: Value, wildcard: Wildcard): boolean {
  return wildcard.types.every((type) => isSubtype(table, value.type, type));
}

/**
 * The values both slots stand for, or null when there are none: equal values, a value inside a
 * wildcard, or the meet of two wildcards (which needs some known type below all their types).
 */
export function intersect(table: TypeTable, a: Slot, b: Slot): Slot | null {
  if (!isWildcard(a)) {
    if (!isWildcard(b)) return a.type === b.type && a.id === b.id ? a : null;
    return fits(table, a, b) ? a : null;
  }
  if (!isWildcard(b)) return fits(table, b, a) ? b : null;
  if (a.types.length === 0) return b;
  if (b.types.length === 0) return a;
  const all = [...new Set([...a.types, ...b.types])];
  const minimal = all.filter(
    (type) => !all.some((other) => other !== type && isSubtype(table, other, type)),
  );
  if (minimal.length > 1 && !hasCommonSubtype(table, minimal)) return null;
  return { kind: "any", types: minimal.sort() };
}

function hasCommonSubtype(table: TypeTable, types: readonly string[]): boolean {
  for (const info of table.types.values()) {
    if (types.every((type) => info.ancestors.includes(type))) return true;
  }
  return false;
}

/** Equal keys iff equal slots. */
export function slotKey(slot: Slot): string {
  return isWildcard(slot) ? `*${slot.types.join(",")}` : valueKey(slot);
}

export function tupleKey(slots: readonly Slot[]): string {
  return slots.map(slotKey).join("\u0001");
}
