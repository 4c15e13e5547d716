/**
 * Central rows recur in every local question: their grouping, the binding rows derived from
 * them and their printed text are kept per array a central source returns. These tests pin
 * that what is kept never leaks into a question it does not belong to: other bindings (SQL
 * types), other actors, context facts, and a source whose data changed.
 */
import { expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import type { CentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";

const program = checked(`actor User {}
resource Org { roles = ["member"]; }
resource Repo {
  permissions = ["read"];
  relations = { org: Org };
  "read" if "member" on "org";
}`);

/** Repo → Org relations are bound and stored centrally too; roles are central only. */
function bindingsText(repoType: string): string {
  return `facts:
  has_relation(Repo:_, org, Org:_):
    query: SELECT id, org_id FROM repos
sql_types:
  Repo: ${repoType}
  Org: integer
`;
}

const fact = (predicate: string, ...args: [string, string][]): GroundFact => ({
  predicate,
  args: args.map(([type, id]) => ({ type, id })),
});

/** A source that returns one array per predicate, whatever the lookup: the reuse case. */
function fixedSource(facts: readonly GroundFact[]): CentralFacts {
  const byPredicate = new Map<string, GroundFact[]>();
  for (const f of facts) byPredicate.set(f.predicate, [...(byPredicate.get(f.predicate) ?? []), f]);
  return { facts: (predicate) => byPredicate.get(predicate) ?? [] };
}

const stored = [
  fact("has_relation", ["Repo", "10"], ["String", "org"], ["Org", "1"]),
  fact("has_relation", ["Repo", "r-x"], ["String", "org"], ["Org", "2"]),
  fact("has_role", ["User", "ada"], ["String", "member"], ["Org", "1"]),
  fact("has_role", ["User", "bo"], ["String", "member"], ["Org", "2"]),
];

function ask(
  central: CentralFacts,
  actor: string,
  repo: string,
  repoType = "integer",
  context: GroundFact[] = [],
): string {
  return authorizeQuery(
    program,
    {
      query: {
        actor_type: "User",
        actor_id: actor,
        action: "read",
        resource_type: "Repo",
        resource_id: repo,
        context_facts: context,
      },
      data_bindings: bindingsText(repoType),
    },
    { central },
  ).sql;
}

function list(central: CentralFacts, actor: string, repoType: string): string {
  return listQuery(
    program,
    {
      query: { actor_type: "User", actor_id: actor, action: "read", resource_type: "Repo" },
      column: "repos.id",
      data_bindings: bindingsText(repoType),
    },
    { central },
  ).sql;
}

describeEngines("central rows kept per array ($name)", (engine) => {
  const schema = `CREATE TABLE repos (id integer, org_id integer);
INSERT INTO repos VALUES (20, 1);`;
  const textSchema = `CREATE TABLE repos (id text, org_id integer);
INSERT INTO repos VALUES ('20', 1), ('r-y', 2);`;

  async function allowed(statement: string, tables = schema): Promise<boolean> {
    const db = await engine.db();
    await db.exec(`DROP TABLE IF EXISTS repos; ${tables}`);
    const rows = await db.query<{ allowed: boolean }>(statement);
    expect(rows).toHaveLength(1);
    return rows[0]!.allowed;
  }

  it("answers each actor from its own rows of a shared array", async () => {
    const central = fixedSource(stored);
    expect(await allowed(ask(central, "ada", "10"))).toBe(true);
    expect(await allowed(ask(central, "bo", "10"))).toBe(false);
    expect(await allowed(ask(central, "ada", "20"))).toBe(true);
    expect(await allowed(ask(central, "bo", "20"))).toBe(false);
  });

  it("writes the same rows for each bindings' SQL types", async () => {
    const central = fixedSource(stored);
    const integer = ask(central, "bo", "10");
    // `r-x` cannot be an integer id: dropped for integer Repo ids, quoted for text ones.
    expect(integer).not.toContain("r-x");
    const text = ask(central, "bo", "r-x", "text");
    expect(text).toContain("'r-x'");
    expect(await allowed(text, textSchema)).toBe(true);
    expect(await allowed(ask(central, "bo", "r-y", "text"), textSchema)).toBe(true);
    expect(await allowed(ask(central, "bo", "10"))).toBe(false);
  });

  it("lists from the same central rows under each bindings' SQL types", async () => {
    const central = fixedSource(stored);
    const db = await engine.db();
    const ids = async (fragment: string, tables: string) => {
      await db.exec(`DROP TABLE IF EXISTS repos; ${tables}`);
      const rows = await db.query<{ id: unknown }>(
        `SELECT id FROM repos WHERE ${fragment} ORDER BY 1`,
      );
      return rows.map((row) => String(row.id));
    };
    // The lookup has no pattern: both questions read one central array.
    expect(await ids(list(central, "bo", "integer"), schema)).toEqual([]);
    // `r-x` is granted by the central row alone (its local row has no organization).
    const withRx = `${textSchema} INSERT INTO repos VALUES ('r-x', NULL);`;
    expect(await ids(list(central, "bo", "text"), withRx)).toEqual(["r-x", "r-y"]);
    expect(await ids(list(central, "ada", "integer"), schema)).toEqual(["20"]);
  });

  it("does not keep context facts with the central rows", async () => {
    const central = fixedSource(stored);
    const extra = fact("has_relation", ["Repo", "30"], ["String", "org"], ["Org", "2"]);
    expect(await allowed(ask(central, "bo", "30", "integer", [extra]))).toBe(true);
    expect(await allowed(ask(central, "bo", "30"))).toBe(false);
  });

  it("sees changed data when the source returns a new array", async () => {
    let facts = stored;
    const central: CentralFacts = { facts: (p) => facts.filter((f) => f.predicate === p) };
    expect(await allowed(ask(central, "bo", "40"))).toBe(false);
    facts = [...stored, fact("has_relation", ["Repo", "40"], ["String", "org"], ["Org", "2"])];
    expect(await allowed(ask(central, "bo", "40"))).toBe(true);
  });
});

it("prints nothing to run while a lookup is still to be loaded, and the statement once it is", () => {
  let loaded = false;
  const all = fixedSource(stored);
  const source: CentralFacts = {
    facts: (predicate, arity) => (loaded ? all.facts(predicate, arity) : []),
    complete: () => loaded,
  };
  expect(ask(source, "ada", "10")).toBe("");
  loaded = true;
  expect(ask(source, "ada", "10")).toContain("select");
});
