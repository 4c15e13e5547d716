import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INTEGER_MAX, INTEGER_MIN, type Value } from "../src/core/value.js";
import {
  quoteIdentifier,
  quoteString,
  renderInteger,
  renderTypedLiteral,
  renderValue,
  sqlTypeOf,
} from "../src/dialects/postgres/literal.js";
import { LiteralError } from "../src/sql/literal-error.js";
import { castTypeName, normalizeSqlType, sqlTypeFamily } from "../src/sql/sql-type.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

const ticket = (id: string): Value => ({ type: "Ticket", id });
const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");
const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");
/** SQL for the UTF-8 bytes of `expression` in hex. Compared as bytes because PGlite's result
 * decoder drops a leading U+FEFF from text values. */
const hexOf = (expression: string) => `encode(convert_to(${expression}, 'UTF8'), 'hex')`;

/** Pieces that break naive quoting, comment or statement handling. */
const hostilePiece = fc.constantFrom(
  "'",
  "''",
  "\\",
  "\\'",
  "\\\\",
  ";",
  "--",
  "$$",
  "$a$",
  "/*",
  "*/",
  '"',
  "E'",
  "\n",
  "\r\n",
  "\t",
  " ",
  "SELECT",
  "DROP TABLE t",
  "'); DELETE FROM x; --",
  "$1",
  "?",
  "%",
  "😀",
  "𝔘",
  "é",
  "中",
  "\u2028",
  "\uFEFF",
  "\u0001",
);

/** Pads or trims a string to exactly 384 UTF-8 bytes, the Polar limit for a fact argument. */
function exactly384Bytes(seed: string): string {
  let text = "";
  for (const char of seed.repeat(Math.ceil(384 / Math.max(1, utf8Bytes(seed))) + 1)) {
    if (utf8Bytes(text + char) > 384) break;
    text += char;
  }
  return text.padEnd(text.length + 384 - utf8Bytes(text), "'");
}

const storable = (text: string) =>
  !text.includes("\u0000") &&
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

const hostileString = fc
  .oneof(
    fc
      .array(fc.oneof(hostilePiece, fc.string({ unit: "binary", maxLength: 6 })), { maxLength: 12 })
      .map((pieces) => pieces.join("")),
    fc.string({ unit: "binary" }),
    fc.constant(""),
    fc.array(hostilePiece, { minLength: 1, maxLength: 5 }).map((p) => exactly384Bytes(p.join(""))),
  )
  .filter(storable);

const anyInteger = fc.oneof(
  fc.bigInt(INTEGER_MIN, INTEGER_MAX),
  fc.constantFrom(INTEGER_MIN, INTEGER_MIN + 1n, -1n, 0n, 1n, INTEGER_MAX - 1n, INTEGER_MAX),
);

describe("quoteString", () => {
  it("doubles single quotes", () => {
    expect(quoteString("it's")).toBe("'it''s'");
    expect(quoteString("")).toBe("''");
  });
  it("writes strings with backslashes as escape strings", () => {
    expect(quoteString("a\\b'")).toBe("E'a\\\\b'''");
  });
  it("refuses NUL and unpaired surrogates", () => {
    expect(() => quoteString("a\u0000b")).toThrow(LiteralError);
    expect(() => quoteString("a\u0000b")).toThrow(
      "string contains U+0000 (NUL), which PostgreSQL text cannot hold",
    );
    expect(() => quoteString("a\uD800b")).toThrow("string contains an unpaired UTF-16 surrogate");
    expect(() => quoteString("\uDC00")).toThrow(LiteralError);
    expect(quoteString("😀")).toBe("'😀'");
  });
});

