/**
 * Local check with the library: filter the application's `issues` table by permission in one
 * SQL statement, composed with Kysely and run on embedded PostgreSQL (PGlite).
 *
 *   npx tsx examples/quickstart/local-filter.ts [user]
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from "kysely";
import {
  checkPolicyOrThrow,
  type GroundFact,
  inMemoryCentralFacts,
  listQueryExpression,
} from "../../src/index.js";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

interface Database {
  issues: { id: number; repo_id: number; creator_id: string; title: string };
}

/** Kysely only builds the query here; PGlite runs it. */
const kysely = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/**
 * The issues `user` may read, by title. `db` holds the quick start's tables (schema.sql);
 * without it a fresh PGlite is created and loaded.
 */
export async function readableIssues(user: string, db?: PGlite): Promise<string[]> {
  const program = checkPolicyOrThrow([
    { name: "policy.polar", text: await readFile(here("policy.polar"), "utf8") },
  ]);
  // Roles are central facts (in a real deployment: the polar-sql service's store).
  const facts = JSON.parse(await readFile(here("facts.json"), "utf8")) as GroundFact[];
  const central = inMemoryCentralFacts(facts.filter((f) => f.predicate === "has_role"));
  const bindings = await readFile(here("bindings.yaml"), "utf8");

  const permitted = listQueryExpression(
    program,
    {
      query: { actor_type: "User", actor_id: user, action: "read", resource_type: "Issue" },
      column: "issues.id",
      data_bindings: bindings,
    },
    { central },
  );
  const query = kysely
    .selectFrom("issues")
    .select(["issues.title"])
    .where(sql<boolean>`${permitted}`)
    .orderBy("issues.id")
    .compile();

  const own = db ? null : await PGlite.create();
  try {
    if (own) await own.exec(await readFile(here("schema.sql"), "utf8"));
    const result = await (db ?? own!).query<{ title: string }>(query.sql, [...query.parameters]);
    return result.rows.map((row) => row.title);
  } finally {
    await own?.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const user = process.argv[2] ?? "bob";
  console.log(`issues ${user} may read:`, await readableIssues(user));
}
