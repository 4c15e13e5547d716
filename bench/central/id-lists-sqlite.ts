/**
 * The SQLite dialect's central statement for `allow(User ada, "read", Doc d)` with a list of
 * document ids, on better-sqlite3: the fact table of src/store/schema.ts (three argument
 * pairs), 200,000 `has_role` facts, Ada's every 97th. Prints the plan once and the time of one
 * query per size; the ids are one JSON parameter (`json_each(?)`).
 *
 *   npx tsx bench/central/id-lists-sqlite.ts
 */
import Database from "better-sqlite3";
import { evaluateQuestion, localStatement } from "../../src/api/questions.js";
import { parseBody, querySchema } from "../../src/api/wire.js";
import { checkPolicyOrThrow } from "../../src/check/check.js";
import { sqlite } from "../../src/dialects/sqlite/index.js";
import { storeBindings } from "../../src/store/bindings.js";

const POLICY = `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
`;
const program = checkPolicyOrThrow([{ name: "bench.polar", text: POLICY }]);
const bindings = storeBindings([{ predicate: "has_role", types: ["User", "String", "Doc"] }]);
const db = new Database(":memory:");
const pairs = [0, 1, 2].map(
  (i) => `t${i} text not null default '', i${i} text not null default ''`,
);
db.exec(`create table polar_fact (predicate text not null, arity integer not null, ${pairs})`);
db.exec("create index polar_fact_a0 on polar_fact (predicate, arity, i0, t0)");
db.exec("create index polar_fact_a2 on polar_fact (predicate, arity, i2, t2)");
const insert = db.prepare(
  "insert into polar_fact values ('has_role', 3, 'User', ?, 'String', 'viewer', 'Doc', ?)",
);
db.transaction(() => {
  for (let i = 0; i < 200_000; i++) insert.run(i % 97 === 0 ? "ada" : `u${i % 1000}`, `d${i}`);
})();
db.exec("analyze");

console.log("| ids | rows | ms |\n|---|---|---|");
for (const n of [3, 1_000, 30_000, 70_000]) {
  const query = parseBody(querySchema, {
    predicate: ["allow", ["a", "b", "c"]],
    calls: [],
    constraints: {
      a: { type: "User", ids: ["ada"] },
      b: { type: "String", ids: ["read"] },
      c: { type: "Doc", ids: Array.from({ length: n }, (_, i) => `d${i}`) },
    },
  });
  const mode = { mode: "select", query_vars_to_output_column_names: { a: "c0", b: "c1", c: "c2" } };
  const question = evaluateQuestion(program, bindings, query, mode as never);
  const { sql, parameters } = localStatement(program, bindings, question, {
    dialect: sqlite,
    writing: "parameters",
  });
  if (n === 3) {
    const plan = db.prepare(`explain query plan ${sql}`).all(...parameters) as { detail: string }[];
    console.error(`${sql}\n${plan.map((row) => `  ${row.detail}`).join("\n")}`);
  }
  const statement = db.prepare(sql);
  const began = performance.now();
  const rows = statement.all(...parameters);
  console.log(`| ${n} | ${rows.length} | ${(performance.now() - began).toFixed(1)} |`);
}
