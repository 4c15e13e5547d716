/**
 * Fixture folders under test/fixtures/local/<case>/: policy.polar, bindings.yaml, schema.sql
 * (tables and rows) and questions.json. Each question's SQL is kept in a snapshot file
 * (drift shows in review) and executed on PostgreSQL against the expected rows.
 *
 * A question: { name, endpoint, body (without data_bindings), expected, wrap?, central?, now? }.
 * `wrap` embeds the SQL (`{sql}`) in a statement, e.g. a list fragment in a SELECT.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actionsQuery, authorizeQuery, evaluateQueryLocal, listQuery } from "../src/api/local.js";
import type { GroundFact } from "../src/core/value.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";

interface Question {
  readonly name: string;
  readonly endpoint: "authorize_query" | "actions_query" | "list_query" | "evaluate_query_local";
  readonly body: Record<string, unknown>;
  readonly expected: unknown[];
  readonly wrap?: string;
  readonly central?: GroundFact[];
  readonly now?: number;
}

const root = join(import.meta.dirname, "fixtures", "local");
const cases = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function read(name: string, file: string): string {
  return readFileSync(join(root, name, file), "utf8");
}

const endpoints = {
  authorize_query: authorizeQuery,
  actions_query: actionsQuery,
  list_query: listQuery,
  evaluate_query_local: evaluateQueryLocal,
};

/** Rows as sorted JSON; numbers as text, since drivers return bigint columns as strings. */
function canonicalRows(rows: readonly unknown[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(row, (_, value) => (typeof value === "number" ? String(value) : value)),
    )
    .sort();
}

describeEngines("$name", (engine) => {
  describe.each(cases)("%s", (name) => {
    const program = checked(read(name, "policy.polar"));
    const bindings = read(name, "bindings.yaml");
    const questions = JSON.parse(read(name, "questions.json")) as Question[];
    const schema = `fx_${name.replaceAll("-", "_")}_${process.pid}`;

    it.each(questions.map((q) => ({ ...q, label: q.name })))("$label", async (question) => {
      const db = await engine.db();
      const [previous] = await db.query<{ search_path: string }>("SHOW search_path");
      await db.exec(
        `DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}; SET search_path TO ${schema};\n${read(name, "schema.sql")}`,
      );
      try {
        const options = {
          central: inMemoryCentralFacts(question.central ?? []),
          now: () => BigInt(question.now ?? 1_700_000_000),
        };
        const { sql } = endpoints[question.endpoint](
          program,
          { ...question.body, data_bindings: bindings } as never,
          options,
        );
        await expect(sql).toMatchFileSnapshot(
          join(root, name, "__snapshots__", `${question.name}.sql`),
        );
        const statement = (question.wrap ?? "{sql}").replace("{sql}", sql);
        const rows = await db.query(statement);
        expect(canonicalRows(rows)).toEqual(canonicalRows(question.expected));
      } finally {
        await db.exec(
          `SET search_path TO ${previous!.search_path}; DROP SCHEMA IF EXISTS ${schema} CASCADE`,
        );
      }
    });
  });
});
