/**
 * Where the parts of a fact signature were written, for messages that underline one of them:
 * the predicate name, and each argument's type and value, as `[start, end)` offsets into the
 * signature text. Only for signatures that `parseSignature` accepted.
 */

type Range = readonly [number, number];

interface SignatureParts {
  readonly predicate: Range;
  readonly args: readonly { readonly type: Range | null; readonly value: Range }[];
}

/** `[start, end)` of `text.slice(start, end)` without surrounding whitespace. */
function trimmed(text: string, start: number, end: number): Range {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from]!)) from++;
  while (to > from && /\s/.test(text[to - 1]!)) to--;
  return [from, to];
}

/**
 * The parts of a signature as written.
 *
 *   signatureParts("has_role(User:_, owner, Org:_)")
 *   // { predicate: [0, 8], args: [{ type: [9, 13], value: [14, 15] },
 *   //   { type: null, value: [17, 22] }, { type: [24, 27], value: [28, 29] }] }
 */
export function signatureParts(text: string): SignatureParts | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const args: { type: Range | null; value: Range }[] = [];
  let start = open + 1;
  let colon = -1;
  let quoted = false;
  for (let i = open + 1; i <= close; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
      continue;
    }
    if (char === '"') quoted = true;
    else if (char === ":" && colon < 0) colon = i;
    else if (char === "," || i === close) {
      args.push(
        colon < 0
          ? { type: null, value: trimmed(text, start, i) }
          : { type: trimmed(text, start, colon), value: trimmed(text, colon + 1, i) },
      );
      start = i + 1;
      colon = -1;
    }
  }
  return { predicate: trimmed(text, 0, open), args };
}
