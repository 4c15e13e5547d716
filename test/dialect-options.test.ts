/**
 * The `dialect` option everywhere a local question is asked: the library functions (option
 * and body field), `polar-sql sql --dialect`, and the HTTP bodies. `postgres` prints exactly
 * what no dialect prints; an unknown name is refused with the allowed values named.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  actionsQuery,
  authorizeQuery,
  evaluateQueryLocal,
  LocalQueryError,
  listQuery,
} from "../src/api/local.js";
import type { CliIo } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { createService } from "../src/service/service.js";
import { checked } from "./local-support.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const POLICY = `actor User {}
resource Doc {
  roles = ["reader"];
  permissions = ["read"];
  relations = { folder: Folder };
  "read" if "reader";
  "reader" if "reader" on "folder";
}
resource Folder {
  roles = ["reader"];
  relations = { parent: Folder };
  "reader" if "reader" on "parent";
}`;
const BINDINGS = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM doc_roles
  "has_role(User:_, String:_, Folder:_)":
    query: SELECT user_id, role, folder_id FROM folder_roles
  "has_relation(Doc:_, folder, Folder:_)":
    query: SELECT id, folder_id FROM docs
  "has_relation(Folder:_, parent, Folder:_)":
    query: SELECT id, parent_id FROM folders
`;
const program = checked(POLICY);
const query = {
  actor_type: "User",
  actor_id: "ann",
  action: "read",
  resource_type: "Doc",
  resource_id: "d1",
};
const body = { query, data_bindings: BINDINGS };

describe("the library", () => {
  it("prints each dialect; postgres is the default", () => {
    const postgres = authorizeQuery(program, body).sql;
    expect(authorizeQuery(program, body, { dialect: "postgres" }).sql).toBe(postgres);
    const mysql = authorizeQuery(program, body, { dialect: "mysql" }).sql;
    const sqlite = authorizeQuery(program, body, { dialect: "sqlite" }).sql;
    expect(mysql).toContain("cast('ann' as binary)");
    expect(mysql).not.toContain("materialized");
    expect(sqlite).toContain("'ann' collate binary");
    // Plain scans are read from their tables (src/lower/inline-scans.ts).
    expect(sqlite).toContain("from doc_roles as f0");
    expect(new Set([postgres, mysql, sqlite]).size).toBe(3);
  });

  it("takes the body's `dialect` field; the option wins", () => {
    expect(authorizeQuery(program, { ...body, dialect: "sqlite" }).sql).toBe(
      authorizeQuery(program, body, { dialect: "sqlite" }).sql,
    );
    expect(authorizeQuery(program, { ...body, dialect: "sqlite" }, { dialect: "mysql" }).sql).toBe(
      authorizeQuery(program, body, { dialect: "mysql" }).sql,
    );
    const { action: _, ...pair } = query;
    for (const dialect of ["mysql", "sqlite"]) {
      expect(actionsQuery(program, { query: pair, data_bindings: BINDINGS, dialect }).sql).toBe(
        actionsQuery(
          program,
          { query: pair, data_bindings: BINDINGS },
          { dialect: dialect as never },
        ).sql,
      );
    }
  });

  it("refuses an unknown dialect, naming the allowed ones", () => {
    const message = "unknown dialect `oracle`; use one of `postgres`, `mysql`, `sqlite`";
    expect(() => authorizeQuery(program, body, { dialect: "oracle" as never })).toThrow(
      new LocalQueryError({
        code: "P601",
        kind: "unknown-dialect",
        name: "oracle",
        allowed: "`postgres`, `mysql`, `sqlite`",
      }),
    );
    expect(() => authorizeQuery(program, { ...body, dialect: "oracle" })).toThrow(message);
    const { resource_id: _, ...listed } = query;
    expect(() =>
      listQuery(program, {
        query: listed,
        column: "docs.id",
        data_bindings: BINDINGS,
        dialect: "oracle",
      }),
    ).toThrow(message);
    expect(() =>
      evaluateQueryLocal(program, {
        query: {
          predicate: ["allow", ["u", "a", "r"]],
          constraints: {
            u: { type: "User", ids: ["ann"] },
            a: { type: "String", ids: null },
            r: { type: "Doc", ids: null },
          },
        },
        data_bindings: BINDINGS,
        mode: { mode: "select", query_vars_to_output_column_names: { r: "doc" } },
        dialect: "oracle",
      }),
    ).toThrow(message);
  });
});

async function run(args: string[]) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    isTTY: false,
    env: {},
  };
  return { code: await main(args, io), ...out };
}

describe("polar-sql sql --dialect", () => {
  it("prints the dialect's SQL on every question; postgres prints what no flag prints", async () => {
    const dir = await mkdtemp(join(tmpdir(), "polar-dialect-"));
    await writeFile(join(dir, "p.polar"), POLICY);
    await writeFile(join(dir, "b.yaml"), BINDINGS);
    await writeFile(
      join(dir, "q.json"),
      JSON.stringify({
        query: {
          predicate: ["allow", ["u", "a", "r"]],
          constraints: {
            u: { type: "User", ids: ["ann"] },
            a: { type: "String", ids: null },
            r: { type: "Doc", ids: null },
          },
        },
        mode: { mode: "select", query_vars_to_output_column_names: { r: "doc" } },
      }),
    );
    const base = ["sql", "--policy", join(dir, "p.polar"), "--bindings", join(dir, "b.yaml")];
    const questions = [
      ["authorize", "--actor", "User:ann", "--action", "read", "--resource", "Doc:d1"],
      ["actions", "--actor", "User:ann", "--resource", "Doc:d1"],
      [
        "list",
        "--actor",
        "User:ann",
        "--action",
        "read",
        "--resource-type",
        "Doc",
        "--column",
        "docs.id",
      ],
      ["evaluate", "--body", join(dir, "q.json")],
    ];
    for (const question of questions) {
      const [name, ...flags] = question;
      const plain = await run([...base.slice(0, 1), name!, ...base.slice(1), ...flags]);
      expect(plain.code, plain.stderr).toBe(0);
      const postgres = await run([
        ...base.slice(0, 1),
        name!,
        ...base.slice(1),
        ...flags,
        "--dialect",
        "postgres",
      ]);
      expect(postgres).toEqual(plain);
      for (const dialect of ["mysql", "sqlite"]) {
        const out = await run([
          ...base.slice(0, 1),
          name!,
          ...base.slice(1),
          ...flags,
          "--dialect",
          dialect,
        ]);
        expect(out.code, out.stderr).toBe(0);
        const expected =
          name === "authorize"
            ? authorizeQuery(program, body, { dialect: dialect as never }).sql
            : null;
        if (expected) expect(out.stdout).toBe(`${expected}\n`);
        expect(out.stdout).not.toBe(plain.stdout);
      }
    }
    const wrong = await run([
      "sql",
      "authorize",
      ...base.slice(1),
      ...questions[0]!.slice(1),
      "--dialect",
      "oracle",
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      "unknown dialect `oracle`; use one of `postgres`, `mysql`, `sqlite`",
    );
  });
});

describe("the HTTP bodies", () => {
  it("answer in the body's dialect and refuse an unknown one with a 400", async () => {
    const service = await createService({ pool: sharedWorkerPool() });
    try {
      const app = createApp({ service, apiKeys: ["k"], logger: silentLogger });
      const post = (path: string, payload: unknown) =>
        app.request(path, {
          method: "POST",
          headers: { Authorization: "Bearer k", "Content-Type": "application/json" },
          body: JSON.stringify(payload),
        });
      expect((await post("/api/policy", { src: POLICY, filename: "policy.polar" })).status).toBe(
        200,
      );
      const answer = async (payload: unknown) => {
        const res = await post("/api/authorize_query", payload);
        return {
          status: res.status,
          body: (await res.json()) as { sql?: string; message?: string },
        };
      };
      const plain = await answer(body);
      expect(plain.status).toBe(200);
      expect((await answer({ ...body, dialect: "postgres" })).body.sql).toBe(plain.body.sql);
      const mysql = await answer({ ...body, dialect: "mysql" });
      expect(mysql.status).toBe(200);
      expect(mysql.body.sql).toContain("as binary");
      const wrong = await answer({ ...body, dialect: "oracle" });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toContain("use one of `postgres`, `mysql`, `sqlite`");
      const { resource_id: _, ...listed } = query;
      const list = await post("/api/list_query", {
        query: listed,
        column: "docs.id",
        data_bindings: BINDINGS,
        dialect: "sqlite",
      });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { sql: string }).sql).toContain("collate binary");
    } finally {
      await service.close();
    }
  });
});

describe("Kysely expressions in the mysql and sqlite dialects", () => {
  it("compose into the caller's query and answer on the engine", async () => {
    const { MysqlQueryCompiler, SqliteQueryCompiler, SelectQueryNode, RawNode } = await import(
      "kysely"
    );
    const { listQueryExpression } = await import("../src/api/local.js");
    const schema = `CREATE TABLE doc_roles (user_id varchar(64), role varchar(64), doc_id varchar(64));
CREATE TABLE folder_roles (user_id varchar(64), role varchar(64), folder_id varchar(64));
CREATE TABLE docs (id varchar(64), folder_id varchar(64));
CREATE TABLE folders (id varchar(64), parent_id varchar(64));
INSERT INTO folders VALUES ('f1', NULL), ('f2', 'f1');
INSERT INTO docs VALUES ('d1', 'f2'), ('d2', 'f1'), ('d3', NULL);
INSERT INTO folder_roles VALUES ('ann', 'reader', 'f1'), ('Ann', 'reader', 'f2');
INSERT INTO doc_roles VALUES ('bob', 'reader', 'd3')`;
    const { resource_id: _, ...listed } = query;
    const compile = (dialect: "mysql" | "sqlite") => {
      const node = listQueryExpression(
        program,
        { query: listed, column: "docs.id", data_bindings: BINDINGS },
        { dialect },
      ).toOperationNode();
      const Compiler = dialect === "mysql" ? MysqlQueryCompiler : SqliteQueryCompiler;
      const root = SelectQueryNode.is(node) ? node : RawNode.createWithChild(node);
      return new Compiler().compileQuery(root as never, { queryId: "q" } as never);
    };
    // SQLite
    const Database = (await import("better-sqlite3")).default;
    const lite = new Database(":memory:");
    lite.exec(schema);
    const compiled = compile("sqlite");
    const rows = lite
      .prepare(`SELECT id FROM docs WHERE ${compiled.sql} ORDER BY id`)
      .all(...(compiled.parameters as unknown[])) as { id: string }[];
    expect(rows.map((r) => r.id)).toEqual(["d1", "d2"]);
    lite.close();
    // MariaDB
    const mysql = (await import("mysql2/promise")).default;
    const connection = await mysql.createConnection({
      host: "127.0.0.1",
      user: "root",
      multipleStatements: true,
    });
    const database = `polar_compose_${process.pid}`;
    try {
      await connection.query(`CREATE DATABASE ${database}; USE ${database}; ${schema}`);
      const onMaria = compile("mysql");
      const [found] = await connection.query(
        `SELECT id FROM docs WHERE ${onMaria.sql} ORDER BY id`,
        [...(onMaria.parameters as unknown[])],
      );
      expect((found as { id: string }[]).map((r) => r.id)).toEqual(["d1", "d2"]);
    } finally {
      await connection.query(`DROP DATABASE IF EXISTS ${database}`);
      await connection.end();
    }
  });
});
