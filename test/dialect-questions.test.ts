/**
 * One question set for every registered dialect (src/dialects/registry.ts), its SQL side by
 * side: each case states the statement it prints for each dialect in one place, and runs it on
 * each dialect's engine (test/dialect-runners.ts) against the same tables and facts, comparing
 * the answer with the reference evaluator's. The SQL check runs for every dialect; the engine
 * check is skipped where this run has no engine for it (MariaDB without MARIADB_URL).
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  actionsQuery,
  authorizeQuery,
  authorizeQueryExpression,
  evaluateQueryLocal,
  listQuery,
} from "../src/api/local.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { DIALECT_NAMES, DIALECTS, type DialectName } from "../src/dialects/registry.js";
import { actions, authorize, list, query } from "../src/evaluate/index.js";
import { closeEngines, RUNNERS } from "./dialect-runners.js";

import { checked, NOW } from "./local-support.js";

// Engines this file opened (test/dialect-runners.ts).
afterAll(closeEngines);

const program = checked(`actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
resource Doc {
  roles = ["viewer", "owner"];
  permissions = ["read", "edit"];
  relations = { folder: Folder };
  "viewer" if "owner";
  "viewer" if "viewer" on "folder";
  "read" if "viewer";
  "edit" if "owner";
}`);

const data_bindings = `facts:
  "has_role(User:_, String:_, Doc:_)":
    query: SELECT user_id, role, doc_id FROM doc_roles
  "has_role(User:_, String:_, Folder:_)":
    query: SELECT user_id, role, folder_id FROM folder_roles
  "has_relation(Doc:_, String:folder, Folder:_)":
    query: SELECT id, folder_id FROM docs
sql_types:
  Doc: bigint
  Folder: bigint
`;

/** The same tables on every engine: this DDL reads alike in each dialect. */
const TABLES = `CREATE TABLE doc_roles (user_id varchar(64), role varchar(64), doc_id bigint);
CREATE TABLE folder_roles (user_id varchar(64), role varchar(64), folder_id bigint);
CREATE TABLE docs (id bigint, folder_id bigint);
INSERT INTO doc_roles VALUES ('alice', 'owner', 1), ('carol', 'viewer', 3);
INSERT INTO folder_roles VALUES ('bob', 'viewer', 10);
INSERT INTO docs VALUES (1, 10), (2, 10), (3, 20);`;

const user = (id: string): Value => ({ type: "User", id });
const doc = (id: string): Value => ({ type: "Doc", id });
const folder = (id: string): Value => ({ type: "Folder", id });
const fact = (predicate: string, ...args: Value[]): GroundFact => ({ predicate, args });
const role = (id: string): Value => ({ type: "String", id });

/** The rows of `TABLES` as facts, for the evaluator. */
const FACTS: readonly GroundFact[] = [
  fact("has_role", user("alice"), role("owner"), doc("1")),
  fact("has_role", user("carol"), role("viewer"), doc("3")),
  fact("has_role", user("bob"), role("viewer"), folder("10")),
  ...[
    ["1", "10"],
    ["2", "10"],
    ["3", "20"],
  ].map(([d, f]) => fact("has_relation", doc(d!), role("folder"), folder(f!))),
];

const evaluated = { now: () => NOW };
const options = (dialect: DialectName) => ({ dialect, now: () => NOW });

