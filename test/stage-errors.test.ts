/**
 * Refusals of the stages after checking (planning, lowering for a dialect, evaluation) are
 * coded problems with the span of the rule or atom that caused them: each test makes one stage
 * refuse a policy and checks the exact code, the `file:line:col` of the message, and the
 * underlined code frame that the CLI prints (src/source/stage-error.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import { actionsQuestion, localStatement } from "../src/api/questions.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { Program } from "../src/check/program.js";
import type { CliIo } from "../src/cli/io.js";
import { runSqlCommand } from "../src/cli/sql-command.js";
import type { Dialect } from "../src/dialects/dialect.js";
import { mysql } from "../src/dialects/mysql/index.js";
import { EvaluationError } from "../src/evaluate/errors.js";
import { query } from "../src/evaluate/index.js";
import { PlanError } from "../src/plan/errors.js";
import type { Goal, GoalVariable } from "../src/plan/goal.js";
import { createPlanner, planGoal } from "../src/plan/plan.js";
import { StageError } from "../src/source/stage-error.js";
import { mutualTypes } from "./local-families.js";
import { checked } from "./local-support.js";

/** The error `run` throws, which must be a stage's. */
function refusal(run: () => unknown): StageError {
  try {
    run();
  } catch (error) {
    if (error instanceof StageError) return error;
    throw error;
  }
  throw new Error("the call was not refused");
}

const edges = `facts:
  has_relation(Node:_, next, Node:_):
    query: SELECT a, b FROM edges
`;

const nonLinear = `actor User {}
resource Node { relations = { next: Node }; }
reach(a: Node, b: Node) if has_relation(a, "next", b);
reach(a: Node, b: Node) if reach(a, c) and reach(c, b);
allow(_: User, "go", n: Node) if reach(Node{"start"}, n);`;

function authorize(program: Program, bindings: string, action = "go", resource = "Node") {
  return authorizeQuery(program, {
    query: {
      actor_type: "User",
      actor_id: "ada",
      action,
      resource_type: resource,
      resource_id: "n1",
    },
    data_bindings: bindings,
  });
}

