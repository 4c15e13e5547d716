/**
 * Runtime values, in the wire form `{type, id}`: `"ada"` is `{type: "String", id: "ada"}`,
 * `7` is `{type: "Integer", id: "7"}`, `true` is `{type: "Boolean", id: "true"}`, and an entity
 * is `{type: "User", id: "ada"}`. Integer ids are kept canonical (no leading zeros, no `+`,
 * no `-0`) so that equal values have equal ids.
 */
export interface Value {
  readonly type: string;
  readonly id: string;
}

export const PRIMITIVE_TYPES = ["String", "Integer", "Boolean"] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];
export const ABSTRACT_TYPES = ["Actor", "Resource"] as const;

export const INTEGER_MIN = -(2n ** 63n);
export const INTEGER_MAX = 2n ** 63n - 1n;

export function isPrimitiveType(type: string): type is PrimitiveType {
  return type === "String" || type === "Integer" || type === "Boolean";
}

export function isAbstractType(type: string): boolean {
  return type === "Actor" || type === "Resource";
}

export function stringValue(value: string): Value {
  return { type: "String", id: value };
}
export function integerValue(value: bigint): Value {
  return { type: "Integer", id: value.toString() };
}
export function booleanValue(value: boolean): Value {
  return { type: "Boolean", id: value ? "true" : "false" };
}
export function entity(type: string, id: string): Value {
  return { type, id };
}

/** Parses an Integer id; null when it is not a signed 64-bit integer. */
export function parseInteger(id: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(id)) return null;
  const value = BigInt(id);
  return value < INTEGER_MIN || value > INTEGER_MAX ? null : value;
}

/** A string key that identifies a value: equal keys iff equal values. */
export function valueKey(value: Value): string {
  return `${value.type}\u0000${value.id}`;
}

export function valuesEqual(a: Value, b: Value): boolean {
  return a.type === b.type && a.id === b.id;
}

/** How a value is written in Polar source: `"ada"`, `7`, `true`, `User{"ada"}`. */
export function formatValue(value: Value): string {
  switch (value.type) {
    case "String":
      return JSON.stringify(value.id);
    case "Integer":
    case "Boolean":
      return value.id;
    default:
      return `${value.type}{${JSON.stringify(value.id)}}`;
  }
}

/** A fact with concrete arguments. */
export interface GroundFact {
  readonly predicate: string;
  readonly args: readonly Value[];
}

export function formatFact(fact: GroundFact): string {
  return `${fact.predicate}(${fact.args.map(formatValue).join(", ")})`;
}
