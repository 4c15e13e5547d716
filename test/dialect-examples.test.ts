/** examples/mysql (on MariaDB) and examples/sqlite run and give the same answers. */
import { describe, expect, it } from "vitest";
import { ask as askMysql } from "../examples/mysql/ask.js";
import { ask as askSqlite } from "../examples/sqlite/ask.js";

const expected = {
  annEditsRoadmap: true,
  annReadsPriceList: false,
  annDocuments: ["api spec", "roadmap"],
  bobDocuments: ["handbook", "api spec", "price list", "roadmap"],
};

describe("dialect examples", () => {
  it("examples/mysql answers on MariaDB", async () => {
    expect(await askMysql(`polar_example_${process.pid}`)).toEqual(expected);
  });

  it("examples/sqlite answers on SQLite", async () => {
    expect(await askSqlite()).toEqual(expected);
  });
});
