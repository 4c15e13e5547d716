/**
 * The store's fixed statements are Kysely `sql` statements compiled per engine
 * (src/store/compile.ts): identifiers are quoted, values are parameters. Facts whose ids are
 * SQL fragments are stored, read, paged, followed and deleted as plain text on SQLite and, with
 * DATABASE_URL, on PostgreSQL; a hostile pattern deletes nothing it does not match.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroundFact } from "../src/core/value.js";
import { compile } from "../src/store/compile.js";
import {
  countFacts,
  deleteExactFacts,
  deleteFacts,
  factsAfter,
  insertFacts,
  readFacts,
  relationClosure,
} from "../src/store/facts.js";
import { type FactStore, openStore } from "../src/store/store.js";
import { serverSchema } from "./support/central-services.js";

describe("compile", () => {
  const hostile = "x' OR '1'='1";

  it("writes values as parameters and quotes identifiers, per engine", () => {
    const statement = sql`SELECT * FROM ${sql.table("polar_fact")} WHERE fact_key = ${hostile}`;
    expect(compile("postgres", statement)).toMatchObject({
      sql: `SELECT * FROM "polar_fact" WHERE fact_key = $1`,
      parameters: [hostile],
    });
    expect(compile("sqlite", statement)).toMatchObject({
      sql: `SELECT * FROM "polar_fact" WHERE fact_key = ?`,
      parameters: [hostile],
    });
  });

  it("keeps a name with a quote one identifier", () => {
    const { sql: text } = compile(
      "postgres",
      sql`CREATE SCHEMA ${sql.id('env"; DROP TABLE x; --')}`,
    );
    expect(text).toBe(`CREATE SCHEMA "env""; DROP TABLE x; --"`);
  });
});

const HOSTILE_IDS = [
  "it's",
  'say "hi"',
  "back\\slash",
  "$1",
  "?",
  "a'); DROP TABLE polar_fact; --",
];
const facts: GroundFact[] = HOSTILE_IDS.map((id, i) => ({
  predicate: "has_relation",
  args: [
    { type: "Doc", id },
    { type: "String", id: "parent" },
    { type: "Doc", id: HOSTILE_IDS[(i + 1) % HOSTILE_IDS.length]! },
  ],
}));
const sorted = (found: readonly GroundFact[]) => found.map((f) => JSON.stringify(f)).sort();

const engines: { name: string; open(): Promise<{ store: FactStore; drop(): Promise<void> }> }[] = [
  { name: "sqlite", open: async () => ({ store: await openStore({}), drop: async () => {} }) },
];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  engines.push({
    name: "postgres",
    open: async () => {
      const schema = await serverSchema(databaseUrl, "compile");
      return { store: await openStore({ databaseUrl: schema.url }), drop: schema.drop };
    },
  });
}

describe.each(engines)("fact statements on $name", ({ open }) => {
  let opened: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    opened = await open();
    await insertFacts(opened.store.db, facts);
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.drop();
  });

  it("stores, reads, pages and follows ids that are SQL as text", async () => {
    const { db } = opened.store;
    const read = await readFacts(db, { predicate: "has_relation", positions: new Map() });
    expect(sorted(read)).toEqual(sorted(facts));
    const paged = await factsAfter(db, null, 100);
    expect(sorted(paged.map((page) => page.fact))).toEqual(sorted(facts));
    const reached = await relationClosure(db, [{ type: "Doc", id: "it's" }], 100);
    expect(reached.size).toBe(HOSTILE_IDS.length);
    expect(reached.get("Doc\u0000$1")).toEqual([facts[3]]);
  });

  it("deletes only what a hostile pattern matches", async () => {
    const { db } = opened.store;
    const none = await deleteFacts(db, {
      predicate: "has_relation",
      args: [
        { type: "Doc", id: "x' OR '1'='1" },
        { type: null, id: null },
        { type: null, id: null },
      ],
    });
    expect(none).toBe(0);
    expect((await countFacts(db)).relations).toBe(HOSTILE_IDS.length);
    expect(await deleteExactFacts(db, [facts[5]!])).toBe(1);
    expect((await countFacts(db)).relations).toBe(HOSTILE_IDS.length - 1);
  });
});
