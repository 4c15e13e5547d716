/**
 * Values on the command line, as Oso's CLI writes them: `Type:id` is an instance, any other
 * word is a String, `_` is a wildcard. The grammar (also in docs/cli.md, "Values"):
 *
 *   value    = "_"                      any value (patterns only; `_:_` too)
 *            | type ":" "_"             any id of that type (patterns only)
 *            | type ":" id              an instance: User:bob
 *            | quoted                   a String, quoted: "a:b", "_"
 *            | word                     a String, verbatim: owner, read-only, 42
 *   type     = name { "::" name }       the text before the first single colon (no spaces,
 *                                       no quotes)
 *   id       = quoted | raw
 *   quoted   = a JSON string literal: "a b", "say \"hi\"", "tab\there", "_"
 *   raw      = any other text, taken verbatim (spaces, commas, colons, backslashes)
 *   word     = any text that is none of the above
 *
 * Ids are never empty (docs/cli.md): `User:`, `User:""`, `""` and an empty argument are refused.
 * `formatValue` writes an id raw only when it is plainly safe (letters, digits and `_.@+-/:`,
 * not starting with `:`, not `_`), and quoted otherwise, so that `parseValue` gives back exactly
 * the same value. Output always writes the type, `String:owner` included.
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

type ValueResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

// Backtracking makes `A::B:x` the type `A::B` and `A::x` the type `A` with the id `:x`.
const TYPED = /^([^\s:"]+(?:::[^\s:"]+)*):([\s\S]*)$/;
const PLAIN_ID = /^[\p{L}\p{N}_.@+\-/][\p{L}\p{N}_.@+\-/:]*$/u;

/**
 * Reads a concrete value: `Type:id`, or a String written bare or quoted (no wildcards).
 *
 * @example
 * parseValue("User:bob"); // { ok: true, value: { type: "User", id: "bob" } }
 * parseValue("owner"); // { ok: true, value: { type: "String", id: "owner" } }
 * parseValue('Doc:"a, b"'); // { ok: true, value: { type: "Doc", id: "a, b" } }
 */
export function parseValue(text: string): ValueResult<TypedValue> {
  if (text === "") return { ok: false, message: "an empty argument is not a value" };
  if (text === "_" || text === "_:_") {
    return {
      ok: false,
      message: `\`${text}\` is a wildcard; write \`"_"\` or \`String:"_"\` for the string _`,
    };
  }
  if (text.startsWith('"')) return quotedId(text, "String", text);
  const match = TYPED.exec(text);
  if (!match) return { ok: true, value: { type: "String", id: text } };
  const type = match[1]!;
  const rest = match[2]!;
  if (type === "_") return { ok: false, message: `\`${text}\`: an id needs a type` };
  if (rest === "") return { ok: false, message: `\`${text}\` has no id after the colon` };
  if (rest === "_") {
    return { ok: false, message: `\`${text}\` is a wildcard; write \`${type}:"_"\` for the id _` };
  }
  if (!rest.startsWith('"')) return { ok: true, value: { type, id: rest } };
  return quotedId(rest, type, text);
}

/** A JSON string literal as the id of `type`; `text` is the whole argument, for messages. */
function quotedId(quoted: string, type: string, text: string): ValueResult<TypedValue> {
  let id: unknown;
  try {
    id = JSON.parse(quoted);
  } catch {
    id = undefined;
  }
  const what = quoted === text ? "string" : "id";
  if (typeof id !== "string") {
    return { ok: false, message: `\`${text}\`: a quoted ${what} must be one JSON string literal` };
  }
  if (id === "") return { ok: false, message: `\`${text}\` has an empty ${what}` };
  return { ok: true, value: { type, id } };
}

/**
 * Reads a value that may be a wildcard: `_` (or `_:_`) and `Type:_`.
 *
 * @example
 * parsePattern("_"); // { ok: true, value: { type: null, id: null } }
 * parsePattern("User:_"); // { ok: true, value: { type: "User", id: null } }
 * parsePattern("owner"); // { ok: true, value: { type: "String", id: "owner" } }
 */
export function parsePattern(text: string): ValueResult<PatternValue> {
  if (text === "_" || text === "_:_") return { ok: true, value: { type: null, id: null } };
  const match = TYPED.exec(text);
  if (match && match[1] !== "_" && match[2] === "_") {
    return { ok: true, value: { type: match[1]!, id: null } };
  }
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