describe("quoteIdentifier", () => {
  it("always double-quotes and doubles double quotes", () => {
    expect(quoteIdentifier("ticketId")).toBe('"ticketId"');
    expect(quoteIdentifier('a "b"')).toBe('"a ""b"""');
  });
  it("refuses empty, NUL, unpaired surrogates and names over 63 bytes", () => {
    expect(() => quoteIdentifier("")).toThrow("identifier is empty");
    expect(() => quoteIdentifier("a\u0000")).toThrow("identifier contains U+0000 (NUL)");
    expect(() => quoteIdentifier("\uD800")).toThrow("unpaired UTF-16 surrogate");
    expect(quoteIdentifier("x".repeat(63))).toBe(`"${"x".repeat(63)}"`);
    expect(() => quoteIdentifier("é".repeat(32))).toThrow(
      `identifier \`${"é".repeat(32)}\` is longer than 63 bytes, the PostgreSQL limit`,
    );
  });
});

describe("renderInteger", () => {
  it("prints canonical integers, negative ones in parentheses", () => {
    expect(renderInteger("42")).toBe("42");
    expect(renderInteger("+007")).toBe("7");
    expect(renderInteger("-0")).toBe("0");
    expect(renderInteger("-5")).toBe("(-5)");
    expect(renderInteger("-9223372036854775808")).toBe("(-9223372036854775808)");
  });
  it("refuses anything that is not a 64-bit integer", () => {
    expect(() => renderInteger("9223372036854775808")).toThrow(
      "`9223372036854775808` is not a 64-bit integer",
    );
    expect(() => renderInteger("1; DROP TABLE t")).toThrow(LiteralError);
    expect(() => renderInteger("1.5")).toThrow(LiteralError);
    expect(() => renderInteger("")).toThrow(LiteralError);
  });
});

describe("normalizeSqlType", () => {
  it("lowercases, collapses spaces and reads `string` as text", () => {
    expect(normalizeSqlType("BIGINT")).toBe("bigint");
    expect(normalizeSqlType("  Character   VARYING ( 20 ) ")).toBe("character varying(20)");
    expect(normalizeSqlType("numeric(10,2)")).toBe("numeric(10, 2)");
    expect(normalizeSqlType("String")).toBe("text");
    expect(normalizeSqlType("timestamp with time zone")).toBe("timestamp with time zone");
  });
  it("refuses anything that could alter SQL structure", () => {
    for (const bad of [
      "",
      "text)",
      "text; drop table t",
      "text -- x",
      "text /* x */",
      "int[]",
      "public.citext",
      '"Text"',
      "1int",
      "varchar(a)",
      "x".repeat(101),
    ]) {
      expect(normalizeSqlType(bad), bad).toBeNull();
    }
  });
  it("classifies families and cast names", () => {
    for (const name of ["smallint", "int", "integer", "int2", "int4", "int8", "bigint", "serial"]) {
      expect(sqlTypeFamily(name)).toBe("integer");
    }
    expect(sqlTypeFamily("bigserial")).toBe("integer");
    expect(sqlTypeFamily("numeric(10, 2)")).toBe("decimal");
    expect(sqlTypeFamily("decimal")).toBe("decimal");
    expect(sqlTypeFamily("uuid")).toBe("uuid");
    expect(sqlTypeFamily("text")).toBe("other");
    expect(castTypeName("varchar(20)")).toBe("varchar");
    expect(castTypeName("character(5)")).toBe("bpchar");
    expect(castTypeName("bigserial")).toBe("bigint");
    expect(castTypeName("character varying(9)")).toBe("character varying");
  });
});

