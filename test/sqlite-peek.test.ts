/**
 * The SQLite store reads the head of every question (the newest policy's version and the data
 * version) on the main thread (src/store/sqlite-peek.ts) instead of a store thread: what the
 * local endpoints keep per data version and policy (stored facts loaded, plans, printed texts)
 * must still start over when another instance on the same file writes, and a read the main
 * thread cannot make at once is left to the store threads.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { serviceOver } from "../src/service/service.js";
import { openSqliteStore } from "../src/store/sqlite-store.js";
import { openStore } from "../src/store/store.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const POLICY = `actor User {}
resource Org { roles = ["member", "admin"]; "member" if "admin"; }
resource Repo {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "member" on "org";
}`;

/** Without the admin role implying membership: a policy that reads no admin role. */
const MEMBERS_ONLY = POLICY.replace(' "member" if "admin";', "");

const BINDINGS = `facts:
  has_relation(Repo:_, org, Org:_):
    query: SELECT id, org_id FROM repos
sql_types:
  Repo: integer
  Org: integer
`;

const role = (user: string, name: string, org: string) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user },
    { type: "String", id: name },
    { type: "Org", id: org },
  ],
});

async function sqlFor(service: PolarService, actor: string): Promise<string> {
  const reply = await service.authorizeQuery({
    query: {
      actor_type: "User",
      actor_id: actor,
      action: "read",
      resource_type: "Repo",
      resource_id: "7",
    },
    data_bindings: BINDINGS,
  });
  return (reply.body as { sql: string }).sql;
}

describe("the head read on the main thread", () => {
  it("answers a point read at once, and leaves writes and unknown tables to the threads", async () => {
    const db = await openSqliteStore();
    try {
      expect(db.peek).toBeDefined();
      expect(db.peek!("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      // Not made yet: the store threads answer (and refuse) it.
      expect(db.peek!("SELECT v FROM t")).toBeUndefined();
      await db.query("CREATE TABLE t (v text)");
      expect(db.peek!("INSERT INTO t VALUES ('no')")).toBeUndefined();
      expect(await db.query("SELECT count(*) AS n FROM t")).toEqual([{ n: 0 }]);
      await db.query("INSERT INTO t VALUES ('committed')");
      // A commit of a store thread is seen by the next read.
      expect(db.peek!("SELECT v FROM t")).toEqual([{ v: "committed" }]);
    } finally {
      await db.close();
    }
    expect(db.peek!("SELECT 1 AS one")).toBeUndefined();
  });

  it("local questions start over when another instance on the file writes facts or a policy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-peek-"));
    dirs.push(dir);
    const a = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    const b = serviceOver(await openStore({ embedded: "sqlite", dataDir: dir }), { workers: 0 });
    try {
      await b.postPolicy({ filename: "policy.polar", src: POLICY }, {});
      await b.batch([{ inserts: [role("ada", "member", "1")] }]);
      expect(await sqlFor(a, "ada")).toContain("f0.arg2 = 1)");
      // ada's roles are loaded in a for this data version; b writes a new one.
      await b.batch([{ inserts: [role("ada", "admin", "2")] }]);
      expect(await sqlFor(a, "ada")).toContain("f0.arg2 in (2, 1))");
      // A role removed through b is gone from a's next statement.
      await b.batch([{ deletes: [role("ada", "member", "1")] }]);
      expect(await sqlFor(a, "ada")).toContain("f0.arg2 = 2)");
      // A policy posted through b: a plans with it at once (admins are no longer members).
      await b.postPolicy({ filename: "policy.polar", src: MEMBERS_ONLY }, {});
      expect(await sqlFor(a, "ada")).toBe("select false as allowed");
    } finally {
      await a.close();
      await b.close();
    }
  });
});
