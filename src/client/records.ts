/**
 * Reading a facts file record by record, with the line each record starts on: JSON lines (one
 * value per line, blank lines skipped) or one JSON array, told apart by the first character.
 * The file is streamed; only the record being read is held in memory, and a record longer than
 * `MAX_RECORD_CHARS` is an error (so that `/dev/zero` is refused, not read until memory ends).
 */
import { createReadStream } from "node:fs";

/** The longest record (a line, or an element of the array) read, in UTF-16 code units. */
const MAX_RECORD_CHARS = 1 << 20;

export type FileRecord =
  | { readonly line: number; readonly value: unknown }
  | { readonly line: number; readonly error: string };

/**
 * Yields each record of a file, or an `error` record (and stops) at the first text that is
 * not JSON.
 *
 * @example
 * for await (const record of readRecords("facts.jsonl")) console.log(record.line);
 */
export async function* readRecords(
  chunks: AsyncIterable<string> | string,
  maxRecordChars = MAX_RECORD_CHARS,
): AsyncGenerator<FileRecord> {
  const reader = new RecordReader(maxRecordChars);
  for await (const chunk of typeof chunks === "string" ? fileChunks(chunks) : chunks) {
    for (const record of reader.push(chunk)) {
      yield record;
      if ("error" in record) return;
    }
  }
  for (const record of reader.end()) yield record;
}

async function* fileChunks(path: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 16 });
  for await (const chunk of stream) yield chunk as string;
}

/** A push parser: feed text, get the records completed so far. */
class RecordReader {
  private format: "lines" | "array" | null = null;
  private started = false;
  /** The current line (1-based) at the end of the text seen so far. */
  private line = 1;
  /** Text of the record being read, and the line it started on. */
  private pending = "";
  private pendingLine = 1;
  // Array mode: nesting depth (1 inside the top-level array), string state.
  private depth = 0;
  private inString = false;
  private escaped = false;
  private closed = false;
  private afterComma = false;

  constructor(private readonly maxRecordChars: number) {}

  /** The error record for a record that grew past the limit, starting on `line`. */
  private tooLong(line: number): FileRecord {
    const what = this.format === "lines" ? `line ${line}` : `the record starting on line ${line}`;
    return { line, error: `${what} is longer than ${this.maxRecordChars} characters` };
  }

  *push(text: string): Generator<FileRecord> {
    // A byte order mark before the first record is not part of it.
    const chunk = this.format === null && !this.started ? text.replace(/^\uFEFF/, "") : text;
    this.started = true;
    if (this.format === null) {
      const first = /\S/.exec(chunk);
      if (!first) {
        this.line += count(chunk, "\n");
        return;
      }
      this.format = first[0] === "[" ? "array" : "lines";
    }
    yield* this.format === "lines" ? this.lines(chunk) : this.array(chunk);
  }

  *end(): Generator<FileRecord> {
    if (this.format === "lines") {
      if (this.pending.trim() !== "") yield parseRecord(this.pending, this.pendingLine);
    } else if (this.format === "array" && !this.closed) {
      yield { line: this.line, error: "the JSON array is not closed with `]`" };
    }
  }

  private *lines(chunk: string): Generator<FileRecord> {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      const text = this.pending + chunk.slice(start, newline);
      this.pending = "";
      if (text.length > this.maxRecordChars) {
        yield this.tooLong(this.line);
        return;
      }
      if (text.trim() !== "") yield parseRecord(text, this.line);
      this.line++;
      start = newline + 1;
    }
    if (this.pending === "") this.pendingLine = this.line;
    if (this.pending.length + chunk.length - start > this.maxRecordChars) {
      yield this.tooLong(this.pendingLine);
      return;
    }
    this.pending += chunk.slice(start);
  }

  private *array(chunk: string): Generator<FileRecord> {
    let start = -1; // where the current record's text begins in this chunk
    if (this.pending !== "") start = 0;
    const flush = (end: number) => {
      const text = this.pending + chunk.slice(start, end);
      this.pending = "";
      start = -1;
      return text;
    };
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk[i]!;
      if (char === "\n") this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === "\\") this.escaped = true;
        else if (char === '"') this.inString = false;
        continue;
      }
      if (char === " " || char === "\t" || char === "\r" || char === "\n") continue;
      if (this.closed) {
        yield { line: this.line, error: `unexpected \`${char}\` after the closing \`]\`` };
        return;
      }
      if (this.depth === 0) {
        if (char !== "[") {
          yield { line: this.line, error: `expected \`[\`, found \`${char}\`` };
          return;
        }
        this.depth = 1;
        continue;
      }
      if (this.depth === 1 && (char === "," || char === "]")) {
        if (start !== -1) {
          if (this.pending.length + i - start > this.maxRecordChars) {
            yield this.tooLong(this.pendingLine);
            return;
          }
          yield parseRecord(flush(i), this.pendingLine);
        } else if (char === "," || this.afterComma) {
          const problem =
            char === "," ? "a `,` has no record before it" : "a `,` is followed by `]`";
          yield { line: this.line, error: problem };
          return;
        }
        this.afterComma = char === ",";
        if (char === "]") this.closed = true;
        continue;
      }
      if (start === -1 && this.depth === 1) {
        start = i;
        this.pendingLine = this.line;
      }
      if (char === '"') this.inString = true;
      else if (char === "[" || char === "{") this.depth++;
      else if (char === "]" || char === "}") this.depth--;
    }
    if (start !== -1) {
      if (this.pending.length + chunk.length - start > this.maxRecordChars) {
        yield this.tooLong(this.pendingLine);
        return;
      }
      this.pending += chunk.slice(start);
    }
  }
}

function parseRecord(text: string, line: number): FileRecord {
  try {
    return { line, value: JSON.parse(text) };
  } catch (error) {
    const reason = (error as Error).message.replace(/^./, (c) => c.toLowerCase());
    return { line, error: `not valid JSON: ${reason}` };
  }
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}