describe("renderValue (§5.3)", () => {
  it("renders primitives", () => {
    expect(renderValue({ type: "String", id: "it's" })).toBe("'it''s'");
    expect(renderValue({ type: "Integer", id: "-12" })).toBe("(-12)");
    expect(renderValue({ type: "Boolean", id: "true" })).toBe("true");
    expect(renderValue({ type: "Boolean", id: "false" })).toBe("false");
    expect(renderValue({ type: "String", id: "42" }, "integer")).toBe("'42'");
  });
  it("refuses malformed primitives", () => {
    expect(() => renderValue({ type: "Integer", id: "x" })).toThrow("`x` is not a 64-bit integer");
    expect(() => renderValue({ type: "Boolean", id: "yes" })).toThrow("`yes` is not a boolean");
  });
  it("renders entity ids of the integer family bare, and drops ids that are not integers", () => {
    for (const sqlType of ["smallint", "INT", "integer", "int4", "int8", "bigint", "bigserial"]) {
      expect(renderValue(ticket("42"), sqlType)).toBe("42");
      expect(renderValue(ticket("-42"), sqlType)).toBe("(-42)");
      expect(renderValue(ticket("abc"), sqlType)).toBeNull();
      expect(renderValue(ticket("4 2"), sqlType)).toBeNull();
      expect(renderValue(ticket("042"), sqlType)).toBeNull();
      expect(renderValue(ticket("+42"), sqlType)).toBeNull();
      expect(renderValue(ticket("-0"), sqlType)).toBeNull();
      expect(renderValue(ticket("9223372036854775808"), sqlType)).toBeNull();
      expect(renderValue(ticket("1.5"), sqlType)).toBeNull();
    }
  });
  it("renders decimals bare for numeric and decimal", () => {
    expect(renderValue(ticket("1.50"), "numeric(10,2)")).toBe("1.50");
    expect(renderValue(ticket("-3"), "decimal")).toBe("(-3)");
    expect(renderValue(ticket("1e5"), "numeric")).toBeNull();
    expect(renderValue(ticket("01"), "numeric")).toBeNull();
    expect(renderValue(ticket(".5"), "numeric")).toBeNull();
    expect(renderValue(ticket("NaN"), "numeric")).toBeNull();
    expect(renderValue(ticket("-0.0"), "numeric")).toBeNull();
  });
  it("quotes uuid ids and drops ids that are not uuids", () => {
    const id = "0b8c2f2e-5e0b-4c35-9f1d-3a4c3b2a1f00";
    expect(renderValue(ticket(id), "uuid")).toBe(`'${id}'`);
    expect(renderTypedLiteral(ticket(id), "UUID")).toBe(`cast('${id}' as uuid)`);
    expect(renderValue(ticket("not-a-uuid"), "uuid")).toBeNull();
    expect(renderValue(ticket(`'${id}'`), "uuid")).toBeNull();
  });
  it("quotes ids for other SQL types and without one", () => {
    expect(renderValue(ticket("o'k"), "varchar(20)")).toBe("'o''k'");
    expect(renderValue(ticket("o'k"))).toBe("'o''k'");
    expect(renderValue(ticket("42"), "text")).toBe("'42'");
  });
  it("refuses an SQL type name that is not a plain type name", () => {
    expect(() => renderValue(ticket("1"), "int); DROP TABLE t; --")).toThrow(
      "invalid SQL type name `int); DROP TABLE t; --`",
    );
  });
});

describe("renderTypedLiteral", () => {
  it("casts quoted strings to their SQL type, without length modifiers", () => {
    expect(renderTypedLiteral({ type: "String", id: "a" })).toBe("cast('a' as text)");
    expect(renderTypedLiteral(ticket("a"))).toBe("cast('a' as text)");
    expect(renderTypedLiteral(ticket("abc"), "varchar(2)")).toBe("cast('abc' as varchar)");
    expect(renderTypedLiteral(ticket("abc"), "char(2)")).toBe("cast('abc' as bpchar)");
    expect(renderTypedLiteral(ticket("7"), "bigint")).toBe("7");
    expect(renderTypedLiteral(ticket("x"), "bigint")).toBeNull();
    expect(renderTypedLiteral({ type: "Integer", id: "7" })).toBe("7");
    expect(renderTypedLiteral({ type: "Boolean", id: "false" })).toBe("false");
  });
  it("names the SQL type of each Polar type", () => {
    expect(sqlTypeOf("Ticket")).toBe("text");
    expect(sqlTypeOf("Boolean")).toBe("boolean");
    expect(sqlTypeOf("Ticket", "serial")).toBe("integer");
    expect(() => sqlTypeOf("Ticket", "text)")).toThrow(LiteralError);
  });
});

