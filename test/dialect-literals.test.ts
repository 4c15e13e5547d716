/**
 * Every registered dialect's literals (src/dialects/registry.ts), side by side: the literal each
 * writes for a value, and the value its engine reads back from `select <literal> as v`
 * (test/dialect-runners.ts); values a dialect's engine cannot hold are refused, not written.
 * The text checks run for every dialect; the engine round trip is skipped where this run has no
 * engine for it (MariaDB without MARIADB_URL).
 */
import { describe, expect, it } from "vitest";
import type { Value } from "../src/core/value.js";
import { DIALECT_NAMES, DIALECTS, type DialectName } from "../src/dialects/registry.js";
import { RUNNERS } from "./dialect-runners.js";

const text = (id: string): Value => ({ type: "String", id });

/** Values and the literal each dialect writes for them in a select list. */
const WRITTEN: readonly {
  readonly value: Value;
  readonly literal: { readonly [Name in DialectName]: string };
}[] = [
  {
    value: text("it's"),
    literal: {
      postgres: "cast('it''s' as text)",
      mysql: "_utf8mb4 X'69742773'",
      sqlite: "'it''s'",
    },
  },
  {
    value: text("a\\b -- c"),
    literal: {
      postgres: "cast(E'a\\\\b -- c' as text)",
      mysql: "_utf8mb4 X'615C62202D2D2063'",
      sqlite: "'a\\b -- c'",
    },
  },
  {
    value: text("line\nbreak"),
    literal: {
      postgres: "cast('line\nbreak' as text)",
      mysql: "_utf8mb4 X'6C696E650A627265616B'",
      sqlite: "cast(x'6c696e650a627265616b' as text)",
    },
  },
  {
    value: text("ünï 😀"),
    literal: {
      postgres: "cast('ünï 😀' as text)",
      mysql: "_utf8mb4 X'C3BC6EC3AF20F09F9880'",
      sqlite: "'ünï 😀'",
    },
  },
  {
    value: { type: "Integer", id: "-9223372036854775808" },
    literal: {
      postgres: "(-9223372036854775808)",
      mysql: "(-9223372036854775808)",
      sqlite: "(-9223372036854775808)",
    },
  },
  {
    value: { type: "Integer", id: "9223372036854775807" },
    literal: {
      postgres: "9223372036854775807",
      mysql: "9223372036854775807",
      sqlite: "9223372036854775807",
    },
  },
  {
    value: { type: "Boolean", id: "true" },
    literal: { postgres: "true", mysql: "true", sqlite: "true" },
  },
];

/** Values no dialect writes: an unpaired surrogate (drivers would send U+FFFD instead). */
const REFUSED: readonly Value[] = [
  text("a\uD800b"),
  { type: "Integer", id: "9223372036854775808" },
];

/** The value as the engine's driver returns it, as text. */
function readBack(dialect: DialectName, value: Value): string {
  if (value.type !== "Boolean" || DIALECTS[dialect].truth === "booleans") return value.id;
  return value.id === "true" ? "1" : "0";
}

it("every value states its literal for each registered dialect", () => {
  for (const { value, literal } of WRITTEN) {
    expect(Object.keys(literal).sort(), value.id).toEqual([...DIALECT_NAMES].sort());
  }
});

describe.each(DIALECT_NAMES)("%s", (dialect) => {
  const rules = DIALECTS[dialect];

  it.each(WRITTEN)("writes $value.type $value.id", ({ value, literal }) => {
    expect(rules.canWrite(value, undefined)).toBe(true);
    expect(rules.literal(value, undefined, true)).toBe(literal[dialect]);
  });

  it.each(REFUSED)("refuses $type $id", (value) => {
    expect(rules.canWrite(value, undefined)).toBe(false);
    expect(() => rules.literal(value, undefined, true)).toThrow();
  });

  it.each(WRITTEN)("sends $value.type $value.id as a parameter as it is", ({ value }) => {
    const sent = rules.parameter(value, undefined);
    expect(sent).toBe(readBack(dialect, value));
  });

  it.each(REFUSED)("refuses $type $id as a parameter too", (value) => {
    expect(() => rules.parameter(value, undefined)).toThrow();
  });

  const open = RUNNERS[dialect];
  describe.skipIf(open === null)("on its engine", () => {
    it("reads every literal back as the value written", async () => {
      const runner = await open!();
      for (const { value } of WRITTEN) {
        const sql = `select ${rules.literal(value, undefined, true)} as v`;
        const [row] = await runner.query(sql, []);
        expect(String(row!.v), `${runner.engine}: ${sql}`).toBe(readBack(dialect, value));
      }
    });
  });
});
