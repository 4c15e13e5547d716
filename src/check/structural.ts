/**
 * Structural identity of AST nodes: spans never take part in equality.
 */

/**
 * A 32-bit hash that is equal for structurally equal nodes (spans ignored). Use
 * `structurallyEqual` to confirm a match.
 *
 * @example
 * structuralHash({ kind: "variable", name: "x", span: a }) ===
 *   structuralHash({ kind: "variable", name: "x", span: b }); // true
 */
export function structuralHash(node: unknown): number {
  return hashInto(node, 0x811c9dc5) >>> 0;
}

function mixString(hash: number, text: string): number {
  let h = Math.imul(hash ^ text.length, 0x01000193);
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

function hashInto(node: unknown, hash: number): number {
  switch (typeof node) {
    case "string":
      return mixString(Math.imul(hash ^ 1, 0x01000193), node);
    case "number":
      return mixString(Math.imul(hash ^ 2, 0x01000193), String(node));
    case "bigint":
      return mixString(Math.imul(hash ^ 3, 0x01000193), node.toString());
    case "boolean":
      return Math.imul(hash ^ (node ? 4 : 5), 0x01000193);
    case "object": {
      if (node === null) return Math.imul(hash ^ 6, 0x01000193);
      if (Array.isArray(node)) {
        let h = Math.imul(hash ^ 7 ^ (node.length << 4), 0x01000193);
        for (const element of node) h = hashInto(element, h);
        return h;
      }
      let h = Math.imul(hash ^ 8, 0x01000193);
      const record = node as Record<string, unknown>;
      for (const key in record) {
        if (key === "span") continue;
        h = hashInto(record[key], mixString(h, key));
      }
      return h;
    }
    default:
      return Math.imul(hash ^ 9, 0x01000193);
  }
}

/**
 * Deep equality that ignores `span` properties.
 *
 * @example
 * structurallyEqual({ kind: "variable", name: "x", span: a }, { kind: "variable", name: "x", span: b }); // true
 */
export function structurallyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return (
      a.length === other.length && a.every((element, i) => structurallyEqual(element, other[i]))
    );
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => key !== "span");
  if (keys.length !== Object.keys(right).filter((key) => key !== "span").length) return false;
  return keys.every((key) => key in right && structurallyEqual(left[key], right[key]));
}

/**
 * A deep copy without `span` properties, for comparisons in tests and tools.
 *
 * @example
 * stripSpans({ kind: "variable", name: "x", span }); // { kind: "variable", name: "x" }
 */
export function stripSpans<T>(node: T): unknown {
  if (Array.isArray(node)) return node.map((element) => stripSpans(element));
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== "span") copy[key] = stripSpans(value);
  }
  return copy;
}
