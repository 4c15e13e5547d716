/**
 * The Kysely helpers' row types tell the truth on every engine: a consumer composes
 * `authorizeQueryExpression` and `actionsQueryExpression` into its own typed Kysely queries
 * for PostgreSQL (PGlite, the server), MariaDB (Kysely's MysqlDialect over mysql2) and SQLite
 * (SqliteDialect over better-sqlite3), and the values the drivers return have the types the
 * helpers declare. The type assertions are checked by `npm run typecheck`.
 */
import Database from "better-sqlite3";
import {
  type ExpressionWrapper,
  Kysely,
  MysqlDialect,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteDialect,
  sql,
} from "kysely";
import { createPool } from "mysql2";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  type AllowedValue,
  actionsQueryExpression,
  authorizeQueryExpression,
} from "../src/api/local.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { MARIADB } from "./support/mariadb.js";

const program = checked(`actor User {}
resource Doc {
  roles = ["viewer", "owner"];
  permissions = ["read", "delete"];
  "read" if "viewer";
  "viewer" if "owner";
  "delete" if "owner";
}`);

const bindings = (table: string) => `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM ${table}
sql_types:
  Doc: integer
`;

const question = (actor_id: string, action: string) => ({
  actor_type: "User",
  actor_id,
  action,
  resource_type: "Doc",
  resource_id: "1",
});

interface Tables {
  docs: { id: number };
}

const SETUP = [
  "CREATE TABLE docs (id integer PRIMARY KEY)",
  "CREATE TABLE doc_roles (user_id varchar(20), role varchar(20), doc_id integer)",
  "INSERT INTO docs VALUES (1)",
  "INSERT INTO doc_roles VALUES ('ada', 'owner', 1), ('bob', 'viewer', 1)",
];

describe("the row types of the helpers", () => {
  it("follow the dialect named in the options, else in the body, else PostgreSQL", () => {
    const body = { query: question("ada", "read"), data_bindings: bindings("doc_roles") };
    type Row<E> = E extends ExpressionWrapper<never, never, infer R> ? R : never;
    expectTypeOf<Row<ReturnType<typeof authorizeQueryExpression<"mysql">>>>().toEqualTypeOf<{
      allowed: 0 | 1;
    }>();
    const postgres = authorizeQueryExpression(program, body);
    expectTypeOf(postgres).toEqualTypeOf<ExpressionWrapper<never, never, { allowed: boolean }>>();
    const mysql = authorizeQueryExpression(program, body, { dialect: "mysql" });
    expectTypeOf(mysql).toEqualTypeOf<ExpressionWrapper<never, never, { allowed: 0 | 1 }>>();
    const sqlite = authorizeQueryExpression(program, { ...body, dialect: "sqlite" as const });
    expectTypeOf(sqlite).toEqualTypeOf<ExpressionWrapper<never, never, { allowed: 0 | 1 }>>();
    // A body whose dialect is any string: any engine's answer.
    const named: string = "postgres";
    const unknown = authorizeQueryExpression(program, { ...body, dialect: named });
    expectTypeOf(unknown).toEqualTypeOf<
      ExpressionWrapper<never, never, { allowed: boolean | 0 | 1 }>
    >();
    expectTypeOf<AllowedValue<"postgres">>().toEqualTypeOf<boolean>();
    // @ts-expect-error MySQL answers 1 or 0, not a boolean.
    const wrong: ExpressionWrapper<never, never, { allowed: boolean }> = mysql;
    expect(wrong).toBe(mysql);
    const actions = actionsQueryExpression(program, {
      query: { actor_type: "User", actor_id: "ada", resource_type: "Doc", resource_id: "1" },
      data_bindings: bindings("doc_roles"),
    });
    expectTypeOf(actions).toEqualTypeOf<ExpressionWrapper<never, never, { actions: string }>>();
  });
});

