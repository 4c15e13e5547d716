/**
 * `Type:id` values of the command-line client: every id survives formatting and parsing
 * exactly, hostile characters included; wildcards; facts files read record by record with
 * the line each record starts on, however the file is cut into chunks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FileRecord, readRecords } from "../src/client/records.js";
import {
  formatFact,
  formatId,
  formatValue,
  parsePattern,
  parseValue,
} from "../src/client/values.js";
import { hostileId } from "./support/hostile-ids.js";
import { propertyRuns } from "./support/runs.js";

const typeName = fc.constantFrom("User", "Doc", "A::B", "Ünïcode", "T_1");

describe("values", () => {
  it("parseValue(formatValue(v)) is v, for every id", () => {
    fc.assert(
      fc.property(typeName, hostileId, (type, id) => {
        expect(parseValue(formatValue({ type, id }))).toEqual({ ok: true, value: { type, id } });
        expect(parsePattern(formatValue({ type, id }))).toEqual({ ok: true, value: { type, id } });
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('a raw id is taken verbatim unless it starts with `"` or `:` or is `_`', () => {
    fc.assert(
      fc.property(typeName, hostileId, (type, id) => {
        fc.pre(!id.startsWith('"') && !id.startsWith(":") && id !== "_");
        expect(parseValue(`${type}:${id}`)).toEqual({ ok: true, value: { type, id } });
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("writes plain ids bare and the others as JSON strings", () => {
    expect(formatValue({ type: "User", id: "bob" })).toBe("User:bob");
    expect(formatValue({ type: "Doc", id: "urn:x/y@z.1-2+3" })).toBe("Doc:urn:x/y@z.1-2+3");
    expect(formatValue({ type: "Doc", id: "日本" })).toBe("Doc:日本");
    expect(formatValue({ type: "Doc", id: "a, b" })).toBe('Doc:"a, b"');
    expect(formatValue({ type: "Doc", id: 'say "hi"\t\\' })).toBe('Doc:"say \\"hi\\"\\t\\\\"');
    expect(formatValue({ type: "Doc", id: "_" })).toBe('Doc:"_"');
    expect(formatValue({ type: "Doc", id: ":x" })).toBe('Doc:":x"');
    expect(formatId("*")).toBe('"*"');
  });

  it("reads types with `::`, quoted ids and raw ids with colons", () => {
    expect(parseValue("A::B:x")).toEqual({ ok: true, value: { type: "A::B", id: "x" } });
    expect(parseValue("A::x")).toEqual({ ok: true, value: { type: "A", id: ":x" } });
    expect(parseValue("Doc:a b, c")).toEqual({ ok: true, value: { type: "Doc", id: "a b, c" } });
    expect(parseValue('Doc:"_"')).toEqual({ ok: true, value: { type: "Doc", id: "_" } });
  });

  it("reads wildcards only as patterns", () => {
    expect(parsePattern("_")).toEqual({ ok: true, value: { type: null, id: null } });
    expect(parsePattern("User:_")).toEqual({ ok: true, value: { type: "User", id: null } });
    expect(parseValue("User:_")).toEqual({
      ok: false,
      message: '`User:_` is a wildcard; write `User:"_"` for the id _',
    });
  });

  it.each([
    ["", "an empty argument is not a value"],
    ["User:", "`User:` has no id after the colon"],
    ['User:"bob', '`User:"bob`: a quoted id must be one JSON string literal'],
    ['User:"a" "b"', '`User:"a" "b"`: a quoted id must be one JSON string literal'],
    ['User:""', '`User:""` has an empty id'],
    ['""', '`""` has an empty string'],
    ['"a', '`"a`: a quoted string must be one JSON string literal'],
    ["_:bob", "`_:bob`: an id needs a type"],
    ["_", '`_` is a wildcard; write `"_"` or `String:"_"` for the string _'],
  ])("refuses %j", (text, message) => {
    expect(parseValue(text)).toEqual({ ok: false, message });
  });

  it("reads what is not `Type:id` as a String, as Oso's CLI does", () => {
    const string = (id: string) => ({ ok: true, value: { type: "String", id } });
    expect(parseValue("owner")).toEqual(string("owner"));
    expect(parseValue("42")).toEqual(string("42"));
    expect(parseValue(":bob")).toEqual(string(":bob"));
    expect(parseValue("read only")).toEqual(string("read only"));
    expect(parseValue('"a:b"')).toEqual(string("a:b"));
    expect(parseValue('"_"')).toEqual(string("_"));
    expect(parseValue("String:owner")).toEqual(string("owner"));
    expect(parsePattern("owner")).toEqual(string("owner"));
    expect(parsePattern("_:_")).toEqual({ ok: true, value: { type: null, id: null } });
  });

  it("a bare word is the String it spells, for every word that is not `Type:id` or `_`", () => {
    fc.assert(
      fc.property(hostileId, (word) => {
        fc.pre(word !== "_" && !word.startsWith('"') && !/^[^\s:"]+(?:::[^\s:"]+)*:/.test(word));
        expect(parseValue(word)).toEqual({ ok: true, value: { type: "String", id: word } });
        // What `facts get` prints for it reads back as the same value.
        const printed = formatValue({ type: "String", id: word });
        expect(parseValue(printed)).toEqual({ ok: true, value: { type: "String", id: word } });
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("formats a fact on one line", () => {
    const fact = {
      predicate: "has_role",
      args: [
        { type: "User", id: "a b" },
        { type: "String", id: "member" },
      ],
    };
    expect(formatFact(fact)).toBe('has_role User:"a b" String:member');
  });
});

async function collect(chunks: readonly string[]): Promise<FileRecord[]> {
  async function* source() {
    yield* chunks;
  }
  const out: FileRecord[] = [];
  for await (const record of readRecords(source())) out.push(record);
  return out;
}

/** `text` cut at the given offsets. */
function cut(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(text.slice(start, point));
    start = point;
  }
  chunks.push(text.slice(start));
  return chunks;
}

