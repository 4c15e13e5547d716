/**
 * The database sessions' statements (src/dialects/<name>/catalog-queries.ts) take names from the
 * catalog and the bindings as identifier nodes and values as parameters: whatever a table or
 * column is called, it is quoted by the engine's compiler and never ends the identifier early.
 * The duplicate count runs on SQLite in process, over hostile names.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mysqlColumnTypes, mysqlDuplicateCount } from "../src/dialects/mysql/catalog-queries.js";
import {
  postgresDuplicateCount,
  postgresTables,
} from "../src/dialects/postgres/catalog-queries.js";
import { sqliteSession } from "../src/dialects/sqlite/catalog.js";
import { sqliteDuplicateCount, sqliteTables } from "../src/dialects/sqlite/catalog-queries.js";

describe("catalog statements", () => {
  it("quote identifiers per engine and pass values as parameters", () => {
    const table = { schema: 'we"ird', name: "t`x.y" };
    expect(postgresDuplicateCount(table, ['a"b', "c"]).sql).toBe(
      'select count(*)::int as "n" from (select 1 as "one" from "we""ird"."t`x.y" as "t" group by "a""b", "c" having count(*) > $1) as "d"',
    );
    expect(mysqlDuplicateCount(table, ["a`b"]).sql).toBe(
      'select count(*) as `n` from (select 1 as `one` from `we"ird`.`t``x.y` as `t` group by `a``b` having count(*) > ?) as `d`',
    );
    expect(sqliteDuplicateCount({ schema: null, name: 'x"' }, ["c"]).sql).toBe(
      'select count(*) as "n" from (select 1 as "one" from "x""" as "t" group by "c" having count(*) > ?) as "d"',
    );
    const byName = postgresTables({ qualified: "public.t'; drop table x; --" });
    expect(byName.sql).not.toContain("drop table");
    expect(byName.parameters).toContain("public.t'; drop table x; --");
    const columns = mysqlColumnTypes([{ schema: "s", table: "t' or 1=1 #", column: "c" }]);
    expect(columns.sql).not.toContain("or 1=1");
    expect(columns.parameters).toEqual(["s", "t' or 1=1 #", "c"]);
    expect(sqliteTables("main", "x").parameters).toEqual([
      "table",
      "view",
      "sqlite\\_%",
      "\\",
      "x",
    ]);
  });

  it("count duplicate keys in a table with any name (property, SQLite)", async () => {
    const name = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes("\u0000"));
    await fc.assert(
      fc.asyncProperty(name, name, fc.array(fc.nat(3), { maxLength: 12 }), async (t, c, keys) => {
        const file = join(mkdtempSync(join(tmpdir(), "dup-")), "db.sqlite");
        const writer = new Database(file);
        const quote = (id: string) => `"${id.replaceAll('"', '""')}"`;
        writer.exec(`create table ${quote(t)} (${quote(c)} integer)`);
        const insert = writer.prepare(`insert into ${quote(t)} values (?)`);
        for (const key of keys) insert.run(key);
        writer.close();
        const reader = new Database(file, { readonly: true });
        const session = sqliteSession(reader);
        const counts = new Map<number, number>();
        for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
        const expected = [...counts.values()].filter((n) => n > 1).length;
        // The catalog finds the table by its name, bare and qualified.
        const bare = await session.table([t]);
        const qualified = await session.table(["main", t]);
        expect(bare?.name).toBe(t);
        expect(qualified?.columns.map((column) => column.name)).toEqual([c]);
        expect(await session.duplicateKeys(bare!, [c])).toBe(expected);
        expect(await session.duplicateKeys(qualified!, [c])).toBe(expected);
        reader.close();
      }),
      { numRuns: 20 },
    );
  });
});
