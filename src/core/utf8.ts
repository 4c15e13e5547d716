/**
 * UTF-8 length of a string without Node's `Buffer`, so that the checker and the printer also run
 * in the browser (the playground, docs/playground.md). Equals `Buffer.byteLength(text, "utf8")`:
 * a lone surrogate counts as the 3 bytes of the replacement character.
 *
 * @example
 * utf8Length("é€😀"); // 2 + 3 + 4 = 9
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
