/** The quick-start examples run and give the answers the README promises. */
import { readFileSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { readableIssues } from "../examples/quickstart/local-filter.js";
import { askTheService } from "../examples/quickstart/oso-client.js";
import { checkPolicyText } from "../src/check/check.js";
import { runTests } from "../src/evaluate/test-runner.js";
import { openTestPglite } from "./support/pglite.js";

describe("examples/quickstart", () => {
  it("has a policy whose tests pass", () => {
    const result = checkPolicyText(readFileSync("examples/quickstart/policy.polar", "utf8"));
    expect(result.ok).toBe(true);
    if (result.ok) expect(runTests(result.program).passed).toBe(true);
  });

  // One database with the quick start's tables for both examples (a new PGlite runs initdb,
  // seconds of CPU; the test's starts from the cached image).
  let opened: Promise<PGlite> | undefined;
  const quickstartDb = () => {
    opened ??= openTestPglite().then(async (db) => {
      await db.exec(readFileSync("examples/quickstart/schema.sql", "utf8"));
      return db;
    });
    return opened;
  };
  afterAll(async () => {
    await (await opened)?.close();
  });

  it("filters the issues table by permission with the library", async () => {
    const db = await quickstartDb();
    expect(await readableIssues("bob", db)).toEqual([
      "anvil is heavy",
      "rocket misfires",
      "gears grind",
    ]);
    expect(await readableIssues("carol", db)).toEqual(["gears grind"]);
    expect(await readableIssues("nobody", db)).toEqual(["gears grind"]);
  });

  it("answers through the HTTP service with the oso-cloud client", async () => {
    delete process.env.POLAR_SQL_URL;
    expect(await askTheService(await quickstartDb())).toEqual({
      aliceMayDelete: true,
      bobRepositories: ["1", "2", "3"],
      carolRepositoryActions: ["read"],
      bobIssueTitles: ["anvil is heavy", "rocket misfires", "gears grind"],
    });
  });
});
