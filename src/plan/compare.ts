/**
 * Comparisons between known values, with the language's semantics (reference §5): equality
 * needs the same type and id; ordering works on two Integers (numerically) or two Strings (by
 * Unicode code point) and is false for any other pair.
 */
import type { Value } from "../core/value.js";
import type { CompareOp } from "../polar/ast.js";

/** Code point order (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const x = left[i]!.codePointAt(0)!;
    const y = right[i]!.codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** Same type and same (canonical) id. */
export function valueEquals(a: Value, b: Value): boolean {
  return a.type === b.type && a.id === b.id;
}

/**
 *   compareValues("<", { type: "Integer", id: "9" }, { type: "Integer", id: "10" }) // true
 *   compareValues("<", { type: "Integer", id: "9" }, { type: "String", id: "10" })  // false
 */
export function compareValues(op: CompareOp, a: Value, b: Value): boolean {
  if (op === "=") return valueEquals(a, b);
  if (op === "!=") return !valueEquals(a, b);
  if (a.type !== b.type) return false;
  let order: number;
  if (a.type === "Integer") {
    const x = BigInt(a.id);
    const y = BigInt(b.id);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.type === "String") {
    order = compareCodePoints(a.id, b.id);
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
