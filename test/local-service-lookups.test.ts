/**
 * The service's local endpoints read the stored facts a question needs (the asking user's
 * roles, say) from its own store: the lookups of one compile round go in one statement, and
 * lookups of shapes no stored fact has (rule heads such as `allow`) are not made. The shapes
 * are read again for every data version, so a first fact of a new shape is seen at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { serviceOver } from "../src/service/service.js";
import type { SqlExecutor } from "../src/store/executor.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { storeThrough } from "./support/watched-store.js";

const POLICY = `actor User {}
resource Org { roles = ["member", "admin"]; "member" if "admin"; }
resource Repo {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "member" on "org";
}`;

/** Repo → Org relations live in the application's database; roles only in the service. */
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

/** The statements the service runs on its store's executor, counted. */
function counting(store: FactStore): { store: FactStore; statements: () => number } {
  let count = 0;
  const db: SqlExecutor = {
    ...store.db,
    query: (sql, params) => {
      count++;
      return store.db.query(sql, params);
    },
    prepared: (sql, params) => {
      count++;
      return store.db.prepared(sql, params);
    },
    // SQLite reads a lookup that an index bounds on the calling thread: a statement too.
    ...(store.db.readNow && {
      readNow: (sql: string, params: readonly unknown[]) => {
        count++;
        return store.db.readNow!(sql, params);
      },
    }),
    listen: (channel, listener) => store.db.listen(channel, listener),
    transaction: (work) => store.db.transaction(work),
    close: () => store.db.close(),
  };
  return { store: storeThrough(store, db), statements: () => count };
}

let base: FactStore;
let service: PolarService;
let statements: () => number;

beforeAll(async () => {
  base = await openStore({});
  const counted = counting(base);
  statements = counted.statements;
  service = serviceOver(counted.store, { workers: 0 });
  await service.postPolicy({ filename: "policy.polar", src: POLICY }, {});
}, 60_000);
afterAll(() => service.close());

async function sqlFor(actor: string): Promise<string> {
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

describe("stored facts read for local questions", () => {
  it("sees the first fact of a new shape at once, then reads each new user's roles in one statement", async () => {
    // No role is stored yet: nothing of the user's to inline.
    expect(await sqlFor("ada")).toBe("select false as allowed");
    await base.applyBatch([{ inserts: [role("ada", "member", "1"), role("bo", "admin", "2")] }]);
    // A new data version: the shape of has_role is read again, and ada's role is inlined.
    expect(await sqlFor("ada")).toContain("f0.org_id = 1)");

    await sqlFor("bo"); // the shapes of this version are known from here on
    const start = statements();
    const forCy = await sqlFor("cy");
    // One statement: cy's stored roles (every lookup of the round batched), no shape read.
    expect(statements() - start).toBe(1);
    const again = statements();
    expect(await sqlFor("cy")).toBe(forCy);
    expect(statements() - again).toBe(0);
  });

  it("inlines the roles it read: bo's admin role makes him a member of org 2", async () => {
    expect(await sqlFor("bo")).toContain("f0.org_id = 2)");
    expect(await sqlFor("nobody")).toBe("select false as allowed");
  });
});
