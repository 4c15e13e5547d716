/**
 * Branches that differ only in the values one term is compared with become one branch
 * (src/plan/resolve/merge-branches.ts); anything else stays apart.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Branch, Condition, Term } from "../src/plan/ir.js";
import { column } from "../src/plan/ir.js";
import { mergeValueBranches } from "../src/plan/resolve/merge-branches.js";

const owner = column("f0", "arg2", "User");
const id = column("f0", "arg0", "Report");
const user = (n: string): Term => ({ kind: "literal", value: { type: "User", id: n } });
const actor: Term = { kind: "param", name: "actor", type: "User" };

function branch(...conditions: Condition[]): Branch {
  return {
    sources: [{ alias: "f0", source: { kind: "binding", binding: 0 } }],
    conditions,
    outputs: [id],
  };
}
const eq = (left: Term, right: Term): Condition => ({ kind: "compare", op: "=", left, right });
const among = (term: Term, values: Term[]): Condition => ({ kind: "in", term, values });

describe("merging branches that differ in one term's values", () => {
  it("gathers the actor's own rows and those below into one list", () => {
    const merged = mergeValueBranches([
      branch(eq(owner, actor)),
      branch(among(owner, [user("1"), user("2")])),
      branch(eq(user("3"), owner)),
    ]);
    expect(merged).toEqual([branch(among(owner, [actor, user("1"), user("2"), user("3")]))]);
  });

  it("keeps branches apart that differ in more than one condition or in what they read", () => {
    const other = column("f0", "arg1", "String");
    const read: Term = { kind: "literal", value: { type: "String", id: "read" } };
    const write: Term = { kind: "literal", value: { type: "String", id: "write" } };
    const branches = [
      branch(eq(owner, actor), eq(other, read)),
      branch(eq(owner, user("1")), eq(other, write)),
      { ...branch(eq(owner, user("2"))), outputs: [owner] },
    ];
    expect(mergeValueBranches(branches)).toEqual(branches);
  });

  it("merges on the same condition only, whatever else matches", () => {
    const other = column("f0", "arg1", "String");
    const read: Term = { kind: "literal", value: { type: "String", id: "read" } };
    const write: Term = { kind: "literal", value: { type: "String", id: "write" } };
    const merged = mergeValueBranches([
      branch(eq(owner, user("1")), eq(other, read)),
      branch(eq(owner, user("2")), eq(other, read)),
      branch(eq(owner, user("1")), eq(other, write)),
    ]);
    expect(merged).toEqual([
      branch(among(owner, [user("1"), user("2")]), eq(other, read)),
      branch(eq(owner, user("1")), eq(other, write)),
    ]);
  });

  it("holds for the same rows as the union of the branches it merges", () => {
    // Branches over one row `(owner, kind)`: each fixes owner to some ids and kind to one id.
    const kind = column("f0", "arg1", "String");
    const arbitraryBranch = fc
      .tuple(
        fc.uniqueArray(fc.constantFrom("1", "2", "3", "4"), { minLength: 1, maxLength: 3 }),
        fc.constantFrom("a", "b"),
      )
      .map(([owners, k]) =>
        branch(
          owners.length === 1 ? eq(owner, user(owners[0]!)) : among(owner, owners.map(user)),
          eq(kind, { kind: "literal", value: { type: "String", id: k } }),
        ),
      );
    fc.assert(
      fc.property(fc.array(arbitraryBranch, { maxLength: 6 }), (branches) => {
        const merged = mergeValueBranches(branches);
        expect(merged.length).toBeLessThanOrEqual(branches.length);
        for (const o of ["1", "2", "3", "4", "5"]) {
          for (const k of ["a", "b"]) {
            const holds = (b: Branch) => b.conditions.every((c) => holdsOn(c, o, k));
            expect(merged.some(holds)).toBe(branches.some(holds));
          }
        }
      }),
    );
  });
});

/** A condition of the property's branches on the row `(owner, kind)`. */
function holdsOn(condition: Condition, ownerId: string, kindId: string): boolean {
  const idOf = (term: Term) =>
    term.kind === "literal"
      ? term.value.id
      : term.kind === "column" && term.column === "arg2"
        ? ownerId
        : kindId;
  if (condition.kind === "compare") return idOf(condition.left) === idOf(condition.right);
  if (condition.kind === "in")
    return condition.values.some((v) => idOf(v) === idOf(condition.term));
  return false;
}