/** A statement as a dialect prints it: text, and the values of its placeholders in order. */
interface Printed {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

interface QuestionCase {
  readonly name: string;
  /** The statement the case's question prints in the dialect. */
  print(dialect: DialectName): Printed;
  /** The statement to run for it (a `list_query` fragment goes into a SELECT). */
  readonly runs?: (printed: Printed) => Printed;
  /** The answer from the engine's rows, in the evaluator's terms, sorted. */
  answer(rows: readonly Record<string, unknown>[]): unknown;
  /** The reference evaluator's answer. */
  expected(): unknown;
  readonly sql: { readonly [Name in DialectName]: Printed };
}

const literalSql = (sql: string): Printed => ({ sql, parameters: [] });
const sorted = (values: readonly unknown[]) => values.map(String).sort();
const allowed = (rows: readonly Record<string, unknown>[]) => Boolean(Number(rows[0]!.allowed));

function authorizeCase(
  name: string,
  actor: string,
  action: string,
  resource: string,
  sql: QuestionCase["sql"],
): QuestionCase {
  const q = {
    actor_type: "User",
    actor_id: actor,
    action,
    resource_type: "Doc",
    resource_id: resource,
  };
  return {
    name,
    print: (dialect) =>
      literalSql(authorizeQuery(program, { query: q, data_bindings }, options(dialect)).sql),
    answer: allowed,
    expected: () => authorize(program, FACTS, user(actor), action, doc(resource), evaluated),
    sql,
  };
}

const CASES: readonly QuestionCase[] = [
  authorizeCase("authorize: an owner reads (allowed)", "alice", "read", "1", {
    postgres: literalSql(
      `select exists (select 1 from doc_roles as f0 where cast(f0.user_id as text) = 'alice' and f0.role in ('viewer', 'owner') and f0.doc_id = 1) or exists (select 1 from docs as f0, folder_roles as f1 where f0.id = 1 and cast(f1.user_id as text) = 'alice' and f1.role = 'viewer' and f1.folder_id = f0.folder_id) as allowed`,
    ),
    mysql: literalSql(
      `select exists (select 1 from doc_roles as f0 where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast('alice' as binary) and f0.role in (cast('viewer' as binary), cast('owner' as binary)) and f0.doc_id = 1) or exists (select 1 from docs as f0, folder_roles as f1 where f0.id = 1 and convert(cast(f1.user_id as char(512) character set utf8mb4) using binary) = cast('alice' as binary) and f1.role = cast('viewer' as binary) and f1.folder_id = f0.folder_id) as allowed`,
    ),
    sqlite: literalSql(
      `select exists (select 1 from doc_roles as f0 where f0.user_id = 'alice' collate binary and f0.role collate binary in ('viewer', 'owner') and f0.doc_id = 1 union all select 1 from docs as f0, folder_roles as f1 where f0.id = 1 and f1.user_id = 'alice' collate binary and f1.role = 'viewer' collate binary and f1.folder_id = f0.folder_id) as allowed`,
    ),
  }),
  authorizeCase("authorize: a folder's viewer edits (denied)", "bob", "edit", "2", {
    postgres: literalSql(
      `select exists (select 1 from doc_roles as f0 where cast(f0.user_id as text) = 'bob' and f0.role = 'owner' and f0.doc_id = 2) as allowed`,
    ),
    mysql: literalSql(
      `select exists (select 1 from doc_roles as f0 where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast('bob' as binary) and f0.role = cast('owner' as binary) and f0.doc_id = 2) as allowed`,
    ),
    sqlite: literalSql(
      `select exists (select 1 from doc_roles as f0 where f0.user_id = 'bob' collate binary and f0.role = 'owner' collate binary and f0.doc_id = 2) as allowed`,
    ),
  }),
  {
    name: "authorize, composed: the request's values are parameters",
    print(dialect) {
      const q = {
        actor_type: "User",
        actor_id: "bob",
        action: "read",
        resource_type: "Doc",
        resource_id: "2",
      };
      const expression = authorizeQueryExpression(
        program,
        { query: q, data_bindings },
        options(dialect),
      );
      // As the caller's Kysely compiles it, with the engine's placeholders.
      const compiled = new DIALECTS[dialect].compiler().compileQuery(
        expression.toOperationNode() as never,
        { queryId: "q" } as never,
      );
      return { sql: compiled.sql, parameters: compiled.parameters };
    },
    answer: allowed,
    expected: () => authorize(program, FACTS, user("bob"), "read", doc("2"), evaluated),
    sql: {
      postgres: {
        sql: `select exists (select 1 from doc_roles as "f0" where cast(f0.user_id as text) = $1 and f0.role in ('viewer', 'owner') and f0.doc_id = cast($2 as bigint)) or exists (select 1 from docs as "f0", folder_roles as "f1" where f0.id = cast($3 as bigint) and cast(f1.user_id as text) = $4 and f1.role = 'viewer' and f1.folder_id = f0.folder_id) as "allowed"`,
        parameters: ["bob", "2", "2", "bob"],
      },
      mysql: {
        sql: `select exists (select 1 from doc_roles as \`f0\` where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast(? as binary) and f0.role in (cast('viewer' as binary), cast('owner' as binary)) and f0.doc_id = cast(? as signed)) or exists (select 1 from docs as \`f0\`, folder_roles as \`f1\` where f0.id = cast(? as signed) and convert(cast(f1.user_id as char(512) character set utf8mb4) using binary) = cast(? as binary) and f1.role = cast('viewer' as binary) and f1.folder_id = f0.folder_id) as \`allowed\``,
        parameters: ["bob", "2", "2", "bob"],
      },
      sqlite: {
        sql: `select exists (select 1 from doc_roles as "f0" where f0.user_id = ? collate binary and f0.role collate binary in ('viewer', 'owner') and f0.doc_id = cast(? as integer) union all select 1 from docs as "f0", folder_roles as "f1" where f0.id = cast(? as integer) and f1.user_id = ? collate binary and f1.role = 'viewer' collate binary and f1.folder_id = f0.folder_id) as "allowed"`,
        parameters: ["bob", "2", "2", "bob"],
      },
    },
  },
  {
    name: "actions on a document",
    print: (dialect) =>
      literalSql(
        actionsQuery(
          program,
          {
            query: {
              actor_type: "User",
              actor_id: "alice",
              resource_type: "Doc",
              resource_id: "1",
            },
            data_bindings,
          },
          options(dialect),
        ).sql,
      ),
    answer: (rows) => sorted(rows.map((row) => row.actions)),
    expected: () => sorted(actions(program, FACTS, user("alice"), doc("1"), evaluated)),
    sql: {
      postgres: literalSql(
        `select distinct a.actions from (select cast('read' as text) as actions from doc_roles as f0 where cast(f0.user_id as text) = 'alice' and f0.role in ('viewer', 'owner') and f0.doc_id = 1 union all select cast('read' as text) as actions from docs as f0, folder_roles as f1 where f0.id = 1 and cast(f1.user_id as text) = 'alice' and f1.role = 'viewer' and f1.folder_id = f0.folder_id union all select cast('edit' as text) as actions from doc_roles as f0 where cast(f0.user_id as text) = 'alice' and f0.role = 'owner' and f0.doc_id = 1) as a`,
      ),
      mysql: literalSql(
        `select convert(min(d.actions) using utf8mb4) as actions from (select 'read' as actions from doc_roles as f0 where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast('alice' as binary) and f0.role in (cast('viewer' as binary), cast('owner' as binary)) and f0.doc_id = 1 union all select 'read' as actions from docs as f0, folder_roles as f1 where f0.id = 1 and convert(cast(f1.user_id as char(512) character set utf8mb4) using binary) = cast('alice' as binary) and f1.role = cast('viewer' as binary) and f1.folder_id = f0.folder_id union all select 'edit' as actions from doc_roles as f0 where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast('alice' as binary) and f0.role = cast('owner' as binary) and f0.doc_id = 1) as d group by cast(d.actions as binary)`,
      ),
      sqlite: literalSql(
        `select distinct a.actions from (select 'read' as actions from doc_roles as f0 where f0.user_id = 'alice' collate binary and f0.role collate binary in ('viewer', 'owner') and f0.doc_id = 1 union all select 'read' as actions from docs as f0, folder_roles as f1 where f0.id = 1 and f1.user_id = 'alice' collate binary and f1.role = 'viewer' collate binary and f1.folder_id = f0.folder_id union all select 'edit' as actions from doc_roles as f0 where f0.user_id = 'alice' collate binary and f0.role = 'owner' collate binary and f0.doc_id = 1) as a`,
      ),
    },
  },
  {
    name: "list: the documents a folder's viewer reads",
    print: (dialect) =>
      literalSql(
        listQuery(
          program,
          {
            query: { actor_type: "User", actor_id: "bob", action: "read", resource_type: "Doc" },
            column: "docs.id",
            data_bindings,
          },
          options(dialect),
        ).sql,
      ),
    runs: (fragment) => ({
      ...fragment,
      sql: `SELECT docs.id AS id FROM docs WHERE ${fragment.sql}`,
    }),
    answer: (rows) => sorted(rows.map((row) => row.id)),
    expected: () => sorted(list(program, FACTS, user("bob"), "read", "Doc", evaluated)),
    sql: {
      postgres: literalSql(
        `docs.id = any(array((select f0.doc_id from doc_roles as f0 where cast(f0.user_id as text) = 'bob' and f0.role in ('viewer', 'owner') and f0.doc_id is not null union all select f0.id from docs as f0, folder_roles as f1 where cast(f1.user_id as text) = 'bob' and f1.role = 'viewer' and f1.folder_id = f0.folder_id and f0.id is not null)))`,
      ),
      mysql: literalSql(
        `docs.id in (select d.c from (select f0.doc_id as c from doc_roles as f0 where convert(cast(f0.user_id as char(512) character set utf8mb4) using binary) = cast('bob' as binary) and f0.role in (cast('viewer' as binary), cast('owner' as binary)) and f0.doc_id is not null union all select f0.id from docs as f0, folder_roles as f1 where convert(cast(f1.user_id as char(512) character set utf8mb4) using binary) = cast('bob' as binary) and f1.role = cast('viewer' as binary) and f1.folder_id = f0.folder_id and f0.id is not null) as d)`,
      ),
      sqlite: literalSql(
        `docs.id in (select f0.doc_id from doc_roles as f0 where f0.user_id = 'bob' collate binary and f0.role collate binary in ('viewer', 'owner') and f0.doc_id is not null union all select f0.id from docs as f0, folder_roles as f1 where f1.user_id = 'bob' collate binary and f1.role = 'viewer' collate binary and f1.folder_id = f0.folder_id and f0.id is not null)`,
      ),
    },
  },
  {
    name: "select: who edits which documents",
    print: (dialect) =>
      literalSql(
        evaluateQueryLocal(
          program,
          {
            query: {
              predicate: ["allow", ["u", "a", "r"]],
              calls: [],
              constraints: {
                u: { type: "User", ids: ["alice", "bob", "carol"] },
                a: { type: "String", ids: ["edit"] },
                r: { type: "Doc", ids: ["1", "2", "3"] },
              },
            },
            data_bindings,
            mode: {
              mode: "select",
              query_vars_to_output_column_names: { u: "user_id", r: "doc_id" },
            },
          },
          options(dialect),
        ).sql,
      ),
    answer: (rows) => sorted(rows.map((row) => `${row.user_id} ${row.doc_id}`)),
    expected: () =>
      sorted(
        query(
          program,
          FACTS,
          {
            predicate: ["allow", ["u", "a", "r"]],
            constraints: {
              u: { type: "User", ids: ["alice", "bob", "carol"] },
              a: { type: "String", ids: ["edit"] },
              r: { type: "Doc", ids: ["1", "2", "3"] },
            },
          },
          evaluated,
        ).map((row) => `${row.u} ${row.r}`),
      ),
    sql: {
      postgres: literalSql(
        `select distinct f0.arg0 as "user_id", f1.arg0 as "doc_id" from (values (cast('alice' as text)), (cast('bob' as text)), (cast('carol' as text))) as f0(arg0), (values (1), (2), (3)) as f1(arg0), doc_roles as f2 where cast(f2.user_id as text) = f0.arg0 and f2.role = 'owner' and f2.doc_id = f1.arg0`,
      ),
      mysql: literalSql(
        `select convert(min(d.\`user_id\`) using utf8mb4) as \`user_id\`, d.\`doc_id\` as \`doc_id\` from (select f0.arg0 as \`user_id\`, f1.arg0 as \`doc_id\` from (select 'alice' as arg0 union all select 'bob' as arg0 union all select 'carol' as arg0) as f0, (select 1 as arg0 union all select 2 as arg0 union all select 3 as arg0) as f1, doc_roles as f2 where convert(cast(f2.user_id as char(512) character set utf8mb4) using binary) = cast(f0.arg0 as binary) and f2.role = cast('owner' as binary) and f2.doc_id = f1.arg0) as d group by cast(d.\`user_id\` as binary), d.\`doc_id\``,
      ),
      sqlite: literalSql(
        `select distinct f0.arg0 as "user_id", f1.arg0 as "doc_id" from (select v.column1 as arg0 from (values ('alice'), ('bob'), ('carol')) as v) as f0, (select v.column1 as arg0 from (values (1), (2), (3)) as v) as f1, doc_roles as f2 where f2.user_id collate binary in ('alice', 'bob', 'carol') and cast(f2.user_id as text) = f0.arg0 collate binary and f2.role = 'owner' collate binary and f2.doc_id = f1.arg0`,
      ),
    },
  },
];

it("every case states its SQL for each registered dialect, and the answers differ", () => {
  for (const questionCase of CASES) {
    expect(Object.keys(questionCase.sql).sort(), questionCase.name).toEqual(
      [...DIALECT_NAMES].sort(),
    );
  }
  // An allowed and a denied question: a statement that always answered one way would fail.
  expect(CASES.slice(0, 2).map((c) => c.expected())).toEqual([true, false]);
});

describe.each(DIALECT_NAMES)("%s", (dialect) => {
  it.each(CASES)("$name: the SQL", (questionCase) => {
    expect(questionCase.print(dialect)).toEqual(questionCase.sql[dialect]);
  });

  const open = RUNNERS[dialect];
  describe.skipIf(open === null)("on its engine", () => {
    it("answers every case as the reference evaluator does", async () => {
      const runner = await open!();
      await runner.exec(TABLES);
      for (const questionCase of CASES) {
        const printed = questionCase.print(dialect);
        const run = questionCase.runs?.(printed) ?? printed;
        const rows = await runner.query(run.sql, run.parameters);
        expect(
          questionCase.answer(rows),
          `${runner.engine}: ${questionCase.name}\n${run.sql}`,
        ).toEqual(questionCase.expected());
      }
    });
  });
});
