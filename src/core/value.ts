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
type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];
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

/** The comparison operators of the language. */
export type CompareOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

/**
 * Orders strings by Unicode code point, as the language does (JavaScript's `<` compares UTF-16
 * units, which differs above U+FFFF).
 *
 *   compareCodePoints("\u{1F600}", "\uFFFF") // > 0
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    // At the first differing unit, codePointAt sees a whole pair or (after an equal high
    // surrogate) the low surrogates, so the difference has the code point order's sign.
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

/**
 * A comparison between two known values (docs/policy-language.md, "Comparisons"): equality
 * needs the same type and id; ordering works on two Integers (numerically) or two Strings (by
 * code point) and is false for any other pair.
 *
 *   compareValues("<", { type: "Integer", id: "9" }, { type: "Integer", id: "10" }) // true
 *   compareValues("<", { type: "Integer", id: "9" }, { type: "String", id: "10" })  // false
 */
export function compareValues(op: CompareOp, left: Value, right: Value): boolean {
  if (op === "=") return valuesEqual(left, right);
  if (op === "!=") return !valuesEqual(left, right);
  let order: number;
  if (left.type === "Integer" && right.type === "Integer") {
    const a = parseInteger(left.id);
    const b = parseInteger(right.id);
    if (a === null || b === null) return false;
    order = a < b ? -1 : a > b ? 1 : 0;
  } else if (left.type === "String" && right.type === "String") {
    order = compareCodePoints(left.id, right.id);
  } else {
    return false;
  }
  switch (op) {
    case "<":
      return order < 0;
    case "<=":
      return order <= 0;
    case ">":
      return order > 0;
    case ">=":
      return order >= 0;
    default: {
      const _never: never = op;
      return _never;
    }
  }
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
