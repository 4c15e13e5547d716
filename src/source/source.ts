/** A half-open range `[start, end)` of UTF-16 offsets into one source file. */
export interface Span {
  readonly file: string;
  readonly start: number;
  readonly end: number;
}

/** One policy file as given by the caller. */
export interface SourceFile {
  readonly name: string;
  readonly text: string;
}

export interface Position {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, counted in UTF-16 code units. */
  readonly column: number;
}

const lineStartsCache = new WeakMap<SourceFile, readonly number[]>();

function lineStarts(source: SourceFile): readonly number[] {
  let starts = lineStartsCache.get(source);
  if (!starts) {
    const found = [0];
    for (let i = 0; i < source.text.length; i++) {
      if (source.text.charCodeAt(i) === 10) found.push(i + 1);
    }
    starts = found;
    lineStartsCache.set(source, starts);
  }
  return starts;
}

/** Line and column of an offset (binary search over line starts). */
export function positionOf(source: SourceFile, offset: number): Position {
  const starts = lineStarts(source);
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - starts[low]! + 1 };
}

/** The text of line `line` (1-based) without its line break. */
export function lineText(source: SourceFile, line: number): string {
  const starts = lineStarts(source);
  const start = starts[line - 1] ?? source.text.length;
  const next = starts[line];
  const end = next === undefined ? source.text.length : next - 1;
  return source.text.slice(start, end).replace(/\r$/, "");
}
