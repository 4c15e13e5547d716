/**
 * A question's id list travels as one array parameter (issue 13): the statement's text is the
 * same for 3 ids and for 70,000, no bind-parameter count limits a request, and the answers are
 * those of the old row-per-id statements, hostile ids included. Central statements on PGlite
 * and the PostgreSQL server, and the SQLite dialect's form on better-sqlite3.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateQueryLocal } from "../src/api/local.js";
import { type EvaluateQuery, evaluateQuestion, localStatement } from "../src/api/questions.js";
import { parseBody, querySchema } from "../src/api/wire.js";
import { checkPolicyOrThrow } from "../src/check/check.js";
import type { Dialect } from "../src/dialects/dialect.js";
import { mysql } from "../src/dialects/mysql/index.js";
import { postgres } from "../src/dialects/postgres/index.js";
import { sqlite } from "../src/dialects/sqlite/index.js";
import { storeBindings } from "../src/store/bindings.js";
import { describeServiceEngines } from "./support/central-services.js";
import { hostileId } from "./support/hostile-ids.js";
import { propertyRuns } from "./support/runs.js";

const POLICY = `actor User {}
resource Folder {
  roles = ["viewer"];
}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "viewer";
  "viewer" if "viewer" on "folder";
}
`;
const program = checkPolicyOrThrow([{ name: "p.polar", text: POLICY }]);
const SHAPES = [
  { predicate: "has_role", types: ["User", "String", "Doc"] },
  { predicate: "has_role", types: ["User", "String", "Folder"] },
  { predicate: "has_relation", types: ["Doc", "String", "Folder"] },
];
const bindings = storeBindings(SHAPES);

const docIds = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);
/** Ada views every 97th document herself and every 101st through folder `f`. */
const permitted = (i: number) => i % 97 === 0 || i % 101 === 0;

const value = (type: string, id: string) => ({ type, id });
const viewer = (user: string, type: string, id: string) => ({
  predicate: "has_role",
  args: [value("User", user), value("String", "viewer"), value(type, id)],
});
const inFolder = (doc: string) => ({
  predicate: "has_relation",
  args: [value("Doc", doc), value("String", "folder"), value("Folder", "f")],
});

function readQuery(ids: readonly string[]): EvaluateQuery {
  return parseBody(querySchema, {
    predicate: ["allow", ["a", "b", "c"]],
    calls: [],
    constraints: {
      a: { type: "User", ids: ["ada"] },
      b: { type: "String", ids: ["read"] },
      c: { type: "Doc", ids },
    },
  });
}
const MODE = { mode: "select", query_vars_to_output_column_names: { a: "c0", b: "c1", c: "c2" } };

function printed(dialect: Dialect, ids: readonly string[], writing: "parameters" | "literals") {
  const question = evaluateQuestion(program, bindings, readQuery(ids), MODE as never);
  return localStatement(program, bindings, question, { dialect, writing });
}

describe("an id list as one array parameter", () => {
  for (const dialect of [postgres, sqlite]) {
    it(`${dialect.name}: the same text for 3 ids and for 70,000, the ids in one parameter`, () => {
      const few = printed(dialect, docIds(3), "parameters");
      const many = printed(dialect, docIds(70_000), "parameters");
      expect(many.sql).toBe(few.sql);
      expect(many.parameters).toHaveLength(few.parameters.length);
      expect(few.parameters.length).toBeLessThan(20);
      expect(few.longestList).toBe(3);
      expect(many.longestList).toBe(70_000);
      expect(few.sql).not.toContain("d1");
      expect(few.parameters.find((p) => p.includes("d1"))).toMatch(/^[[{].*"d2"[\]}]$/);
    });
  }

  it("a text kept for the shape is the text printing afresh gives, for any list", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(postgres, sqlite),
        fc.uniqueArray(hostileId, { minLength: 2, maxLength: 8 }),
        fc.constantFrom("ada", "it's"),
        (dialect, ids, actor) => {
          const query = parseBody(querySchema, {
            ...readQuery(ids),
            constraints: { ...readQuery(ids).constraints, a: { type: "User", ids: [actor] } },
          });
          const question = evaluateQuestion(program, bindings, query, MODE as never);
          const options = { dialect, writing: "parameters" } as const;
          const kept = localStatement(program, bindings, question, options);
          const fresh = localStatement(program, bindings, question, {
            ...options,
            cacheText: false,
          });
          expect(kept).toEqual(fresh);
          expect(kept.longestList).toBe(ids.length);
        },
      ),
      { numRuns: propertyRuns(40, 400) },
    );
  });

  it("mysql, which reads no arrays, keeps a parameter per id", () => {
    const few = printed(mysql, docIds(3), "parameters");
    const more = printed(mysql, docIds(4), "parameters");
    expect(more.sql).not.toBe(few.sql);
    expect(more.parameters.length).toBeGreaterThan(few.parameters.length);
    expect(few.longestList).toBeUndefined();
  });

  it("local SQL keeps its ids inlined as literals", () => {
    const local = evaluateQueryLocal(program, {
      query: readQuery(["d1", "it's"]),
      data_bindings:
        'facts:\n  "has_role(User:_, String:_, Doc:_)":\n    query: SELECT u, r, d FROM roles\n',
      mode: MODE as never,
    });
    expect(local.sql).toContain("'it''s'");
    expect(local.sql).not.toMatch(/\$\d|unnest|json_each/);
    expect(printed(postgres, ["d1", "it's"], "literals").sql).toContain("'it''s'");
  });
});

