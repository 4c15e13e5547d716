/**
 * Values on the command line: `Type:id`, with `_` as a wildcard. The grammar (also in
 * docs/cli.md, "Values"):
 *
 *   value    = "_"                      any value (patterns only)
 *            | type ":" "_"             any id of that type (patterns only)
 *            | type ":" id
 *   type     = name { "::" name }       the text before the first single colon
 *   id       = quoted | raw
 *   quoted   = a JSON string literal: "a b", "say \"hi\"", "tab\there", "_"
 *   raw      = any other non-empty text, taken verbatim (spaces, commas, colons, backslashes)
 *
 * `formatValue` writes an id raw only when it is plainly safe (letters, digits and `_.@+-/:`,
 * not starting with `:`, not `_`), and quoted otherwise, so that `parseValue` gives back exactly
 * the same id.
 */

export interface TypedValue {
  readonly type: string;
  readonly id: string;
}

/** A pattern value: a null type matches any value, a null id any id of the type. */
export interface PatternValue {
  readonly type: string | null;
  readonly id: string | null;
}

export type ValueResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

// Backtracking makes `A::B:x` the type `A::B` and `A::x` the type `A` with the id `:x`.
const TYPED = /^([^\s:"]+(?:::[^\s:"]+)*):([\s\S]*)$/;
const PLAIN_ID = /^[\p{L}\p{N}_.@+\-/][\p{L}\p{N}_.@+\-/:]*$/u;

/**
 * Reads `Type:id` (no wildcards).
 *
 * @example
 * parseValue("User:bob"); // { ok: true, value: { type: "User", id: "bob" } }
 * parseValue('Doc:"a, b"'); // { ok: true, value: { type: "Doc", id: "a, b" } }
 */
export function parseValue(text: string): ValueResult<TypedValue> {
  const match = TYPED.exec(text);
  if (!match) {
    return { ok: false, message: `\`${text}\` is not \`Type:id\`` };
  }
  const type = match[1]!;
  const rest = match[2]!;
  if (rest === "") return { ok: false, message: `\`${text}\` has no id after the colon` };
  if (rest === "_") {
    return { ok: false, message: `\`${text}\` is a wildcard; write \`${type}:"_"\` for the id _` };
  }
  if (!rest.startsWith('"')) return { ok: true, value: { type, id: rest } };
  let id: unknown;
  try {
    id = JSON.parse(rest);
  } catch {
    id = undefined;
  }
  if (typeof id !== "string") {
    return { ok: false, message: `\`${text}\`: a quoted id must be one JSON string literal` };
  }
  if (id === "") return { ok: false, message: `\`${text}\` has an empty id` };
  return { ok: true, value: { type, id } };
}

/**
 * Reads a value that may be a wildcard: `_` or `Type:_`.
 *
 * @example
 * parsePattern("_"); // { ok: true, value: { type: null, id: null } }
 * parsePattern("User:_"); // { ok: true, value: { type: "User", id: null } }
 */
export function parsePattern(text: string): ValueResult<PatternValue> {
  if (text === "_") return { ok: true, value: { type: null, id: null } };
  const match = TYPED.exec(text);
  if (match && match[2] === "_") return { ok: true, value: { type: match[1]!, id: null } };
  return parseValue(text);
}

/**
 * Writes a value so that `parseValue` reads it back exactly.
 *
 * @example
 * formatValue({ type: "User", id: "bob" }); // "User:bob"
 * formatValue({ type: "Doc", id: "a, b" }); // 'Doc:"a, b"'
 */
export function formatValue(value: TypedValue): string {
  return `${value.type}:${formatId(value.id)}`;
}

/** An id as `formatValue` writes it: raw when plainly safe, else a JSON string. */
export function formatId(id: string): string {
  return id !== "_" && PLAIN_ID.test(id) ? id : JSON.stringify(id);
}

/**
 * A fact on one line, as `facts get` prints it: the predicate, then each argument.
 *
 * @example
 * formatFact({ predicate: "has_role", args: [{ type: "User", id: "bob" },
 *   { type: "String", id: "member" }] }); // "has_role User:bob String:member"
 */
export function formatFact(fact: {
  readonly predicate: string;
  readonly args: readonly TypedValue[];
}): string {
  return [fact.predicate, ...fact.args.map(formatValue)].join(" ");
}
