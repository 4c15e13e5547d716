/**
 * How the central service runs questions fast (issue 5): values as `$n` parameters, one
 * statement text per question shape (printed once), prepared statements per session, and the
 * change feed that lets an instance know the data version without asking.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  authorizeQuery,
  bindingsFor,
  evaluateQueryLocal,
  type LocalOptions,
  listQuery,
} from "../src/api/local.js";
import { authorizeQuestion, localStatement } from "../src/api/questions.js";
import type { AuthorizeQueryRequest, EvaluateQueryLocalRequest } from "../src/api/wire.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import type { SqlExecutor } from "../src/store/executor.js";
import { openPglite } from "../src/store/pglite-executor.js";
import { openPostgres } from "../src/store/postgres-executor.js";
import { openStore } from "../src/store/store.js";
import { describeServiceEngines, serverSchema } from "./support/central-services.js";
import { describeEach } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";

const databaseUrl = process.env.DATABASE_URL;

const POLICY = `
actor User {}
resource Org {
  roles = ["member", "admin"];
  permissions = ["read", "manage"];
  "member" if "admin";
  "read" if "member";
  "manage" if "admin";
}
resource Doc {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "read" on "org";
  "read" if is_public(resource);
}
allow(_: User, "read", doc: Doc) if doc = Doc{"lobby"};
allow(user: User, "manage", _: Org) if user = User{"root"};
allow(actor: Actor, action: String, resource: Resource) if has_permission(actor, action, resource);
allow(_: User, "read", _: Doc) if @current_unix_time < 1000;
`;
const program = checkPolicyOrThrow([{ name: "p.polar", text: POLICY }]);
const BINDINGS = `
facts:
  "has_role(User:_, String:_, Org:_)":
    query: SELECT u, r, o FROM roles
  "has_relation(Doc:_, org, Org:_)":
    query: SELECT d, o FROM docs
  "is_public(Doc:_)":
    query: SELECT d FROM docs WHERE public
`;

const authorize = (
  actor: string,
  action: string,
  type: string,
  id: string,
): AuthorizeQueryRequest => ({
  query: {
    actor_type: "User",
    actor_id: actor,
    action,
    resource_type: type,
    resource_id: id,
  },
  data_bindings: BINDINGS,
});

const later = { now: () => 5000n };

/** The authorize statement with its values as parameters, as the central store prints it. */
function withParameters(body: AuthorizeQueryRequest, options: LocalOptions) {
  const { dialect: _dialect, checkBindings: _check, ...rest } = options;
  return localStatement(
    program,
    bindingsFor(program, body.data_bindings),
    authorizeQuestion(program, { ...body.query, context_facts: [] }),
    { ...rest, writing: "parameters" },
  );
}

