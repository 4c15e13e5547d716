/**
 * The playground's engine (playground/src/engine.ts) without a browser: every example checks,
 * its facts read, its tests pass, and for every question the SQL run on PGlite agrees with the
 * evaluator's answer; bad policies, facts and questions come back as diagnostics or errors.
 */
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answer,
  checkBindingsSource,
  checkPolicySource,
  policyTests,
  questionSql,
  readFacts,
  readQuestion,
  rowsText,
} from "../playground/src/engine.js";
import { EXAMPLES } from "../playground/src/examples.js";
import { openTestPglite } from "./support/pglite.js";

/**
 * One PGlite for the file (each start costs most of a second of CPU): each suite creates its
 * tables in a schema of its own, and reads them through the search path.
 */
let opened: Promise<PGlite> | undefined;
afterAll(async () => {
  await (await opened)?.close();
});
async function databaseWith(schema: string, ddl: string): Promise<PGlite> {
  opened ??= openTestPglite();
  const db = await opened;
  await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema};`);
  await db.exec(ddl);
  return db;
}

describe.each(EXAMPLES)("example $name", ({ name, state }) => {
  let db: PGlite;
  beforeAll(async () => {
    db = await databaseWith(`example_${name}`, state.schema);
  });

  it("checks, reads its facts and passes its tests", () => {
    const policy = checkPolicySource(state.policy);
    expect(policy.problems.filter((p) => p.severity === "error")).toEqual([]);
    const facts = readFacts(state.facts, policy.program);
    expect(facts.problems).toEqual([]);
    expect(facts.facts.length).toBeGreaterThan(0);
    const tests = policyTests(policy.program!);
    expect(tests.length).toBeGreaterThan(0);
    expect(tests.every((t) => t.passed)).toBe(true);
  });

  it("answers every question as its SQL does", async () => {
    const program = checkPolicySource(state.policy).program!;
    const facts = readFacts(state.facts, program).facts;
    const checked = checkBindingsSource(program, state.bindings, facts);
    expect(checked.problems).toEqual([]);
    const bindings = checked.bindings;
    expect(bindings.bindings.length).toBeGreaterThan(0);
    const actors = new Set<string>();
    const resources = new Map<string, Set<string>>();
    for (const fact of facts) {
      for (const arg of fact.args) {
        if (arg.type === "User") actors.add(`User:${arg.id}`);
        else if (program.resources.has(arg.type)) {
          const ids = resources.get(arg.type) ?? new Set();
          ids.add(arg.id);
          resources.set(arg.type, ids);
        }
      }
    }
    let allowedSeen = 0;
    for (const actor of actors) {
      for (const [type, ids] of resources) {
        const declared = program.resources.get(type)!;
        for (const action of declared.permissions) {
          const questions = [type, ...[...ids].map((id) => `${type}:${id}`)];
          for (const resource of questions) {
            const question = readQuestion(actor, action, resource);
            const expected = answer(program, facts, question).text;
            const statement = questionSql(program, bindings, facts, question, "postgres");
            const result = await db.query<Record<string, unknown>>(statement.sql);
            expect(rowsText(statement.column, result.rows), `${actor} ${action} ${resource}`).toBe(
              expected,
            );
            if (expected === "allowed") allowedSeen++;
          }
        }
      }
    }
    expect(allowedSeen).toBeGreaterThan(0);
  });
});

describe("SQL for any policy", () => {
  const quickstart = EXAMPLES[0]!.state;
  let db: PGlite;
  beforeAll(async () => {
    db = await databaseWith("any_policy", quickstart.schema);
  });

  /** Every question about `type` agrees between the evaluator and the SQL run on PGlite. */
  async function agree(policyText: string, factsText: string, bindingsText: string, type: string) {
    const program = checkPolicySource(policyText).program!;
    const facts = readFacts(factsText, program);
    expect(facts.problems).toEqual([]);
    const bindings = checkBindingsSource(program, bindingsText, facts.facts);
    let allowed = 0;
    for (const actor of ["User:alice", "User:bob", "User:carol", "User:dave"]) {
      for (const action of program.resources.get(type)!.permissions) {
        for (const resource of [type, `${type}:1`, `${type}:2`, `${type}:3`]) {
          const question = readQuestion(actor, action, resource);
          const expected = answer(program, facts.facts, question).text;
          const statement = questionSql(
            program,
            bindings.bindings,
            facts.facts,
            question,
            "postgres",
          );
          const rows = (await db.query<Record<string, unknown>>(statement.sql)).rows;
          expect(rowsText(statement.column, rows), `${actor} ${action} ${resource}`).toBe(expected);
          if (expected === "allowed") allowed++;
        }
      }
    }
    expect(allowed).toBeGreaterThan(0);
    return bindings;
  }

  it("a policy that declares none of the bindings' types: warnings, and the SQL reads the facts", async () => {
    // The user's own names: the example's bindings (Repository, Issue) fit none of them.
    const rename = (text: string) =>
      text.replaceAll("Repository", "Repo").replaceAll("Issue", "Ticket");
    const bindings = await agree(
      rename(quickstart.policy),
      rename(quickstart.facts),
      quickstart.bindings,
      "Repo",
    );
    expect(bindings.hasErrors).toBe(false);
    expect(bindings.bindings.bindings).toEqual([]);
    expect(bindings.problems.length).toBeGreaterThan(0);
    expect(bindings.problems.every((p) => p.severity === "warning")).toBe(true);
    expect(bindings.problems.map((p) => p.code)).toContain("W010");
  });

  it("bindings with errors: the SQL reads the facts until they are fixed", async () => {
    const broken = quickstart.bindings.replace("SELECT id, org_id FROM", "SELECT id FROM");
    const bindings = await agree(quickstart.policy, quickstart.facts, broken, "Repository");
    expect(bindings.hasErrors).toBe(true);
    expect(bindings.problems.filter((p) => p.severity === "error").map((p) => p.code)).toEqual([
      "P708",
    ]);
  });
});

describe("bad input", () => {
  const quickstart = EXAMPLES[0]!.state;

  it("reports an undeclared term with its code and line", () => {
    const broken = quickstart.policy.replace('"read" if "member";', '"read" if "membr";');
    const { program, problems } = checkPolicySource(broken);
    expect(program).toBeNull();
    const line = broken.split("\n").findIndex((l) => l.includes('"membr"')) + 1;
    expect(problems).toMatchObject([{ code: "P201", severity: "error", line }]);
    expect(problems[0]!.message).toContain("membr");
  });

  it("reports bad fact lines by line and keeps the good ones", () => {
    const program = checkPolicySource(quickstart.policy).program!;
    const text = [
      'has_role(User{"a"}, "owner", Organization{"o"})',
      "",
      'nope(User{"a"})',
      'has_role(User{"a"}, "owner"',
      'has_role(User{"a"}, "owner", x)',
    ].join("\n");
    const { facts, problems } = readFacts(text, program);
    expect(facts).toHaveLength(1);
    expect(problems[1]!.message).toBe("unexpected end of line; expected `)`");
    expect(problems.map((p) => [p.line, p.code])).toEqual([
      [3, "P501"],
      [4, expect.stringMatching(/^P0/)],
      [5, "P406"],
    ]);
  });

  it("reports bad data bindings by line", () => {
    const program = checkPolicySource(quickstart.policy).program!;
    const facts = readFacts(quickstart.facts, program).facts;
    const narrow = quickstart.bindings.replace("SELECT id, org_id FROM", "SELECT id FROM");
    const checked = checkBindingsSource(program, narrow, facts);
    expect(checked.hasErrors).toBe(true);
    expect(checked.bindings.bindings).toEqual([]);
    const line = narrow.split("\n").findIndex((l) => l.includes("SELECT id FROM repositories")) + 1;
    expect(checked.problems).toContainEqual(expect.objectContaining({ code: "P708", line }));
    const yaml = checkBindingsSource(program, "facts: [", facts);
    expect(yaml.problems.map((p) => p.code)).toEqual(["P704"]);
    const unknown = checkBindingsSource(
      program,
      'facts:\n  "nope(Nowhere:_)":\n    query: SELECT id FROM x\n',
      facts,
    );
    expect(unknown.problems.map((p) => [p.code, p.line])).toContainEqual(["W010", 2]);
  });

  it("rejects malformed questions and reads list questions", () => {
    expect(() => readQuestion("bob", "read", "Repository:1")).toThrow(/actor must be `Type:id`/);
    expect(() => readQuestion("User:bob", " ", "Repository:1")).toThrow(/action is empty/);
    expect(() => readQuestion("User:bob", "read", "Repository:")).toThrow(/resource/);
    expect(readQuestion("User:bob", "read", "Repository")).toMatchObject({ kind: "list" });
    expect(readQuestion("User:bob", "read", 'Repository:"a b"')).toMatchObject({
      kind: "authorize",
      resource: { type: "Repository", id: "a b" },
    });
  });

  it("explains a failing test", () => {
    const failing = `${quickstart.policy}
test "bob cannot push" {
  setup { has_role(User{"bob"}, "member", Organization{"acme"}); }
  assert allow(User{"bob"}, "push", Repository{"1"});
}`;
    const tests = policyTests(checkPolicySource(failing).program!);
    const failed = tests.find((t) => t.name === "bob cannot push")!;
    expect(failed.passed).toBe(false);
    expect(failed.reasons[0]).toContain('allow(User{"bob"}, "push", Repository{"1"})');
    expect(failed.reasons[0]).toContain("✗");
  });
});
