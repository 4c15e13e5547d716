/**
 * The bindings scanner reads each dialect's literals and comments as its engine does
 * (src/dialects/<name>/lexical.ts): random strings written as each dialect's string literals scan as one
 * literal, leave the binding query one statement, and read back on the real engine as the same
 * string (PGlite and the PostgreSQL server, MariaDB, SQLite).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readBindingQuery, selectListWidth } from "../src/bindings/query.js";
import { scanSql } from "../src/bindings/scan.js";
import type { DialectName } from "../src/dialects/registry.js";
import { describeEngines } from "./support/databases.js";
import { describeDialects } from "./support/dialect-engines.js";
import { propertyRuns } from "./support/runs.js";

/** One way of writing a string as a literal of a dialect. */
interface Writer {
  readonly name: string;
  write(value: string): string;
}

const codePoints = (value: string) => [...value];

/** PostgreSQL: plain, `E'…'`, `U&'…'` and dollar-quoted strings. */
const POSTGRES_WRITERS: readonly Writer[] = [
  { name: "'…'", write: (v) => `'${v.replaceAll("'", "''")}'` },
  {
    name: "E'…'",
    write: (v) =>
      `E'${codePoints(v)
        .map((c, i) => {
          if (c === "\\") return "\\\\";
          if (c === "'") return i % 2 === 0 ? "\\'" : "''";
          if (c === "\n") return "\\n";
          if (c === "\t") return "\\t";
          const code = c.codePointAt(0)!;
          return i % 3 === 0 && code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : c;
        })
        .join("")}'`,
  },
  {
    name: "U&'…'",
    write: (v) =>
      `U&'${codePoints(v)
        .map((c, i) => {
          if (c === "\\") return "\\\\";
          if (c === "'") return "''";
          if (i % 2 === 1) return c;
          const code = c.codePointAt(0)!;
          return code > 0xffff
            ? `\\+${code.toString(16).padStart(6, "0")}`
            : `\\${code.toString(16).padStart(4, "0")}`;
        })
        .join("")}'`,
  },
  {
    name: "$tag$…$tag$",
    write: (v) => {
      let n = 0;
      // A tag that first occurs where the string ends.
      while (`${v}$t${n}$`.indexOf(`$t${n}$`) !== v.length) n++;
      return `$t${n}$${v}$t${n}$`;
    },
  },
];

/** MySQL and MariaDB (default sql_mode): `'…'` and `"…"`, with backslash escapes or doubling. */
const MYSQL_WRITERS: readonly Writer[] = [
  {
    name: "'…' with backslashes",
    write: (v) =>
      `'${codePoints(v)
        .map((c) =>
          c === "\\" ? "\\\\" : c === "'" ? "\\'" : c === "\n" ? "\\n" : c === "\t" ? "\\t" : c,
        )
        .join("")}'`,
  },
  {
    name: "'…' doubled",
    write: (v) => `'${v.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`,
  },
  {
    name: '"…"',
    write: (v) =>
      `"${codePoints(v)
        .map((c, i) => (c === "\\" ? "\\\\" : c === '"' ? (i % 2 ? '""' : '\\"') : c))
        .join("")}"`,
  },
];

/** SQLite: `'…'` with doubled quotes; a backslash is itself. */
const SQLITE_WRITERS: readonly Writer[] = [
  { name: "'…'", write: (v) => `'${v.replaceAll("'", "''")}'` },
];

/** Strings heavy in what lexers care about, and any other character but NUL and surrogates. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ...["'", '"', "\\", "$", "$$", "$t0$", ";", "--", "-- ", "#", "/*", "*/", "/*!", "?"],
        ...["`", "[", "]", "(", ")", "\n", "\t", "\r", "e'", "U&", " ", ":x", "@x", "%", "_"],
      ),
      fc
        .integer({ min: 1, max: 0x10ffff })
        .filter((code) => code < 0xd800 || code > 0xdfff)
        .map((code) => String.fromCodePoint(code)),
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(""));

interface Engine {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** The property for one engine: each writer's literal scans as one and reads back the same. */
function literalsRoundTrip(
  syntax: DialectName,
  writers: readonly Writer[],
  engine: () => Promise<Engine>,
) {
  return async () => {
    const db = await engine();
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        for (const writer of writers) {
          const literal = writer.write(value);
          const query = `SELECT ${literal} AS v`;
          const { tokens, unterminated } = scanSql(query, syntax);
          expect(unterminated, writer.name).toBeUndefined();
          expect(
            tokens.map((t) => [t.kind, t.text]),
            writer.name,
          ).toEqual([
            ["word", "SELECT"],
            ["literal", literal],
            ["word", "AS"],
            ["word", "v"],
          ]);
          const binding = `SELECT id FROM docs WHERE title <> ${literal}`;
          expect(readBindingQuery(binding, syntax)).toEqual({ kind: "query", query: binding });
          expect(selectListWidth(binding, syntax)?.columns).toBe(1);
          const [row] = await db.query(query);
          expect(row?.v, `${writer.name}: ${query}`).toBe(value);
        }
      }),
      { numRuns: propertyRuns(25, 250) },
    );
  };
}

describeEngines("PostgreSQL literals on $name", (engine) => {
  it(
    "scan as one literal and read back as the same string",
    literalsRoundTrip("postgres", POSTGRES_WRITERS, async () => {
      const db = await engine.db();
      return { query: (sql) => db.query(sql) };
    }),
  );
});