describe("statements with values as parameters", () => {
  it("print one text per shape, with the ids only in the parameters", () => {
    const a = withParameters(authorize("ada", "read", "Doc", "d1"), later);
    const b = withParameters(authorize("bo'b", "read", "Doc", "x;--"), later);
    const first = a.parameters;
    const second = b.parameters;
    expect(b.sql).toBe(a.sql);
    expect(a.sql).toContain("cast($1 as text)");
    expect(a.sql).not.toContain("ada");
    expect(first).toContain("ada");
    expect(second).toContain("bo'b");
    expect(second).toContain("x;--");
    expect(second).toHaveLength(first.length);
  });

  it("print a new text when the ids decide which rules apply", () => {
    const lobby = withParameters(authorize("ada", "read", "Doc", "lobby"), { ...later });
    const other = withParameters(authorize("ada", "read", "Doc", "d1"), { ...later });
    // The `doc = Doc{"lobby"}` rule is decided while printing: always true for `lobby`.
    expect(lobby.sql).not.toBe(other.sql);
  });

  it("print the clock's decisions per request, not once per shape", () => {
    const early = withParameters(authorize("ada", "read", "Doc", "d1"), { now: () => 10n });
    const late = withParameters(authorize("ada", "read", "Doc", "d1"), { ...later });
    expect(early.sql).not.toBe(late.sql);
  });

  it("ask central facts for what the question's constants fix", () => {
    const asked: string[] = [];
    const role = (user: string, org: string) => ({
      predicate: "has_role",
      args: [
        { type: "User", id: user },
        { type: "String", id: "admin" },
        { type: "Org", id: org },
      ],
    });
    const central = {
      facts(predicate: string, arity: number, pattern: readonly ({ id: string } | null)[] = []) {
        asked.push(`${predicate}/${arity} ${pattern.map((v) => v?.id ?? "_").join(",")}`);
        return predicate === "has_role" ? [role("ada", "o1"), role("bo", "o2")] : [];
      },
    };
    const body = {
      query: {
        actor_type: "User",
        actor_id: "ada",
        action: "manage",
        resource_type: "Org",
        resource_id: "o1",
      },
      data_bindings: "facts:\n",
    };
    const { sql } = authorizeQuery(program, body, { ...later, central });
    expect(asked).toContain("has_role/3 ada,admin,o1");
    // Every fact is known while printing: the answer folds to a constant.
    expect(sql).toBe("select true as allowed");
    const other = { ...body, query: { ...body.query, resource_id: "o2" } };
    expect(authorizeQuery(program, other, { ...later, central }).sql).not.toContain("true");
    expect(asked).toContain("has_role/3 ada,admin,o2");
  });

  it("reuse a printed text only as the text printing afresh would give", () => {
    const id = fc.oneof(
      fc.constantFrom("lobby", "d1", "o1", "it's", "a\\b", "$1", "--", "ü", " ", "SELECT"),
      // Ids an engine compares untyped with a column (canonical integers, uuids) get another
      // text around them than the rest: the same shape keeps a template for each.
      fc.constantFrom("17", "0", "-5", "007", "2147483648", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
      // Ids are never empty (docs/http-api.md, "Ids").
      fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes("\u0000")),
    );
    const typedBindings = `${BINDINGS}sql_types:\n  Org: integer\n`;
    fc.assert(
      fc.property(
        id,
        id,
        fc.constantFrom("read", "manage"),
        fc.constantFrom("Doc", "Org"),
        fc.boolean(),
        fc.constantFrom(10n, 5000n),
        (actor, resource, action, type, typed, now) => {
          const body = {
            ...authorize(actor, action, type, resource),
            data_bindings: typed ? typedBindings : BINDINGS,
          };
          const fresh = authorizeQuery(program, body, { now: () => now, cacheText: false });
          const reused = authorizeQuery(program, body, { now: () => now });
          expect(reused.sql).toBe(fresh.sql);
          const list = {
            query: { actor_type: "User", actor_id: actor, action, resource_type: type },
            column: `"t"."${type}"`,
            data_bindings: body.data_bindings,
          };
          expect(listQuery(program, list, { now: () => now }).sql).toBe(
            listQuery(program, list, { now: () => now, cacheText: false }).sql,
          );
          // Select mode writes the actor's id as a typed literal in the select list.
          const select: EvaluateQueryLocalRequest = {
            query: {
              predicate: ["allow", ["u", "a", "r"]],
              calls: [],
              constraints: {
                u: { type: "User", ids: [actor] },
                a: { type: "String", ids: [action] },
                r: { type: type, ids: null },
              },
              context_facts: [],
            },
            data_bindings: body.data_bindings,
            mode: { mode: "select", query_vars_to_output_column_names: { u: "who", r: "what" } },
          };
          expect(evaluateQueryLocal(program, select, { now: () => now }).sql).toBe(
            evaluateQueryLocal(program, select, { now: () => now, cacheText: false }).sql,
          );
        },
      ),
      { numRuns: propertyRuns(60, 300) },
    );
  });

  it("leave local SQL without placeholders", () => {
    const { sql } = listQuery(program, {
      query: { actor_type: "User", actor_id: "ada", action: "read", resource_type: "Doc" },
      column: "docs.d",
      data_bindings: BINDINGS,
    });
    expect(sql).not.toMatch(/\$\d/);
    expect(sql).toContain("'ada'");
  });
});

interface Engine {
  readonly name: string;
  open(): Promise<SqlExecutor>;
}