describe("planning refusals name their rule", () => {
  it("P703: non-linear recursion points at the second recursive call", () => {
    const error = refusal(() => authorize(checked(nonLinear), edges));
    expect(error).toBeInstanceOf(PlanError);
    expect(error.code).toBe("P703");
    expect(error.problem).toEqual({ code: "P703", kind: "nonlinear", predicate: "reach" });
    expect(error.message).toBe(
      "policy.polar:4:44: cannot compile a rule for `reach` that calls `reach` recursively more than once in one conjunction; the central service answers it by iteration (docs/fixpoint.md)",
    );
    expect(error.format()).toBe(
      [
        "error[P703]: cannot compile a rule for `reach` that calls `reach` recursively more than once in one conjunction; the central service answers it by iteration (docs/fixpoint.md)",
        " --> policy.polar:4:44",
        "  |",
        "4 | reach(a: Node, b: Node) if reach(a, c) and reach(c, b);",
        "  |                                            ^^^^^^^^^^^",
      ].join("\n"),
    );
  });

  it("P703: the location follows the rule wherever it is written (property)", () => {
    fc.assert(
      fc.property(fc.nat(6), fc.nat(8), (blank, indent) => {
        const [head, ...rest] = nonLinear.split("\n");
        const lines = [head!, ...Array<string>(blank).fill("# filler"), ...rest];
        const at = lines.findIndex((line) => line.startsWith("reach(a: Node, b: Node) if reach"));
        lines[at] = `${" ".repeat(indent)}${lines[at]}`;
        const error = refusal(() => authorize(checked(lines.join("\n")), edges));
        expect(error.message.startsWith(`policy.polar:${at + 1}:${44 + indent}: `)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("P703: a mutual recursion called twice names the rule that calls it twice", () => {
    const program = checked(`actor User {}
resource Node { relations = { next: Node }; }
reach(a: Node, b: Node) if has_relation(a, "next", b);
reach(a: Node, b: Node) if reach(a, c) and link(c, b);
link(a: Node, b: Node) if reach(a, b);
link(a: Node, b: Node) if has_relation(a, "next", c) and link(c, b);
allow(_: User, "go", n: Node) if reach(Node{"start"}, n);`);
    const error = refusal(() => authorize(program, edges));
    expect(error.code).toBe("P703");
    expect(error.problem.kind).toBe("nonlinear-mutual");
    expect(error.message).toMatch(
      /^policy\.polar:4:44: cannot compile a rule for `reach` that calls the mutual recursion of `(link|reach)`, `(link|reach)` more than once/,
    );
    expect(error.format().split("\n").slice(1)).toEqual([
      " --> policy.polar:4:44",
      "  |",
      "4 | reach(a: Node, b: Node) if reach(a, c) and link(c, b);",
      "  |                                            ^^^^^^^^^^",
    ]);
  });

  it("P703: a recursion through a universal rule points at that rule", () => {
    const program = checked(`actor User {}
resource Node { permissions = ["go"]; relations = { next: Node }; }
declare is_end(Node);
reach(_: Node, b: Node) if is_end(b);
reach(a: Node, b: Node) if has_relation(a, "next", c) and reach(c, b);
allow(_: User, "go", n: Node) if reach(n, Node{"end"});`);
    const bindings = `${edges}  is_end(Node:_):
    query: SELECT id FROM ends
`;
    const error = refusal(() =>
      listQuery(program, {
        query: { actor_type: "User", actor_id: "ada", action: "go", resource_type: "Node" },
        column: "nodes.id",
        data_bindings: bindings,
      }),
    );
    expect(error.code).toBe("P703");
    expect(error.problem.kind).toBe("recursion-through-any");
    expect(error.message).toBe(
      "policy.polar:4:1: cannot compile the recursion of `reach` through a rule that holds for every value of an argument",
    );
    expect(error.format().split("\n").slice(-2)).toEqual([
      "4 | reach(_: Node, b: Node) if is_end(b);",
      "  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]);
  });

  it("P702: an uninferable type points at the variable", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", doc: Doc) if is_owner(user, org) and owns(org, doc);`);
    // No binding: `is_owner` and `owns` are central facts, which may hold values of any type.
    const bindings = "facts:\n";
    const error = refusal(() => authorize(program, bindings, "read", "Doc"));
    expect(error.code).toBe("P702");
    expect(error.message).toBe(
      "policy.polar:3:64: cannot infer the type of `org` in a rule for `has_permission`; add `org matches T`",
    );
    expect(error.format().split("\n").slice(1)).toEqual([
      " --> policy.polar:3:64",
      "  |",
      '3 | has_permission(user: User, "read", doc: Doc) if is_owner(user, org) and owns(org, doc);',
      "  |                                                                ^^^",
    ]);
  });

  it("P702: an uninferable type in a called rule points at the variable in that rule", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", doc: Doc) if linked(user, doc);
linked(u, d) if member(u, team) and shares(team, d);`);
    const error = refusal(() => authorize(program, "facts:\n", "read", "Doc"));
    expect(error.code).toBe("P702");
    expect(error.problem).toEqual({
      code: "P702",
      kind: "unknown-type",
      variable: "team",
      rule: "linked",
    });
    expect(error.message).toBe(
      "policy.polar:4:27: cannot infer the type of `team` in a rule for `linked`; add `team matches T`",
    );
    expect(error.format().split("\n").slice(1)).toEqual([
      " --> policy.polar:4:27",
      "  |",
      "4 | linked(u, d) if member(u, team) and shares(team, d);",
      "  |                           ^^^^",
    ]);
  });

  it("P702: too many argument types for a call points at the call", () => {
    const types = ["A", "B", "C", "D", "E"].map((t) => `resource ${t} {}`).join("\n");
    const program = checked(`actor User {}
${types}
resource Doc { permissions = ["read"]; }
declare link(Resource, Resource, Resource, Resource);
declare seen(Resource, Resource, Resource);
has_permission(_: User, "read", d: Doc) if link(a, b, c, e) and a = d and seen(b, c, e);`);
    const error = refusal(() => authorize(program, "facts:\n", "read", "Doc"));
    expect(error.code).toBe("P702");
    expect(error.problem).toEqual({
      code: "P702",
      kind: "type-combinations",
      predicate: "link",
      combinations: 343,
    });
    expect(error.message).toBe(
      "policy.polar:10:44: cannot infer the argument types of a call to `link` (343 combinations); add `x matches T` for its variables",
    );
    expect(error.format().split("\n").slice(1)).toEqual([
      "  --> policy.polar:10:44",
      "   |",
      '10 | has_permission(_: User, "read", d: Doc) if link(a, b, c, e) and a = d and seen(b, c, e);',
      "   |                                            ^^^^^^^^^^^^^^^^",
    ]);
  });

  it("P602: `not` over a value only a universal rule binds points at the `not`", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
is_doc(_: Doc);
has_permission(_: User, "read", doc: Doc) if is_doc(doc) and not is_secret(doc);`);
    const bindings = parseDataBindings(`facts:
  is_secret(Doc:_):
    query: SELECT id FROM secrets
`);
    // Every readable document, as `evaluate_query_local` in select mode asks.
    const goal: Goal = {
      calls: [{ name: "allow", args: ["actor", "action", "resource"] }],
      variables: new Map<string, GoalVariable>([
        ["actor", { kind: "param", type: "User", many: false }],
        ["action", { kind: "literal", value: { type: "String", id: "read" } }],
        ["resource", { kind: "free", type: "Doc" }],
      ]),
      outputs: ["resource"],
      outer: null,
    };
    const error = refusal(() => planGoal(createPlanner(program, bindings), goal));
    expect(error.code).toBe("P602");
    expect(error.message).toBe(
      "policy.polar:4:62: cannot evaluate `not` over an unbounded value of `doc` in a rule for `has_permission`",
    );
    expect(error.format().split("\n").slice(-1)).toEqual([
      `  |${" ".repeat(62)}${"^".repeat("not is_secret(doc)".length)}`,
    ]);
  });
});

describe("a dialect's refusal names the recursion's rule", () => {
  it("P703: MariaDB's limit on reads of recursive CTEs points at the rule read most", () => {
    const program = checked(mutualTypes.policy);
    const bindings = parseDataBindings(
      `facts:
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT child, parent FROM folders
  has_relation(Folder:_, readme, Document:_):
    query: SELECT folder, doc FROM readmes
  has_relation(Document:_, folder, Folder:_):
    query: SELECT doc, folder FROM docs
  has_relation(Document:_, source, Document:_):
    query: SELECT doc, source FROM sources
  has_role(User:_, String:_, Folder:_):
    query: SELECT u, r, f FROM folder_roles
  has_role(User:_, String:_, Document:_):
    query: SELECT u, r, d FROM doc_roles
`,
      { syntax: "mysql" },
    );
    const question = actionsQuestion(program, {
      actor_type: "User",
      actor_id: "ada",
      resource_type: "Folder",
      resource_id: "f",
      context_facts: [],
    });
    // The mysql dialect moves each SELECT of the actions' UNION into a derived table of its
    // own (src/lower/union-reads.ts); without that, the UNION reads the recursions too often.
    expect(localStatement(program, bindings, question, { dialect: mysql }).sql).toContain(
      "as polar_u0",
    );
    const unisolated: Dialect = {
      ...mysql,
      name: "mysql-unisolated",
      isolatesRecursiveReads: false,
    };
    const error = refusal(() =>
      localStatement(program, bindings, question, { dialect: unisolated }),
    );
    expect(error).toBeInstanceOf(PlanError);
    expect(error.code).toBe("P703");
    expect(error.problem).toMatchObject({
      kind: "dialect-recursive-reads",
      dialect: "mysql-unisolated",
      predicate: "has_role",
      max: 6,
    });
    expect(error.message).toMatch(
      /^policy\.polar:8:3: the mysql-unisolated dialect cannot run this question: it reads recursive relations \d+ times in SELECTs of a UNION \(\d+ of them the recursion of `has_role`\)/,
    );
    expect(error.format().split("\n").slice(1)).toEqual([
      " --> policy.polar:8:3",
      "  |",
      '8 |   "viewer" if "view" on "readme";',
      "  |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]);
  });

  it("P703: a step MySQL cannot join points at the recursion's first recursive rule", () => {
    const program = checked(`actor User {}
resource Node { permissions = ["go"]; relations = { next: Node }; }
declare mark(Node, Node);
reach(a: Node, b: Node) if has_relation(a, "next", b);
reach(a: Node, b: Node) if reach(a, c) and has_relation(c, "next", b) and b in [a, c];
reach(a: Node, b: Node) if reach(a, c) and has_relation(c, "next", b) and not mark(c, a);
allow(_: User, "go", n: Node) if reach(Node{"start"}, n);`);
    const bindings = `${edges}  mark(Node:_, Node:_):
    query: SELECT a, b FROM marks
`;
    const body = {
      query: {
        actor_type: "User",
        actor_id: "ada",
        action: "go",
        resource_type: "Node",
        resource_id: "n1",
      },
      data_bindings: bindings,
    };
    expect(authorizeQuery(program, body, { dialect: "sqlite" }).sql).toContain("recursive");
    const error = refusal(() => authorizeQuery(program, body, { dialect: "mysql" }));
    expect(error).toBeInstanceOf(PlanError);
    expect(error.problem).toEqual({
      code: "P703",
      kind: "dialect-step-reads-itself",
      dialect: "mysql",
      predicate: "reach",
    });
    expect(error.message).toBe(
      "policy.polar:5:1: the mysql dialect cannot express a step of the recursion of `reach` whose negation or list membership reads the recursive relation itself",
    );
  });
});

describe("evaluation refusals name their atom", () => {
  const program = checked(`actor User {}
member(_: User);
twin(x, y) if member(x) and member(y) and x = y;
ranked(x) if member(x) and x != User{"ada"};
guarded(x) if member(x) and not blocked(x);
same(x, x);
declare blocked(User);`);
  const ask = (name: string, arity: number) =>
    query(program, [], {
      predicate: [name, Array.from({ length: arity }, (_, i) => `v${i}`)],
      constraints: Object.fromEntries(
        Array.from({ length: arity }, (_, i) => [`v${i}`, { type: "User", ids: null }]),
      ),
    });

  it.each([
    ["twin", 2, "policy.polar:3:43", "cannot evaluate `=` over an unbounded value of `x`", "x = y"],
    [
      "ranked",
      1,
      "policy.polar:4:28",
      "cannot evaluate `!=` over an unbounded value of `x`",
      'x != User{"ada"}',
    ],
    [
      "guarded",
      1,
      "policy.polar:5:29",
      "cannot evaluate `not` over an unbounded value of `x`",
      "not blocked(x)",
    ],
  ])("P602 in `%s` points at %s", (name, arity, where, message, atom) => {
    const error = refusal(() => ask(name, arity));
    expect(error).toBeInstanceOf(EvaluationError);
    expect(error.code).toBe("P602");
    expect(error.message).toBe(`${where}: ${message}`);
    const column = Number(where.split(":")[2]);
    expect(error.format().split("\n").slice(-1)).toEqual([
      `  | ${" ".repeat(column - 1)}${"^".repeat(atom.length)}`,
    ]);
  });

  it("P602 over a repeated head variable points at the rule", () => {
    const error = refusal(() => ask("same", 2));
    expect(error.code).toBe("P602");
    expect(error.message).toBe(
      "policy.polar:6:1: cannot evaluate a rule for `same` over an unbounded value of `x`, which appears more than once in its head",
    );
  });

  it("P601: a malformed question has a code and no location", () => {
    const error = refusal(() => query(program, [], { predicate: ["nope", []], constraints: {} }));
    expect(error.code).toBe("P601");
    expect(error.diagnostic.span).toBeUndefined();
    expect(error.message).toBe("unknown predicate `nope/0`");
    expect(error.format()).toBe("error[P601]: unknown predicate `nope/0`");
  });
});

describe("the CLI prints a stage's refusal with its code frame", () => {
  it("polar-sql sql authorize on a non-linear policy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stage-errors-"));
    writeFileSync(join(dir, "policy.polar"), `${nonLinear}\n`);
    writeFileSync(join(dir, "bindings.yaml"), edges);
    let stderr = "";
    const io: CliIo = { stdout: () => {}, stderr: (t) => (stderr += t), isTTY: false };
    const policy = join(dir, "policy.polar");
    const code = await runSqlCommand(
      [
        "authorize",
        "--policy",
        policy,
        "--bindings",
        join(dir, "bindings.yaml"),
        "--actor",
        "User:ada",
        "--action",
        "go",
        "--resource",
        "Node:n1",
      ],
      io,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(
      `error[P703]: cannot compile a rule for \`reach\` that calls \`reach\` recursively`,
    );
    expect(stderr).toContain(`--> ${policy}:4:44\n`);
    expect(stderr).toContain("  |                                            ^^^^^^^^^^^\n");
  });
});

describe("the fact store's refusals are coded stage errors", () => {
  const user = (id: string) => ({ type: "User", id });
  it("refuses each bad write with its code and writes nothing", async () => {
    const { openStore, StoreError } = await import("../src/store/store.js");
    const store = await openStore({ embedded: "sqlite" });
    try {
      await store.setPolicy('actor User {}\nresource Org { roles = ["member"]; }', "p.polar");
      const refusal = async (work: Promise<unknown>) => {
        const error = await work.then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toBeInstanceOf(StageError);
        return error as InstanceType<typeof StoreError>;
      };
      const nul = await refusal(
        store.applyBatch([{ inserts: [{ predicate: "f", args: [user("a\u0000")] }] }]),
      );
      expect(nul.code).toBe("P507");
      expect(nul.message).toBe('facts cannot contain NUL characters: `f(User{"a\\u0000"})`');
      const wide = await refusal(
        store.applyBatch([
          {
            inserts: [{ predicate: "f", args: Array.from({ length: 9 }, (_, i) => user(`${i}`)) }],
          },
        ]),
      );
      expect(wide.code).toBe("P508");
      const pattern = await refusal(
        store.applyBatch([{ deletes: [{ predicate: "f", args: [{ type: null, id: "a" }] }] }]),
      );
      expect(pattern.code).toBe("P509");
      expect(pattern.message).toBe("argument 1 of a `f` delete pattern has an id but no type");
      const unknown = await refusal(
        store.applyBatch([{ inserts: [{ predicate: "nope", args: [user("ada")] }] }]),
      );
      expect(unknown.code).toBe(unknown.diagnostics[0]!.code);
      expect(unknown.message).toContain('`nope(User{"ada"})`');
      const policy = await refusal(store.setPolicy("resource Org { roles = [1]; }", "bad.polar"));
      expect(policy.message).toBe(policy.diagnostics[0]!.message);
      expect(policy.code).toBe(policy.diagnostics[0]!.code);
      expect(await store.readFacts({ predicate: "f", positions: new Map() })).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