describe("integer sql types refuse every id that is not a canonical integer", () => {
  it("holds for all strings", () => {
    fc.assert(
      fc.property(fc.oneof(hostileString, fc.stringMatching(/^[+-]?0*[0-9]{1,20}$/)), (id) => {
        const rendered = renderValue(ticket(id), "bigint");
        const canonical = /^-?[0-9]+$/.test(id) && BigInt(id).toString() === id;
        const inRange = canonical && BigInt(id) >= INTEGER_MIN && BigInt(id) <= INTEGER_MAX;
        expect(rendered === null).toBe(!inRange);
        if (rendered !== null) expect(rendered).toMatch(/^(?:[0-9]+|\(-[0-9]+\))$/);
      }),
      { numRuns: propertyRuns(100, 500) },
    );
  });
});

describeEngines("round trips on $name", (engine) => {
  it("strings come back unchanged from a select list", async () => {
    const db = await engine.db();
    await fc.assert(
      fc.asyncProperty(hostileString, async (text) => {
        const rows = await db.query<{ v: string }>(`SELECT ${hexOf(quoteString(text))} AS v`);
        expect(rows).toEqual([{ v: hex(text) }]);
      }),
      { numRuns: propertyRuns(60, 300) },
    );
  });

  it("strings come back unchanged from typed VALUES rows", async () => {
    const db = await engine.db();
    const cases = fc.array(
      fc.record({ id: hostileString, sqlType: fc.constantFrom(undefined, "text", "varchar(3)") }),
      { minLength: 1, maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(cases, async (rows) => {
        const values = rows.map(
          (row, i) => `(${i}, ${renderTypedLiteral(ticket(row.id), row.sqlType)})`,
        );
        const sql = `SELECT ${hexOf("t.v")} AS v FROM (VALUES ${values.join(", ")}) AS t(i, v) ORDER BY t.i`;
        const result = await db.query<{ v: string }>(sql);
        expect(result.map((r) => r.v)).toEqual(rows.map((row) => hex(row.id)));
      }),
      { numRuns: propertyRuns(30, 150) },
    );
  });

  it("strings compare equal to the stored column value", async () => {
    const db = await engine.db();
    await db.exec("CREATE TABLE hostile_ids (id varchar(400))");
    await fc.assert(
      fc.asyncProperty(hostileString, async (text) => {
        await db.exec(
          `DELETE FROM hostile_ids; INSERT INTO hostile_ids VALUES (${quoteString(text)})`,
        );
        const literal = renderValue(ticket(text), "varchar(400)")!;
        const rows = await db.query<{ n: number }>(
          `SELECT CAST(count(*) AS integer) AS n FROM hostile_ids WHERE id = ${literal} AND id IN (${literal})`,
        );
        expect(rows).toEqual([{ n: 1 }]);
      }),
      { numRuns: propertyRuns(25, 100) },
    );
  });

  it("escape strings keep their meaning with standard_conforming_strings off", async () => {
    const db = await engine.db();
    await db.exec("SET standard_conforming_strings = off; SET escape_string_warning = off");
    try {
      await fc.assert(
        fc.asyncProperty(hostileString, async (text) => {
          const rows = await db.query<{ v: string }>(`SELECT ${hexOf(quoteString(text))} AS v`);
          expect(rows).toEqual([{ v: hex(text) }]);
        }),
        { numRuns: propertyRuns(30, 150) },
      );
    } finally {
      await db.exec("SET standard_conforming_strings = on; SET escape_string_warning = on");
    }
  });

  it("identifiers come back unchanged as column aliases", async () => {
    const db = await engine.db();
    const names = hostileString.filter((n) => n !== "" && utf8Bytes(n) <= 63);
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const sql = `SELECT ${hexOf("json_object_keys(to_json(t.*))")} AS k FROM (SELECT 1 AS ${quoteIdentifier(name)}) AS t`;
        expect(await db.query<{ k: string }>(sql)).toEqual([{ k: hex(name) }]);
      }),
      // `t` is also the row's alias: the row is still read as a whole.
      { numRuns: propertyRuns(40, 200), examples: [["t"]] },
    );
  });

  it("integers across the 64-bit range come back as bigint", async () => {
    const db = await engine.db();
    await fc.assert(
      fc.asyncProperty(anyInteger, async (n) => {
        const literal = renderValue({ type: "Integer", id: n.toString() })!;
        const entity = renderValue(ticket(n.toString()), "bigint")!;
        const rows = await db.query<{ v: string; t: string; e: string }>(
          `SELECT CAST(${literal} AS text) AS v, pg_typeof(CAST(${literal} AS bigint))::text AS t, CAST(${entity} AS text) AS e`,
        );
        expect(rows).toEqual([{ v: n.toString(), t: "bigint", e: n.toString() }]);
      }),
      { numRuns: propertyRuns(40, 200) },
    );
  });

  it("integer ids match integer columns directly and inside VALUES", async () => {
    const db = await engine.db();
    await db.exec(
      "CREATE TABLE int_ids (id bigint); INSERT INTO int_ids VALUES (-9223372036854775808), (-1), (0), (7), (9223372036854775807)",
    );
    const stored = ["-9223372036854775808", "-1", "0", "7", "9223372036854775807"];
    const ids = fc.oneof(fc.constantFrom(...stored), anyInteger.map(String));
    await fc.assert(
      fc.asyncProperty(ids, async (id) => {
        const literal = renderValue(ticket(id), "bigint")!;
        const typed = renderTypedLiteral(ticket(id), "bigint")!;
        const rows = await db.query<{ direct: boolean; joined: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM int_ids WHERE id = ${literal}) AS direct,
                  EXISTS (SELECT 1 FROM int_ids, (VALUES (${typed})) AS cs(v) WHERE int_ids.id = cs.v) AS joined`,
        );
        const expected = stored.includes(id);
        expect(rows).toEqual([{ direct: expected, joined: expected }]);
      }),
      { numRuns: propertyRuns(25, 100) },
    );
  });

  it("uuid, numeric and varchar ids compare with typed columns", async () => {
    const db = await engine.db();
    const uuid = "0b8c2f2e-5e0b-4c35-9f1d-3a4c3b2a1f00";
    await db.exec(
      `CREATE TABLE typed_ids (u uuid, n numeric(10, 2), s varchar(2)); INSERT INTO typed_ids VALUES ('${uuid}', 1.50, 'ab')`,
    );
    const check = async (where: string) =>
      (
        await db.query<{ n: number }>(
          `SELECT CAST(count(*) AS integer) AS n FROM typed_ids WHERE ${where}`,
        )
      )[0]!.n;
    expect(await check(`u = ${renderValue(ticket(uuid), "uuid")}`)).toBe(1);
    expect(
      await check(
        `u IN (SELECT v FROM (VALUES (${renderTypedLiteral(ticket(uuid), "uuid")})) AS x(v))`,
      ),
    ).toBe(1);
    expect(await check(`n = ${renderValue(ticket("1.50"), "numeric(10,2)")}`)).toBe(1);
    expect(await check(`s = ${renderValue(ticket("ab"), "varchar(2)")}`)).toBe(1);
    // An explicit cast to varchar(2) would truncate `abc` to `ab`; the cast drops the length.
    expect(
      await check(
        `s IN (SELECT v FROM (VALUES (${renderTypedLiteral(ticket("abc"), "varchar(2)")})) AS x(v))`,
      ),
    ).toBe(0);
    expect(await check(`s = CAST(NULL AS ${sqlTypeOf("Ticket", "varchar(2)")})`)).toBe(0);
  });
});
