/**
 * The goal text of explanation nodes, read back for the checker (docs/explain.md): a call
 * `name(v, …)`, a comparison `v op v`, `v in [v, …]`, `v matches Type`, or `not …` (kept as
 * text). A value is a Polar literal, `Type{"id"}`, a wildcard `_` or `_: Type`, or (only inside
 * `not`) a variable name.
 */
import type { Value } from "../../src/core/value.js";

/** A value, or a wildcard `_` / `_: T`, or an unbound variable (only inside `not`). */
export type Item =
  | { readonly kind: "value"; readonly value: Value }
  | { readonly kind: "wild"; readonly types: readonly string[] }
  | { readonly kind: "var"; readonly name: string };

export type Goal =
  | { readonly kind: "call"; readonly name: string; readonly args: readonly Item[] }
  | { readonly kind: "compare"; readonly op: string; readonly left: Item; readonly right: Item }
  | { readonly kind: "in"; readonly element: Item; readonly list: readonly Item[] }
  | { readonly kind: "matches"; readonly item: Item; readonly type: string }
  | { readonly kind: "not"; readonly text: string };

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\[\s\S])*")|([+-]?[0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|(!=|<=|>=|[=<>(){}[\],:&]))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) {
      if (/^\s*$/.test(text.slice(start))) break;
      throw new Error(`cannot read goal at ${start}: ${text}`);
    }
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4]!);
  }
  return tokens;
}

function decodeString(token: string): string {
  const escapes: Record<string, string> = { n: "\n", r: "\r", t: "\t", "0": "\0" };
  return token.slice(1, -1).replace(/\\([\s\S])/g, (_, c: string) => escapes[c] ?? c);
}

export function parseGoal(text: string): Goal {
  if (text.startsWith("not ")) return { kind: "not", text };
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new Error(`expected ${expected ?? "a token"} in ${text}`);
    }
    return token;
  };
  const item = (): Item => {
    const token = take();
    if (token.startsWith('"')) return value("String", decodeString(token));
    if (/^[+-]?[0-9]+$/.test(token)) return value("Integer", BigInt(token).toString());
    if (token === "true" || token === "false") return value("Boolean", token);
    if (token === "_") {
      if (peek() !== ":") return { kind: "wild", types: [] };
      take(":");
      const types = [take()];
      while (peek() === "&") {
        take("&");
        types.push(take());
      }
      return { kind: "wild", types };
    }
    if (peek() === "{") {
      take("{");
      const id = take();
      take("}");
      return value(token, id.startsWith('"') ? decodeString(id) : id);
    }
    return { kind: "var", name: token };
  };
  let goal: Goal;
  if (/^[A-Za-z_]/.test(tokens[0] ?? "") && tokens[1] === "(") {
    const name = take();
    take("(");
    const args: Item[] = [];
    while (peek() !== ")") {
      args.push(item());
      if (peek() === ",") take(",");
    }
    take(")");
    goal = { kind: "call", name, args };
  } else {
    const left = item();
    const op = take();
    if (op === "in") {
      take("[");
      const list: Item[] = [];
      while (peek() !== "]") {
        list.push(item());
        if (peek() === ",") take(",");
      }
      take("]");
      goal = { kind: "in", element: left, list };
    } else if (op === "matches") {
      goal = { kind: "matches", item: left, type: take() };
    } else {
      goal = { kind: "compare", op, left, right: item() };
    }
  }
  if (at !== tokens.length) throw new Error(`trailing text in goal ${text}`);
  return goal;
}

const value = (type: string, id: string): Item => ({ kind: "value", value: { type, id } });
export const itemKey = (item: Item) => JSON.stringify(item);

export function safeParse(text: string): Goal | null {
  try {
    return parseGoal(text);
  } catch {
    return null;
  }
}
