/**
 * Places a part of a YAML scalar's value in the source text. A value and its source differ by
 * quotes, escapes, indentation and line folding, but its characters appear in the source in
 * order; matching them greedily finds where each one was written. Quoted escapes (`\"`, `''`)
 * and block indentation are skipped over, which is right for what binding keys and queries
 * hold; where the match fails the whole scalar is used.
 */
import type { SourceFile, Span } from "../source/source.js";

/**
 * The span of `value.slice(from, to)` inside `scalar`, the span where the scalar holding
 * `value` was written; `scalar` itself when the characters cannot be matched.
 *
 *   // source: `  query: "SELECT id FROM t"`, scalar spans the quoted string
 *   spanInScalar(source, scalar, "SELECT id FROM t", 7, 9) // the span of `id`
 */
export function spanInScalar(
  source: SourceFile,
  scalar: Span,
  value: string,
  from: number,
  to: number,
): Span {
  const text = source.text;
  const end = Math.min(Math.max(from, to), value.length);
  const start = Math.min(from, end);
  let at = scalar.start;
  let spanStart = -1;
  for (let i = 0; i < end; i++) {
    const char = value[i]!;
    // A folded line break is written as a line break and indentation; a value's line break in
    // a double-quoted scalar may be written `\n`.
    while (at < scalar.end && text[at] !== char && !(char === " " && text[at] === "\n")) at++;
    if (at >= scalar.end) return scalar;
    if (i === start) spanStart = at;
    at++;
  }
  if (spanStart === -1) spanStart = Math.min(at, scalar.end);
  // An empty part is shown as one character, so that a code frame can underline it.
  const spanEnd = end > start ? at : Math.min(spanStart + 1, scalar.end);
  return { file: scalar.file, start: spanStart, end: Math.max(spanEnd, spanStart) };
}
