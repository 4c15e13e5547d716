/** The quick-start examples run and give the answers the README promises. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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

  it("filters the issues table by permission with the library", async () => {
    // One database for the three questions (PGlite takes seconds to start).
    const db = await openTestPglite();
    try {
      await db.exec(readFileSync("examples/quickstart/schema.sql", "utf8"));
      expect(await readableIssues("bob", db)).toEqual([
        "anvil is heavy",
        "rocket misfires",
        "gears grind",
      ]);
      expect(await readableIssues("carol", db)).toEqual(["gears grind"]);
      expect(await readableIssues("nobody", db)).toEqual(["gears grind"]);
    } finally {
      await db.close();
    }
  });

  it("answers through the HTTP service with the oso-cloud client", async () => {
    delete process.env.POLAR_SQL_URL;
    expect(await askTheService()).toEqual({
      aliceMayDelete: true,
      bobRepositories: ["1", "2", "3"],
      carolRepositoryActions: ["read"],
      bobIssueTitles: ["anvil is heavy", "rocket misfires", "gears grind"],
    });
  });
});
