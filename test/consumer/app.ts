/**
 * A consumer of the published package: composes polar-sql's local questions into its own typed
 * Kysely queries and runs them on PostgreSQL (DATABASE_URL), in a schema of its own. Prints the
 * answers as JSON. Type-checked with strict `tsc` against the packed package's declarations.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import {
  actionsQueryExpression,
  authorizeQueryExpression,
  checkPolicyOrThrow,
  listQueryExpression,
} from "polar-sql";

interface Database {
  docs: { id: number; title: string };
  doc_roles: { user_id: string; role: string; doc_id: number };
}

const program = checkPolicyOrThrow([
  {
    name: "docs.polar",
    text: `actor User {}
resource Doc {
  roles = ["viewer", "owner"];
  permissions = ["read", "delete"];
  "read" if "viewer";
  "viewer" if "owner";
  "delete" if "owner";
}`,
  },
]);
const data_bindings = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM doc_roles
sql_types:
  Doc: integer
`;

const schema = `consumer_${process.pid}`;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
pool.on("connect", (client) => void client.query(`SET search_path TO ${schema}`));
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });

try {
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
  await sql`CREATE TABLE docs (id integer PRIMARY KEY, title text NOT NULL)`.execute(db);
  await sql`CREATE TABLE doc_roles (user_id text, role text, doc_id integer)`.execute(db);
  await db
    .insertInto("docs")
    .values([
      { id: 1, title: "plan" },
      { id: 2, title: "budget" },
      { id: 3, title: "notes" },
    ])
    .execute();
  await db
    .insertInto("doc_roles")
    .values([
      { user_id: "ada", role: "owner", doc_id: 1 },
      { user_id: "ada", role: "viewer", doc_id: 3 },
      { user_id: "bob", role: "viewer", doc_id: 2 },
    ])
    .execute();

  // A boolean expression in the caller's WHERE clause.
  const readable = await db
    .selectFrom("docs")
    .select(["docs.id", "docs.title"])
    .where(
      listQueryExpression(program, {
        query: { actor_type: "User", actor_id: "ada", action: "read", resource_type: "Doc" },
        column: "docs.id",
        data_bindings,
      }),
    )
    .orderBy("docs.id")
    .execute();

  // An aliased subquery, joined: its `allowed` column is typed boolean.
  const deletable = await db
    .selectFrom("docs")
    .innerJoin(
      authorizeQueryExpression(program, {
        query: {
          actor_type: "User",
          actor_id: "bob",
          action: "delete",
          resource_type: "Doc",
          resource_id: "2",
        },
        data_bindings,
      }).as("a"),
      (join) => join.onTrue(),
    )
    .select(["docs.id", "a.allowed"])
    .where("docs.id", "=", 2)
    .execute();
  const allowed: boolean | undefined = deletable[0]?.allowed;

  // A subquery with a typed `actions` column.
  const actions = await db
    .selectFrom(
      actionsQueryExpression(program, {
        query: { actor_type: "User", actor_id: "ada", resource_type: "Doc", resource_id: "1" },
        data_bindings,
      }).as("x"),
    )
    .select("x.actions")
    .orderBy("x.actions")
    .execute();
  const names: string[] = actions.map((row) => row.actions);

  console.log(JSON.stringify({ readable, allowed, actions: names }));
} finally {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
  await db.destroy();
}
