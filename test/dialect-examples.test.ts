/**
 * examples/mysql (on the MariaDB server MARIADB_URL names; skipped without it,
 * test/support/mariadb.ts) and examples/sqlite run and give the same answers.
 */
import { describe, expect, it } from "vitest";
import { ask as askMysql } from "../examples/mysql/ask.js";
import { ask as askSqlite } from "../examples/sqlite/ask.js";
import { MARIADB } from "./support/mariadb.js";

const expected = {
  annEditsRoadmap: true,
  annReadsPriceList: false,
  annDocuments: ["api spec", "roadmap"],
  bobDocuments: ["handbook", "api spec", "price list", "roadmap"],
};

describe("dialect examples", () => {
  it.skipIf(!MARIADB)("examples/mysql answers on MariaDB", async () => {
    expect(await askMysql(`polar_example_${process.pid}`, MARIADB)).toEqual(expected);
  });

  it("examples/sqlite answers on SQLite", async () => {
    expect(await askSqlite()).toEqual(expected);
  });
});