// Statements of 70,000 ids and 31,000 context facts: what is tested is their answers, not how
// soon they come on a loaded machine, so the request deadline is far (bench/hostile times them).
describeServiceEngines(
  { limits: { requestMs: 120_000 } },
  "central id lists on $name",
  (engine) => {
    const service = () => engine.service();
    let loaded = false;
    async function withFacts() {
      const found = await service();
      if (!loaded) {
        await found.clearData();
        await found.postPolicy({ src: POLICY, filename: "p.polar" }, {});
        const ids = docIds(70_000);
        await found.batch([
          {
            inserts: [
              viewer("ada", "Folder", "f"),
              ...ids.filter((_, i) => i % 97 === 0).map((id) => viewer("ada", "Doc", id)),
              ...ids.filter((_, i) => i % 101 === 0).map(inFolder),
            ],
          },
        ]);
        loaded = true;
      }
      return found;
    }

    for (const n of [3, 29_999, 30_001, 70_000]) {
      it(`authorize_resources with ${n} resources: the permitted ones, in request order`, async () => {
        const found = await withFacts();
        const ids = docIds(n).reverse();
        const reply = await found.authorizeResources({
          actor_type: "User",
          actor_id: "ada",
          action: "read",
          resources: ids.map((id) => value("Doc", id)),
        });
        const expected = ids.filter((id) => permitted(Number(id.slice(1))));
        expect(reply.body).toEqual({ results: expected.map((id) => value("Doc", id)) });
        expect(expected.length).toBeGreaterThan(0);
      });
    }

    it("evaluate_query with 70,000 ids in one constraint, and list, agree", async () => {
      const found = await withFacts();
      const reply = await found.evaluateQuery(readQuery(docIds(70_000).concat(["d0", "nope"])));
      const rows = (reply.body as { results: { c: string }[] }).results;
      const expected = docIds(70_000).filter((_, i) => permitted(i));
      expect(rows.map((row) => row.c).sort()).toEqual([...expected].sort());
      expect(rows.every((row) => (row as unknown as { a: string }).a === "ada")).toBe(true);
      const listed = await found.list({
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resource_type: "Doc",
        page_size: 100_000,
      });
      expect([...(listed.body as { results: string[] }).results].sort()).toEqual(
        [...expected].sort(),
      );
    });

    it("short lists asked often (a prepared statement), then a long one, answer alike", async () => {
      const found = await withFacts();
      const ask = async (ids: readonly string[]) => {
        const reply = await found.authorizeResources({
          actor_type: "User",
          actor_id: "ada",
          action: "read",
          resources: ids.map((id) => value("Doc", id)),
        });
        return (reply.body as { results: { id: string }[] }).results.map((r) => r.id);
      };
      for (let round = 0; round < 8; round++) {
        const ids = docIds(5_000).slice(round * 50, round * 50 + 50);
        expect(await ask(ids)).toEqual(ids.filter((id) => permitted(Number(id.slice(1)))));
      }
      const long = docIds(5_000);
      expect(await ask(long)).toEqual(long.filter((_, i) => permitted(i)));
      expect(await ask(long)).toEqual(long.filter((_, i) => permitted(i)));
    });

    it("a list of integers is an array of bigint", async () => {
      const found = await service();
      // Its own policy and facts; the next test that needs the file's loads them again.
      loaded = false;
      await found.clearData();
      const policy = `actor User {}\nallow(u: User, "level", n: Integer) if has_level(u, n);\n`;
      await found.postPolicy({ src: policy, filename: "levels.polar" }, {});
      const level = (n: string) => ({
        predicate: "has_level",
        args: [value("User", "ada"), value("Integer", n)],
      });
      await found.batch([{ inserts: [level("3"), level("-9000000000"), level("12")] }]);
      const reply = await found.evaluateQuery({
        predicate: ["allow", ["u", "a", "n"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["ada"] },
          a: { type: "String", ids: ["level"] },
          n: { type: "Integer", ids: ["1", "3", "-9000000000", "x", "12", "13"] },
        },
      });
      const levels = (reply.body as { results: { n: string }[] }).results.map((r) => r.n);
      expect(levels.sort()).toEqual(["-9000000000", "12", "3"]);
    });

    it("more than 30,000 printed parameters (context facts): literals, the right answer", async () => {
      const found = await withFacts();
      const extra = Array.from({ length: 31_000 }, (_, i) => `x${i}`);
      const reply = await found.authorizeResources({
        actor_type: "User",
        actor_id: "bo",
        action: "read",
        resources: [value("Doc", "x7"), value("Doc", "d0"), value("Doc", "x30999")],
        context_facts: extra.map((id) => viewer("bo", "Doc", id)),
      });
      expect(reply.body).toEqual({ results: [value("Doc", "x7"), value("Doc", "x30999")] });
    });

    it("hostile ids inside the array parameter answer exactly", async () => {
      const found = await service();
      await found.postPolicy({ src: POLICY, filename: "p.polar" }, {});
      loaded = false;
      // A leading U+FEFF, which PGlite dropped before src/store/pglite-text.ts, is as likely
      // as any other first character.
      const id = fc.oneof(
        fc.constantFrom('"', "\\", '\\"', "{}", "{a,b}", "NULL", " x ", ",", "'", "é", "😀"),
        hostileId.filter((s) => !s.includes("\u0000")),
        hostileId.map((s) => `\uFEFF${s.replaceAll("\u0000", "")}`),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(id, { minLength: 1, maxLength: 6 }),
          fc.uniqueArray(id, { maxLength: 6 }),
          async (allowed, others) => {
            await found.clearData();
            await found.batch([{ inserts: allowed.map((d) => viewer("ada", "Doc", d)) }]);
            const asked = [...new Set([...others, ...allowed])];
            const reply = await found.authorizeResources({
              actor_type: "User",
              actor_id: "ada",
              action: "read",
              resources: asked.map((d) => value("Doc", d)),
            });
            const expected = asked.filter((d) => allowed.includes(d));
            expect(reply.body).toEqual({ results: expected.map((d) => value("Doc", d)) });
          },
        ),
        { numRuns: propertyRuns(12, 100) },
      );
    });
  },
);