describeDialects("literals on $name", (engine) => {
  const syntax: DialectName = engine.dialect === "mysql" ? "mysql" : "sqlite";
  const writers = syntax === "mysql" ? MYSQL_WRITERS : SQLITE_WRITERS;
  it("scan as one literal and read back as the same string", async () => {
    if (syntax === "mysql") {
      // The rules are those of the default sql_mode.
      const db = await engine.db();
      const [mode] = await db.query<{ mode: string }>("SELECT @@sql_mode AS mode");
      expect(mode!.mode).not.toMatch(/ANSI_QUOTES|NO_BACKSLASH_ESCAPES/);
    }
    await literalsRoundTrip(syntax, writers, engine.db)();
  });
});

describe("each dialect's comments and quotes", () => {
  const read = (query: string, syntax: DialectName) => readBindingQuery(query, syntax);
  const defect = (query: string, syntax: DialectName) => {
    const result = read(query, syntax);
    return result.kind === "error" ? result.defect.kind : "query";
  };

  it("MySQL: backslash escapes, `#` and `-- ` comments, `--x` is not a comment", () => {
    expect(defect("SELECT id FROM docs WHERE title <> 'it\\'s'", "mysql")).toBe("query");
    expect(defect('SELECT id FROM docs WHERE title <> "say \\"hi\\"; bye"', "mysql")).toBe("query");
    expect(defect("SELECT id FROM docs # a comment; with a semicolon", "mysql")).toBe("query");
    expect(defect("SELECT id FROM docs -- a comment; too", "mysql")).toBe("query");
    // `--1` is minus minus one: what follows is SQL.
    expect(defect("SELECT id FROM docs WHERE n = 1 --1; DELETE FROM docs", "mysql")).toBe(
      "several-statements",
    );
    // The server runs the text of `/*! … */`.
    expect(defect("SELECT id FROM docs /*!50000 ; DELETE FROM docs */", "mysql")).toBe(
      "several-statements",
    );
    expect(defect("SELECT id FROM docs /*M! WHERE 1 */", "mysql")).toBe("query");
    expect(defect("SELECT id FROM docs /*! WHERE 1", "mysql")).toBe("unterminated");
    expect(defect("SELECT id FROM docs /* ; */", "mysql")).toBe("query");
    // In PostgreSQL the same backslash closes nothing: the string runs on.
    expect(defect("SELECT id FROM docs WHERE title <> 'it\\'s'", "postgres")).toBe("unterminated");
  });

  it("PostgreSQL: E'…', U&'…', dollar quotes and nested comments", () => {
    expect(defect("SELECT id FROM docs WHERE t <> E'it\\'s; x'", "postgres")).toBe("query");
    expect(defect("SELECT id FROM docs WHERE t <> U&'d\\0061t''a;'", "postgres")).toBe("query");
    expect(defect("SELECT id FROM docs WHERE t <> $q$ ' ; $q$", "postgres")).toBe("query");
    expect(defect("SELECT id FROM docs /* a /* b */ ; */", "postgres")).toBe("query");
    expect(defect("SELECT id FROM docs /* a /* b */ */ ; DELETE FROM docs", "postgres")).toBe(
      "several-statements",
    );
    // `#` is an operator in PostgreSQL, not a comment.
    expect(defect("SELECT id FROM docs # 1; DELETE FROM docs", "postgres")).toBe(
      "several-statements",
    );
    expect(scanSql('SELECT U&"d\\0061t"', "postgres").tokens[1]).toMatchObject({
      kind: "identifier",
      name: null,
    });
  });

  it("SQLite: no backslash escapes, bracketed names, block comments that do not nest", () => {
    expect(defect("SELECT id FROM docs WHERE t <> 'a\\'", "sqlite")).toBe("query");
    expect(defect("SELECT [a;b] FROM docs", "sqlite")).toBe("query");
    expect(defect("SELECT id FROM docs /* a /* b */ ; DELETE FROM docs", "sqlite")).toBe(
      "several-statements",
    );
    expect(defect("SELECT id FROM docs WHERE id = :id", "sqlite")).toBe("parameter");
  });
});

describe("the sql command reads the bindings in the syntax of its --dialect", () => {
  it("takes a MySQL backslash escape with --dialect mysql, refuses it for PostgreSQL", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { main } = await import("../src/cli/main.js");
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-lexical-"));
    const bindings = join(dir, "bindings.yaml");
    await writeFile(
      bindings,
      `facts:
  "has_relation(Issue:_, repository, Repository:_)":
    query: SELECT id, repo_id FROM issues WHERE title <> 'it\\'s'
`,
    );
    const run = async (dialect: string) => {
      const err: string[] = [];
      const out: string[] = [];
      const io = {
        stdout: (t: string) => out.push(t),
        stderr: (t: string) => err.push(t),
        isTTY: false,
      };
      const code = await main(
        [
          ...["sql", "authorize", "--dialect", dialect, "--bindings", bindings],
          ...["--policy", "examples/quickstart/policy.polar", "--actor", "User:1"],
          ...["--action", "read", "--resource", "Issue:2"],
        ],
        io,
      );
      return { code, out: out.join(""), err: err.join("") };
    };
    const mysql = await run("mysql");
    expect(mysql.code).toBe(0);
    expect(mysql.err).not.toContain("P701");
    const postgres = await run("postgres");
    expect(postgres.code).toBe(1);
    expect(postgres.err).toContain("has an unterminated string literal");
  });
});
