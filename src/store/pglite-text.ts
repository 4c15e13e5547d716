/**
 * PGlite decodes each text field of an answer with a default `TextDecoder`, which takes a
 * leading U+FEFF for a byte-order mark and drops it: `select '\uFEFFx'::text` answers `x`, so
 * an id that begins with U+FEFF never matched itself on the embedded store. PostgreSQL has no
 * byte-order marks in its texts; the mark is part of the value.
 *
 * The decoder belongs to PGlite's message reader, which its parser keeps in a private field.
 * `keepLeadingByteOrderMarks` finds the reader's class while a parser is constructed (the
 * library's private fields are WeakMap entries) and gives it a `string` that keeps the mark.
 * It changes every PGlite instance of the process, which is what PostgreSQL's texts need.
 * test/pglite-text.test.ts fails if a release of PGlite moves the reader out of reach.
 */
import { protocol } from "@electric-sql/pglite";

/** PGlite's reader, as far as this module uses it: `bytes` reads and advances the offset. */
interface MessageReader {
  bytes(length: number): Uint8Array;
  string(length: number): string;
}

const keepingMarks = new TextDecoder("utf-8", { ignoreBOM: true });

let patched: boolean | null = null;

function isReader(value: unknown): value is MessageReader {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as MessageReader).bytes === "function" &&
    typeof (value as MessageReader).string === "function"
  );
}

/** The prototype of the reader a new PGlite parser makes, or null when it cannot be seen. */
function readerPrototype(): MessageReader | null {
  const set = WeakMap.prototype.set;
  let reader: MessageReader | null = null;
  WeakMap.prototype.set = function (this: WeakMap<object, unknown>, key: object, value: unknown) {
    if (reader === null && isReader(value)) reader = value;
    return set.call(this, key, value);
  };
  try {
    new protocol.Parser();
  } finally {
    WeakMap.prototype.set = set;
  }
  return reader === null ? null : (Object.getPrototypeOf(reader) as MessageReader);
}

/** Makes PGlite keep a text's leading U+FEFF; true when it does (idempotent). */
export function keepLeadingByteOrderMarks(): boolean {
  if (patched !== null) return patched;
  const prototype = readerPrototype();
  patched = prototype !== null;
  if (prototype !== null) {
    prototype.string = function (this: MessageReader, length: number) {
      return keepingMarks.decode(this.bytes(length));
    };
  }
  return patched;
}