describe("facts files", () => {
  const facts = [
    { predicate: "p", args: [{ type: "User", id: 'a"\n],{' }] },
    { predicate: "q", args: [] },
    { predicate: "r", args: [{ type: "T", id: "日本\\" }] },
  ];

  it("reads JSON lines with line numbers, skipping blank lines", async () => {
    const text = `\n${JSON.stringify(facts[0])}\n\n${JSON.stringify(facts[1])}\r\n${JSON.stringify(facts[2])}`;
    expect(await collect([text])).toEqual([
      { line: 2, value: facts[0] },
      { line: 4, value: facts[1] },
      { line: 5, value: facts[2] },
    ]);
  });

  it("reads a JSON array with the line each element starts on", async () => {
    const text = `[\n  ${JSON.stringify(facts[0])},\n  ${JSON.stringify(facts[1], null, 2)},\n${JSON.stringify(facts[2])}\n]\n`;
    expect(await collect([text])).toEqual([
      { line: 2, value: facts[0] },
      { line: 3, value: facts[1] },
      { line: 7, value: facts[2] },
    ]);
    expect(await collect(["[]"])).toEqual([]);
    expect(await collect(["\uFEFF[", JSON.stringify(facts[1]), "]"])).toEqual([
      { line: 1, value: facts[1] },
    ]);
    expect(await collect(["\uFEFF", JSON.stringify(facts[1])])).toEqual([
      { line: 1, value: facts[1] },
    ]);
    expect(await collect(["  \n"])).toEqual([]);
  });

  it("gives the same records however the text is cut into chunks", async () => {
    const lines = facts.map((f) => JSON.stringify(f)).join("\n");
    const array = `[\n${facts.map((f) => JSON.stringify(f, null, 1)).join(",\n")}\n]`;
    const whole = { lines: await collect([lines]), array: await collect([array]) };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (offsets) => {
        expect(await collect(cut(lines, offsets))).toEqual(whole.lines);
        expect(await collect(cut(array, offsets))).toEqual(whole.array);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it.each([
    ['{"predicate": "p"}\n{oops}\n{"predicate": "q"}', 2, /^not valid JSON: /],
    ['[\n{"a": 1},\n{oops}\n]', 3, /^not valid JSON: /],
    ['[\n{"a": 1},\n]', 3, /^a `,` is followed by `]`$/],
    ["[\n,\n]", 2, /^a `,` has no record before it$/],
    ['[\n{"a": 1}\n', 3, /^the JSON array is not closed with `\]`$/],
    ['[{"a": 1}]\n[', 2, /^unexpected `\[` after the closing `\]`$/],
  ])("names the line of a bad record: %j", async (text, line, message) => {
    const records = await collect([text]);
    const last = records.at(-1)!;
    expect(last.line).toBe(line);
    expect("error" in last && last.error).toMatch(message);
    expect(records.filter((r) => "error" in r)).toHaveLength(1);
  });
});
