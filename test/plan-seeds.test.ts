/**
 * A walk seeded from the caller's own sources (src/plan/cte.ts, `absorbPrefix`): the caller
 * reads the walk's key columns instead of joining those sources a second time, unless
 * something else in the caller reads them. Execution of both forms is covered by the
 * local-fixtures and local-dialects differential tests.
 */
import { describe, expect, it } from "vitest";
import { parseDataBindings } from "../src/bindings/parse.js";
import { formatPlan } from "../src/plan/format.js";
import type { Goal, GoalVariable } from "../src/plan/goal.js";
import { createPlanner, planGoal } from "../src/plan/plan.js";
import { checked } from "./local-support.js";

const program = checked(`actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["list"];
  relations = { parent: Folder };
  role if role on "parent";
  "list" if "reader";
}
resource Document {}
owner_if_reader(user: User, doc: Document, owner: User) if
  folder matches Folder and doc_folder(doc, folder, owner) and has_role(user, "reader", folder);`);

const bindings = parseDataBindings(`facts:
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM folders
  has_role(User:_, String:_, Folder:_):
    query: SELECT user_id, role, folder_id FROM folder_roles
  doc_folder(Document:_, Folder:_, User:_):
    query: SELECT id, folder_id, owner_id FROM documents
`);

const param = (type: string): GoalVariable => ({ kind: "param", type, many: false });

function plan(owner: GoalVariable): string[] {
  const goal: Goal = {
    calls: [{ name: "owner_if_reader", args: ["actor", "resource", "owner"] }],
    variables: new Map<string, GoalVariable>([
      ["actor", param("User")],
      ["resource", param("Document")],
      ["owner", owner],
    ]),
    outputs: owner.kind === "free" ? ["owner"] : [],
    outer: null,
  };
  const text = formatPlan(planGoal(createPlanner(program, bindings), goal));
  return text.split("\n").filter((line) => line.startsWith("branch") && line.includes("cte#0"));
}

describe("a walk seeded from the caller's sources", () => {
  it("is read through its key columns when nothing else reads the seed's sources", () => {
    const [walking, ...rest] = plan(param("User"));
    expect(rest).toEqual([]);
    // The documents binding (#2) was the seed; the caller no longer joins it again.
    expect(walking).toBe(
      'branch from cte#0 f0, binding#1+facts f1 | where f1.arg0 = $actor, f1.arg1 = "reader", f1.arg2 = f0.s2',
    );
  });

  it("keeps the seed's sources joined when the caller outputs one of their other columns", () => {
    const [walking] = plan({ kind: "free", type: "User" });
    expect(walking).toContain("binding#2+facts f0, cte#0 f1");
    expect(walking).toContain("f1.k2 = f0.arg1");
    expect(walking).toMatch(/\| out f0\.arg2$/);
  });
});