// PostgreSQL's PREPARE; the SQLite store keeps its statements prepared by text
// (test/store-sqlite.test.ts).
const engines: Engine[] = [{ name: "pglite", open: () => openPglite() }];
if (databaseUrl) {
  engines.push({
    name: "postgres",
    async open() {
      const schema = await serverSchema(databaseUrl, "prepared");
      const db = await openPostgres({ connectionString: schema.url, max: 3 });
      cleanups.push(() => schema.drop());
      return db;
    },
  });
}
// Without DATABASE_URL the server suite is listed as skipped, not left out.
if (!databaseUrl) engines.push({ name: "postgres", open: () => Promise.reject(new Error("skip")) });
const skipServer = (engine: Engine) => engine.name === "postgres" && !databaseUrl;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describeEach(engines, skipServer)("prepared statements on $name", (engine) => {
  let opened: Promise<SqlExecutor> | undefined;
  const db = () => {
    opened ??= engine.open().then(async (db) => {
      cleanups.push(() => db.close());
      await db.query("CREATE TABLE roles (u text, r text, o text)");
      await db.query("CREATE TABLE docs (d text, o text, public boolean)");
      return db;
    });
    return opened;
  };

  it("answer exactly as the statement with literals, for any ids and data", async () => {
    const executor = await db();
    const id = fc.constantFrom("ada", "bo'b", "x\\y", "ü", "lobby", "d1", "o1", "$1", "");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(id, fc.constantFrom("member", "admin"), id), { maxLength: 6 }),
        fc.array(fc.tuple(id, id, fc.boolean()), { maxLength: 6 }),
        fc.array(fc.tuple(id, fc.constantFrom("read", "manage"), id), {
          minLength: 1,
          maxLength: 8,
        }),
        async (roles, docs, questions) => {
          await executor.transaction(async (tx) => {
            await tx.query("DELETE FROM roles");
            await tx.query("DELETE FROM docs");
            for (const row of roles) await tx.query("INSERT INTO roles VALUES ($1, $2, $3)", row);
            for (const row of docs) await tx.query("INSERT INTO docs VALUES ($1, $2, $3)", row);
          });
          for (const [actor, action, resource] of questions) {
            for (const type of ["Doc", "Org"]) {
              const body = authorize(actor || "a", action, type, resource || "r");
              const literal = authorizeQuery(program, body, later);
              const prepared = withParameters(body, later);
              const [expected] = await executor.query<{ allowed: boolean }>(literal.sql);
              // Twice: the second run is the prepared one.
              for (let i = 0; i < 2; i++) {
                const [row] = await executor.prepared<{ allowed: boolean }>(prepared.sql, [
                  ...prepared.parameters,
                ]);
                expect(row?.allowed).toBe(expected?.allowed);
              }
            }
          }
        },
      ),
      { numRuns: propertyRuns(5, 15) },
    );
  });

  it("keep working past the per-session limit of prepared statements", async () => {
    const executor = await db();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 230; i++) {
        const sql = `SELECT CAST($1 AS bigint) + ${i} AS n`;
        const [row] = await executor.prepared<{ n: string | number }>(sql, [String(round)]);
        expect(Number(row!.n)).toBe(round + i);
      }
    }
  });

  it("report a failing statement and go on", async () => {
    const executor = await db();
    const sql = "SELECT CAST($1 AS bigint) AS n";
    await executor.prepared(sql, ["1"]);
    await expect(executor.prepared(sql, ["not a number"])).rejects.toThrow(/bigint/);
    const [row] = await executor.prepared<{ n: string | number }>(sql, ["7"]);
    expect(Number(row!.n)).toBe(7);
  });
});

describeServiceEngines({ now: () => 5000n }, "service answers on $name", (engine) => {
  // One service per engine for both tests: each posts its own policy over an empty store.
  const emptied = async () => {
    const service = await engine.service();
    await service.clearData();
    return service;
  };

  it("reuse no answer across ids or the clock", async () => {
    const service = await emptied();
    await service.postPolicy({ src: POLICY, filename: "p.polar" }, {});
    const ask = async (actor: string, action: string, type: string, id: string) => {
      const reply = await service.authorize({
        actor_type: "User",
        actor_id: actor,
        action,
        resource_type: type,
        resource_id: id,
      });
      return (reply.body as { allowed: boolean }).allowed;
    };
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: "ada" },
              { type: "String", id: "admin" },
              { type: "Org", id: "o1" },
            ],
          },
        ],
      },
    ]);
    for (let i = 0; i < 3; i++) {
      expect(await ask("ada", "read", "Doc", "lobby")).toBe(true);
      expect(await ask("ada", "read", "Doc", "d1")).toBe(false);
      expect(await ask("root", "manage", "Org", "o9")).toBe(true);
      expect(await ask("ada", "manage", "Org", "o1")).toBe(true);
      expect(await ask("ada", "manage", "Org", "o2")).toBe(false);
      expect(await ask("bo", "manage", "Org", "o1")).toBe(false);
    }
    // The shape's text is printed by now; context facts still count.
    const withContext = await service.authorize({
      actor_type: "User",
      actor_id: "bo",
      action: "manage",
      resource_type: "Org",
      resource_id: "o1",
      context_facts: [
        {
          predicate: "has_role",
          args: [
            { type: "User", id: "bo" },
            { type: "String", id: "admin" },
            { type: "Org", id: "o1" },
          ],
        },
      ],
    });
    expect(withContext.body).toEqual({ allowed: true });
    expect(await ask("bo", "manage", "Org", "o1")).toBe(false);
    // The PostgreSQL server's store counts its recurring reads and their messages (/metrics).
    const counts = service.readMessages?.() ?? null;
    if (engine.name !== "postgres") expect(counts).toBeNull();
    else {
      expect(counts!.messages).toBeGreaterThan(0);
      expect(counts!.reads).toBeGreaterThanOrEqual(counts!.messages);
    }
  });

  it("read stored zero-argument facts, and stop when they are deleted", async () => {
    const service = await emptied();
    const src = `actor User {}
resource Doc { permissions = ["read"]; }
declare open_house();
allow(_: User, "read", _: Doc) if open_house();`;
    await service.postPolicy({ src, filename: "p.polar" }, {});
    const read = async () =>
      (
        (
          await service.authorize({
            actor_type: "User",
            actor_id: "ada",
            action: "read",
            resource_type: "Doc",
            resource_id: "d1",
          })
        ).body as { allowed: boolean }
      ).allowed;
    expect(await read()).toBe(false);
    await service.batch([{ inserts: [{ predicate: "open_house", args: [] }] }]);
    expect(await read()).toBe(true);
    expect(await read()).toBe(true);
    await service.batch([{ deletes: [{ predicate: "open_house", args: [] }] }]);
    expect(await read()).toBe(false);
  });
});

