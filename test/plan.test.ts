/**
 * The planner on its own: specialization (pruning by literals and types), recursion forms,
 * errors for shapes SQL cannot compile, and the plan cache. Results are checked through
 * `formatPlan`; execution is covered by the local-* tests.
 */
import { describe, expect, it } from "vitest";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { Program } from "../src/check/program.js";
import { PlanError } from "../src/plan/errors.js";
import { formatPlan } from "../src/plan/format.js";
import type { Goal, GoalVariable } from "../src/plan/goal.js";
import { cachedPlan, createPlanner, planGoal } from "../src/plan/plan.js";
import { checked } from "./local-support.js";

const rbacPolicy = `actor User {}
actor Bot {}
resource Workspace {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "invite"];
  "viewer" if "editor";
  "editor" if "owner";
  "read" if "viewer";
  "write" if "editor";
  "invite" if "owner";
}
has_permission(user: User, "audit", _: Workspace) if is_auditor(user);`;

const rbacBindings = parseDataBindings(`facts:
  has_role(User:_, String:_, Workspace:_):
    query: SELECT user_id, role, workspace_id FROM members
`);

const foldersPolicy = `actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["list"];
  relations = { parent: Folder };
  role if role on "parent";
  "list" if "reader";
}`;

const foldersBindings = parseDataBindings(`facts:
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM folders
  has_role(User:_, String:_, Folder:_):
    query: SELECT user_id, role, folder_id FROM folder_roles
`);

function allowGoal(actor: string, action: GoalVariable, resource: GoalVariable): Goal {
  const outputs = [action, resource].flatMap((v, i) =>
    v.kind === "free" ? [["action", "resource"][i]!] : [],
  );
  return {
    calls: [{ name: "allow", args: ["actor", "action", "resource"] }],
    variables: new Map<string, GoalVariable>([
      ["actor", { kind: "param", type: actor, many: false }],
      ["action", action],
      ["resource", resource],
    ]),
    outputs,
    outer: null,
  };
}

const str = (id: string): GoalVariable => ({ kind: "literal", value: { type: "String", id } });
const param = (type: string): GoalVariable => ({ kind: "param", type, many: false });
const free = (type: string): GoalVariable => ({ kind: "free", type });

function plan(program: Program, bindings = rbacBindings, goal: Goal): string {
  return formatPlan(planGoal(createPlanner(program, bindings), goal));
}