/** The consumer's queries, on a Kysely instance of the engine's dialect. */
async function answers<D extends "postgres" | "mysql" | "sqlite">(
  dialect: D,
  run: <Row>(query: {
    compile(): { sql: string; parameters: readonly unknown[] };
    execute(): Promise<Row[]>;
  }) => Promise<Row[]>,
  db: Kysely<Tables>,
) {
  const allowed = async (actor: string, action: string) => {
    const expression = authorizeQueryExpression(
      program,
      { query: question(actor, action), data_bindings: bindings("doc_roles") },
      { dialect },
    );
    const rows = await run(
      db
        .selectFrom("docs")
        .innerJoin(expression.as("a"), (join) => join.onTrue())
        .select(["docs.id", "a.allowed"]),
    );
    return rows[0]!.allowed;
  };
  const actions = await run(
    db
      .selectFrom(
        actionsQueryExpression(
          program,
          {
            query: { actor_type: "User", actor_id: "ada", resource_type: "Doc", resource_id: "1" },
            data_bindings: bindings("doc_roles"),
          },
          { dialect },
        ).as("x"),
      )
      .select("x.actions")
      .orderBy("x.actions"),
  );
  const values = [
    await allowed("ada", "delete"),
    await allowed("bob", "read"),
    await allowed("bob", "delete"),
  ];
  return { values, actions: actions.map((row) => row.actions) };
}

describeEngines("a consumer on $name", (engine) => {
  it("reads `allowed` as a boolean and `actions` as text", async () => {
    const db = await engine.db();
    for (const statement of SETUP) await db.query(statement.replaceAll("varchar(20)", "text"));
    // The consumer's own Kysely compiles; the engine runs the text with its parameters.
    const kysely = new Kysely<Tables>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => ({}) as never,
        createIntrospector: (k) => new PostgresIntrospector(k),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    const found = await answers(
      "postgres",
      async (query) => {
        const { sql, parameters } = query.compile();
        return db.query(sql, [...parameters]);
      },
      kysely,
    );
    expectTypeOf(found.values).toEqualTypeOf<boolean[]>();
    expect(found).toEqual({ values: [true, true, false], actions: ["delete", "read"] });
  });
});

// Without MARIADB_URL the suite is listed as skipped (test/support/mariadb.ts).
describe.skipIf(!MARIADB)("a consumer on mariadb", () => {
  const name = `polar_types_${process.pid}`;
  let opened: Kysely<Tables> | undefined;
  const open = () => {
    opened ??= new Kysely<Tables>({
      dialect: new MysqlDialect({ pool: createPool({ ...MARIADB, connectionLimit: 1 }) }),
    });
    return opened;
  };
  afterAll(async () => {
    if (!opened) return;
    await sql`DROP DATABASE IF EXISTS ${sql.id(name)}`.execute(opened);
    await opened.destroy();
  });

  it("reads `allowed` as 1 or 0 and `actions` as text", async () => {
    const db = open();
    await sql`CREATE DATABASE ${sql.id(name)}`.execute(db);
    await sql`USE ${sql.id(name)}`.execute(db);
    for (const statement of SETUP) await sql.raw(statement).execute(db);
    const found = await answers("mysql", (query) => query.execute(), db);
    expectTypeOf(found.values).toEqualTypeOf<(0 | 1)[]>();
    expect(found).toEqual({ values: [1, 1, 0], actions: ["delete", "read"] });
  });
});

describe("a consumer on sqlite", () => {
  const database = new Database(":memory:");
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  afterAll(() => db.destroy());

  it("reads `allowed` as 1 or 0 and `actions` as text", async () => {
    for (const statement of SETUP) database.exec(statement);
    const found = await answers("sqlite", (query) => query.execute(), db);
    expectTypeOf(found.values).toEqualTypeOf<(0 | 1)[]>();
    expect(found).toEqual({ values: [1, 1, 0], actions: ["delete", "read"] });
  });
});