describe.runIf(databaseUrl)("instances sharing one database", () => {
  it("follow only the notices of their own schema", async () => {
    const one = await serverSchema(databaseUrl!, "feed_a");
    const two = await serverSchema(databaseUrl!, "feed_b");
    cleanups.push(
      () => one.drop(),
      () => two.drop(),
    );
    const a = await openStore({ databaseUrl: one.url });
    const b = await openStore({ databaseUrl: two.url });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    await a.setPolicy(POLICY, "p.polar");
    await b.setPolicy(POLICY, "p.polar");
    const doc = (id: string) => ({
      inserts: [{ predicate: "is_public", args: [{ type: "Doc", id }] }],
    });
    const before = await b.dataVersion();
    for (let i = 0; i < 5; i++) await a.applyBatch([doc(`a${i}`)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await b.dataVersion()).toBe(before);
    const written = await b.applyBatch([doc("b1")]);
    expect(written).toBe(before + 1);
    expect(await b.dataVersion()).toBe(written);
  });

  it("catch up to the data version a client saw (OsoOffset) before hearing of it", async () => {
    const schema = await serverSchema(databaseUrl!, "catchup");
    cleanups.push(() => schema.drop());
    const a = await openStore({ databaseUrl: schema.url });
    // Not following: b hears of nothing, and re-reads its policy only hourly or when asked.
    const b = await openStore({
      databaseUrl: schema.url,
      follow: false,
      policyRefreshMs: 3_600_000,
    });
    const c = await openStore({ databaseUrl: schema.url });
    cleanups.push(
      () => a.close(),
      () => b.close(),
      () => c.close(),
    );
    const first = await a.setPolicy(POLICY, "p.polar");
    expect(first).toBe("updated");
    expect((await b.policy())?.filename).toBe("p.polar");
    await a.setPolicy(`${POLICY}\n# v2\n`, "p2.polar");
    const written = await a.dataVersion();
    expect((await b.policy())?.filename).toBe("p.polar"); // stale, as configured
    await b.catchUp(0); // an old offset changes nothing
    expect((await b.policy())?.filename).toBe("p.polar");
    await b.catchUp(written);
    expect((await b.policy())?.filename).toBe("p2.polar");
    // A following instance that is told the version reads it at once, notification or not.
    const next = await a.applyBatch([
      { inserts: [{ predicate: "is_public", args: [{ type: "Doc", id: "d9" }] }] },
    ]);
    await c.catchUp(next);
    expect(await c.dataVersion()).toBeGreaterThanOrEqual(next);
  });

  it("learn each other's writes and policies from notifications", async () => {
    const schema = await serverSchema(databaseUrl!, "feed");
    cleanups.push(() => schema.drop());
    const a = await openStore({ databaseUrl: schema.url, policyRefreshMs: 3_600_000 });
    const b = await openStore({ databaseUrl: schema.url, policyRefreshMs: 3_600_000 });
    cleanups.push(() => a.close());
    cleanups.push(() => b.close());
    await a.setPolicy(POLICY, "p.polar");
    const before = await b.dataVersion();
    const written = await a.applyBatch([
      {
        inserts: [
          {
            predicate: "is_public",
            args: [{ type: "Doc", id: "d1" }],
          },
        ],
      },
    ]);
    expect(written).toBeGreaterThan(before);
    await expect.poll(() => b.dataVersion(), { timeout: 5000 }).toBe(written);
    await a.setPolicy(`${POLICY}\n# v2\n`, "p2.polar");
    await expect.poll(async () => (await b.policy())?.filename, { timeout: 5000 }).toBe("p2.polar");
  });
});
