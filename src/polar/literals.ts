/** Values of literal tokens (both accept the broken forms the lexer lets through), excerpts. */

const EXCERPT_LENGTH = 40;

/**
 * Source text quoted in a one-line message: the first line, at most 40 characters.
 *
 * @example
 * excerpt('"abc\ndef"'); // '"abc…'
 */
export function excerpt(text: string): string {
  const line = /^[^\n\r]*/.exec(text)![0];
  const cut = line.length > EXCERPT_LENGTH ? line.slice(0, EXCERPT_LENGTH) : line;
  return cut.length < text.length ? `${cut}…` : cut;
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", "0": "\0" };

/**
 * The value of a string token: quotes removed, escapes applied (docs/policy-language.md#strings; #project-decisions, decision 11).
 *
 * @example
 * decodeString('"a\\tb\\q"'); // "a\tbq"
 */
export function decodeString(image: string): string {
  const closed = image.length >= 2 && image.endsWith('"') && !endsWithEscape(image);
  const body = image.slice(1, closed ? -1 : undefined);
  if (!body.includes("\\")) return body;
  let value = "";
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== "\\") {
      value += char;
      continue;
    }
    const next = body.codePointAt(i + 1);
    if (next === undefined) break;
    const escaped = String.fromCodePoint(next);
    value += ESCAPES[escaped] ?? escaped;
    i += escaped.length;
  }
  return value;
}

/** True when the final `"` of `image` is escaped, i.e. preceded by an odd run of backslashes. */
function endsWithEscape(image: string): boolean {
  let backslashes = 0;
  for (let i = image.length - 2; i > 0 && image[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * The value of an integer token; 0 for the float form, which the lexer has already reported.
 *
 * @example
 * integerValue("-007"); // -7n
 */
export function integerValue(image: string): bigint {
  return /^[+-]?[0-9]+$/.test(image) ? BigInt(image) : 0n;
}