describe("the SQLite form on better-sqlite3", () => {
  const db = new Database(":memory:");
  const args = [0, 1, 2].map(
    (i) => `t${i} text not null default '', i${i} text not null default ''`,
  );
  db.exec(`create table polar_fact (predicate text not null, arity integer not null, ${args})`);
  db.exec("create index polar_fact_a2 on polar_fact (predicate, arity, i2, t2)");
  const insert = db.prepare(
    "insert into polar_fact (predicate, arity, t0, i0, t1, i1, t2, i2) values (?, 3, ?, ?, ?, ?, ?, ?)",
  );
  const store = (fact: ReturnType<typeof viewer>) =>
    insert.run(fact.predicate, ...fact.args.flatMap((arg) => [arg.type, arg.id]));
  const answer = (ids: readonly string[]) => {
    const { sql, parameters } = printed(sqlite, ids, "parameters");
    const rows = db.prepare(sql).all(...parameters) as { c2: string }[];
    return rows.map((row) => row.c2).sort();
  };

  it("70,000 ids in one JSON parameter: the permitted ones", () => {
    db.exec("delete from polar_fact");
    const ids = docIds(70_000);
    db.transaction(() => {
      store(viewer("ada", "Folder", "f"));
      ids.forEach((id, i) => {
        if (i % 97 === 0) store(viewer("ada", "Doc", id));
        if (i % 101 === 0) store(inFolder(id));
      });
    })();
    expect(answer(ids)).toEqual(ids.filter((_, i) => permitted(i)).sort());
    expect(answer(["d97", "d1", "nope"])).toEqual(["d97"]);
  });

  it("hostile ids inside the JSON parameter answer exactly", () => {
    // Ids are never empty (docs/http-api.md, "Ids").
    const id = fc.oneof(fc.constantFrom('"', "\\", "[]", "null", "'", "😀"), hostileId);
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(id, { maxLength: 6 }),
        (allowed, others) => {
          db.exec("delete from polar_fact");
          for (const d of allowed) store(viewer("ada", "Doc", d));
          const asked = [...new Set([...others, ...allowed])];
          expect(answer(asked)).toEqual([...allowed].sort());
        },
      ),
      { numRuns: propertyRuns(60, 500) },
    );
  });
});