describe("specialization", () => {
  const program = checked(rbacPolicy);

  it("plans only the clauses whose head literals match the action", () => {
    const text = plan(program, rbacBindings, allowGoal("User", str("invite"), param("Workspace")));
    expect(text).toContain('"owner"');
    expect(text).not.toContain('"viewer"');
    expect(text).not.toContain('"editor"');
  });

  it("merges branches that differ in one literal into an IN list", () => {
    const text = plan(program, rbacBindings, allowGoal("User", str("read"), param("Workspace")));
    expect(text).toContain('f0.arg1 in ("viewer", "editor", "owner")');
  });

  it("reads only stored facts of allow and has_permission for an unknown action", () => {
    const text = plan(program, rbacBindings, allowGoal("User", str("fly"), param("Workspace")));
    expect(text).not.toContain("binding#");
    // One source reads the stored facts of both predicates (src/plan/merge.ts).
    expect(text.split("\n").filter((line) => line.startsWith("branch"))).toEqual([
      'branch from facts allow|has_permission(User, String, Workspace) f0 | where f0.arg0 = $actor, f0.arg1 = "fly", f0.arg2 = $resource',
    ]);
  });

  it("has no branch for a question no source can answer", () => {
    const goal: Goal = {
      calls: [{ name: "is_auditor", args: ["x"] }],
      variables: new Map([["x", param("Bot")]]),
      outputs: [],
      outer: null,
    };
    expect(plan(program, rbacBindings, goal)).toContain("no branches");
  });

  it("prunes clauses by type: a Bot never reaches rules for users", () => {
    const text = plan(program, rbacBindings, allowGoal("Bot", str("audit"), param("Workspace")));
    expect(text).not.toContain("is_auditor");
    expect(
      plan(program, rbacBindings, allowGoal("User", str("audit"), param("Workspace"))),
    ).toContain("facts is_auditor(User)");
  });

  it("reads central facts through placeholders resolved when printing", () => {
    const text = plan(program, rbacBindings, allowGoal("User", str("invite"), param("Workspace")));
    expect(text).toContain("binding#0+facts");
    expect(text).toContain("facts allow|has_permission(User, String, Workspace)");
  });

  it("keeps a universal answer as `any` in the output", () => {
    const universal = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(_: User, "read", _: Doc);`);
    const text = plan(universal, rbacBindings, allowGoal("User", str("read"), free("Doc")));
    expect(text).toContain("out any(Doc)");
  });
});

describe("recursion", () => {
  const program = checked(foldersPolicy);

  it("walks up from the resource for authorize", () => {
    const text = plan(program, foldersBindings, allowGoal("User", str("list"), param("Folder")));
    expect(text).toMatch(
      /cte r0\(s2: Folder\)\n {2}seed {2}out \$resource\n {2}step {2}from binding#0/,
    );
  });

  it("accumulates from the actor's grants for list", () => {
    const text = plan(program, foldersBindings, allowGoal("User", str("list"), free("Folder")));
    expect(text).toMatch(
      /cte r0\(arg2: Folder\)\n {2}seed {2}from binding#1\+facts q0 \| where q0\.arg0 = \$actor/,
    );
    expect(text).toContain("rec.arg2 = q");
  });

  it("compiles mutual recursion when one member also calls itself", () => {
    const mutual = checked(`actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["list"];
  relations = { parent: Folder };
  "list" if "reader";
  "list" if "list" on "parent";
  "reader" if "list" on "parent";
}`);
    const text = plan(mutual, foldersBindings, allowGoal("User", str("list"), free("Folder")));
    expect(text).toContain("cte r0(arg2: Folder)");
  });

  it("merges mutual recursion where both members call themselves into one CTE", () => {
    const both = checked(`actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["list"];
  relations = { parent: Folder };
  "list" if "reader";
  "list" if "list" on "parent";
  "reader" if "list" on "parent";
  "reader" if "reader" on "parent";
}`);
    // authorize: a walk of demanded (member, folder) rows, seeded with the resource
    const authorize = plan(both, foldersBindings, allowGoal("User", str("list"), param("Folder")));
    expect(authorize.match(/^cte /gm)).toHaveLength(1);
    expect(authorize).toContain("cte r0(s0: Integer, s2: Folder)\n  seed  out 0, $resource\n");
    expect(authorize).toMatch(
      /step {2}from binding#0\+facts q0 \| where rec\.s0 in \(0, 1\), q0\.arg0 = rec\.s2 \| out 1, q0\.arg2/,
    );
    expect(authorize).toMatch(
      /branch from cte#0 f0, binding#1\+facts f1 \| where f0\.s0 in \(0, 1\), f1\.arg0 = \$actor, f1\.arg1 = "reader", f1\.arg2 = f0\.s2/,
    );
    // list: an accumulation of (member, folder) rows, read for the called member only
    const list = plan(both, foldersBindings, allowGoal("User", str("list"), free("Folder")));
    expect(list.match(/^cte /gm)).toHaveLength(1);
    expect(list).toContain("cte r0(arg0: Integer, arg2: Folder)");
    expect(list).toMatch(
      /seed {2}from binding#1\+facts q0 \| where q0\.arg0 = \$actor, q0\.arg1 = "reader" \| out 1, q0\.arg2/,
    );
    expect(list).toContain("branch from cte#0 f0 | where f0.arg0 = 0 | out f0.arg2");
  });

  it("leaves the columns of another member of a merged recursion NULL", () => {
    const types = checked(`actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["view"];
  relations = { parent: Folder, readme: Document };
  "view" if "viewer";
  "view" if "view" on "parent";
  "viewer" if "view" on "readme";
}
resource Document {
  permissions = ["view"];
  relations = { folder: Folder, source: Document };
  "view" if "view" on "folder";
  "view" if "view" on "source";
}`);
    const bindings = parseDataBindings(`facts:
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM folders
  has_relation(Folder:_, readme, Document:_):
    query: SELECT id, readme_id FROM folders
  has_relation(Document:_, folder, Folder:_):
    query: SELECT id, folder_id FROM documents
  has_relation(Document:_, source, Document:_):
    query: SELECT id, source_id FROM documents
`);
    const authorize = plan(types, bindings, allowGoal("User", str("view"), param("Document")));
    expect(authorize).toContain("cte r0(s0: Integer, s2: Document, s3: Folder)");
    expect(authorize).toContain("seed  out 0, $resource, null(Folder)");
    const list = plan(types, bindings, allowGoal("User", str("view"), free("Document")));
    expect(list).toContain("cte r0(arg0: Integer, arg2: Document, arg3: Folder)");
    expect(list).toMatch(/out 1, null\(Document\), /);
  });

  it("rejects a rule that recurses twice in one conjunction", () => {
    const nonLinear = checked(`actor User {}
resource Node { relations = { next: Node }; }
reach(a: Node, b: Node) if has_relation(a, "next", b);
reach(a: Node, b: Node) if reach(a, c) and reach(c, b);
allow(_: User, "go", n: Node) if reach(Node{"start"}, n);`);
    const bindings = parseDataBindings(`facts:
  has_relation(Node:_, next, Node:_):
    query: SELECT a, b FROM edges
`);
    expect(() => plan(nonLinear, bindings, allowGoal("User", str("go"), free("Node")))).toThrow(
      "policy.polar:4:44: cannot compile a rule for `reach` that calls `reach` recursively more than once in one conjunction; the central service answers it by iteration (docs/fixpoint.md)",
    );
  });

  it("rejects a rule that calls a merged mutual recursion twice in one conjunction", () => {
    const nonLinear = checked(`actor User {}
resource Node { relations = { next: Node }; }
reach(a: Node, b: Node) if has_relation(a, "next", b);
reach(a: Node, b: Node) if reach(a, c) and link(c, b);
link(a: Node, b: Node) if reach(a, b);
link(a: Node, b: Node) if has_relation(a, "next", c) and link(c, b);
allow(_: User, "go", n: Node) if reach(Node{"start"}, n);`);
    const bindings = parseDataBindings(`facts:
  has_relation(Node:_, next, Node:_):
    query: SELECT a, b FROM edges
`);
    expect(() => plan(nonLinear, bindings, allowGoal("User", str("go"), free("Node")))).toThrow(
      /^policy\.polar:4:44: cannot compile a rule for `reach` that calls the mutual recursion of `(reach|link)`, `(reach|link)` more than once in one conjunction; the central service answers it by iteration \(docs\/fixpoint\.md\)$/,
    );
  });
});

describe("errors", () => {
  it("reports a variable whose type SQL needs and nothing gives (reference §9.4)", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", doc: Doc) if is_owner(user, org) and owns(org, doc);`);
    const run = () => plan(program, rbacBindings, allowGoal("User", str("read"), param("Doc")));
    expect(run).toThrow(PlanError);
    expect(run).toThrow(
      "cannot infer the type of `org` in a rule for `has_permission`; add `org matches T`",
    );
  });

  it("reports an untyped argument of a recursive predicate whose facts may have any type", () => {
    const program = checked(`${foldersPolicy}
has_permission(user: User, "peek", folder: Folder) if has_role(user, any_role, folder);`);
    const run = () =>
      plan(program, foldersBindings, allowGoal("User", str("peek"), param("Folder")));
    expect(run).toThrow(
      "cannot infer the type of `any_role` in a rule for `has_permission`; add `any_role matches T`",
    );
    const typed = checked(`${foldersPolicy}
has_permission(user: User, "peek", folder: Folder) if any_role matches String and has_role(user, any_role, folder);`);
    expect(plan(typed, foldersBindings, allowGoal("User", str("peek"), param("Folder")))).toContain(
      "cte r0",
    );
  });

  it("infers an Integer from an ordering comparison", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", _: Doc) if has_level(user, level) and level >= 3;`);
    const text = plan(program, rbacBindings, allowGoal("User", str("read"), param("Doc")));
    expect(text).toContain("facts has_level(User, Integer)");
    expect(text).toContain("f0.arg1 >= 3");
  });

  it("reports `not` over a value only a universal rule binds", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
is_doc(_: Doc);
has_permission(_: User, "read", doc: Doc) if is_doc(doc) and not is_secret(doc);`);
    const goal = { ...allowGoal("User", str("read"), free("Doc")), outputs: ["resource"] };
    expect(() => plan(program, rbacBindings, goal)).toThrow(
      "cannot evaluate `not` over an unbounded value of `doc` in a rule for `has_permission`",
    );
  });
});

describe("cache", () => {
  it("returns the same plan for the same shape and a new one for another action", () => {
    const program = checked(rbacPolicy);
    const first = cachedPlan(
      program,
      rbacBindings,
      allowGoal("User", str("read"), param("Workspace")),
    );
    const again = cachedPlan(
      program,
      rbacBindings,
      allowGoal("User", str("read"), param("Workspace")),
    );
    const other = cachedPlan(
      program,
      rbacBindings,
      allowGoal("User", str("write"), param("Workspace")),
    );
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it("caches failures too", () => {
    const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", doc: Doc) if is_owner(user, org) and owns(org, doc);`);
    const goal = allowGoal("User", str("read"), param("Doc"));
    const first = (() => {
      try {
        cachedPlan(program, rbacBindings, goal);
      } catch (error) {
        return error;
      }
    })();
    expect(() => cachedPlan(program, rbacBindings, goal)).toThrow(first as Error);
  });
});
