/**
 * An explanation as JSON text, and the budget of its size. A proof is as deep as the data (a
 * 3,000-deep folder chain is a 3,000-deep tree) and `JSON.stringify` recurses per level, so the
 * text is written here with an explicit stack. A proof's nodes may be shared (the prover proves a
 * goal once), so the tree's size is counted as written, and writing stops at the budget.
 */
import type { ExplainNode, Explanation } from "./explain-node.js";

/** Most nodes and bytes (UTF-8, of the compact JSON) an explanation may have. */
export interface ExplanationBudget {
  readonly maxNodes: number;
  readonly maxBytes: number;
}

/** An explanation over its budget: which bound, and its value. */
export class ExplanationTooLarge extends Error {
  constructor(
    readonly bound: keyof ExplanationBudget,
    readonly value: number,
  ) {
    super(
      bound === "maxNodes"
        ? `the explanation has more than ${value} nodes`
        : `the explanation is larger than ${value} bytes`,
    );
    this.name = "ExplanationTooLarge";
  }
}

const UNBOUNDED: ExplanationBudget = {
  maxNodes: Number.POSITIVE_INFINITY,
  maxBytes: Number.POSITIVE_INFINITY,
};

/**
 * `JSON.stringify(explanation)`, at any depth; throws `ExplanationTooLarge` past the budget.
 *
 * @example
 * explanationJson({ allowed: true, explanation: tree }, { maxNodes: 100_000, maxBytes: 2 ** 24 });
 * // '{"allowed":true,"explanation":{"goal":"allow(…)","holds":true,"children":[…]}}'
 */
export function explanationJson(
  explanation: Explanation,
  budget: ExplanationBudget = UNBOUNDED,
): string {
  const parts: string[] = [`{"allowed":${explanation.allowed},"explanation":`];
  let bytes = parts[0]!.length;
  let nodes = 0;
  const emit = (text: string) => {
    bytes += utf8Length(text);
    if (bytes > budget.maxBytes) throw new ExplanationTooLarge("maxBytes", budget.maxBytes);
    parts.push(text);
  };
  // Nodes to open, and the text that closes them or separates siblings.
  const stack: (ExplainNode | string)[] = [explanation.explanation];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === "string") {
      emit(item);
      continue;
    }
    if (++nodes > budget.maxNodes) throw new ExplanationTooLarge("maxNodes", budget.maxNodes);
    emit(nodeHead(item));
    stack.push("]}");
    for (let i = item.children.length - 1; i >= 0; i--) {
      stack.push(item.children[i]!);
      if (i > 0) stack.push(",");
    }
  }
  emit("}");
  return parts.join("");
}

/** A node's fields before its children, in the order `node()` gives them. */
function nodeHead(node: ExplainNode): string {
  const { children: _children, ...fields } = node;
  const text = JSON.stringify(fields);
  return `${text.slice(0, -1)}${text.length > 2 ? "," : ""}"children":[`;
}

/**
 * The nodes of a tree as written (a shared node counts each time), counting up to `cap`.
 *
 * @example
 * countNodes(tree, 500); // 37, or 500 when the tree has 500 nodes or more
 */
export function countNodes(tree: ExplainNode, cap = Number.POSITIVE_INFINITY): number {
  let count = 0;
  const stack = [tree];
  while (stack.length > 0 && count < cap) {
    count++;
    const current = stack.pop()!;
    for (const child of current.children) stack.push(child);
  }
  return count;
}

/** Bytes of a string in UTF-8. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code < 0xdc00) {
      bytes += 2; // a surrogate pair: 4 bytes for its 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

const JSON_TEXT = Symbol("polar-sql.jsonText");

/**
 * A reply body that carries its JSON text already written (an explanation too deep for
 * `JSON.stringify`); the HTTP adapter sends that text (`jsonTextOf`).
 */
export function withJsonText<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, JSON_TEXT, { value: text, enumerable: false });
  return value;
}

/** The JSON text a body carries (see `withJsonText`), if any. */
export function jsonTextOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const text = (value as { [JSON_TEXT]?: unknown })[JSON_TEXT];
  return typeof text === "string" ? text : undefined;
}
