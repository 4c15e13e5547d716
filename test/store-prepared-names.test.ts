/**
 * `preparedNames` (src/store/executor.ts), the statement names of one session that the
 * PostgreSQL and PGlite executors share: a text is prepared once, and past the limit the least
 * recently used statement is dropped before a new one is prepared.
 */
import { describe, expect, it } from "vitest";
import { preparedNames } from "../src/store/executor.js";

function session(limit: number) {
  const log: string[] = [];
  const nameOf = preparedNames({
    prefix: "s",
    limit,
    prepare: async (name, sql) => log.push(`prepare ${name} ${sql}`),
    drop: async (name) => log.push(`drop ${name}`),
  });
  return { log, nameOf };
}

describe("preparedNames", () => {
  it("prepares a text once and names it the same each time", async () => {
    const { log, nameOf } = session(2);
    expect(await nameOf("A")).toBe("s0");
    expect(await nameOf("B")).toBe("s1");
    expect(await nameOf("A")).toBe("s0");
    expect(log).toEqual(["prepare s0 A", "prepare s1 B"]);
  });

  it("drops the least recently used statement past the limit, and prepares it anew later", async () => {
    const { log, nameOf } = session(2);
    await nameOf("A");
    await nameOf("B");
    await nameOf("A"); // B is now the least recently used
    expect(await nameOf("C")).toBe("s2");
    expect(await nameOf("B")).toBe("s3");
    expect(log).toEqual([
      "prepare s0 A",
      "prepare s1 B",
      "drop s1",
      "prepare s2 C",
      "drop s0",
      "prepare s3 B",
    ]);
  });
});
