/**
 * The general question of `/evaluate_query` (api reference §3.4) against the reference evaluator.
 */
import { describe, expect, it } from "vitest";
import { EvaluationError, indexFacts, type Query, query } from "../src/evaluate/index.js";
import { EXAMPLES, ent, fact, policy, user } from "./evaluate-support.js";

const nested = policy(EXAMPLES.nested);
const facts = indexFacts([
  fact("has_role", user("ada"), "member", ent("Workspace", "acme")),
  fact("has_relation", ent("Project", "api"), "workspace", ent("Workspace", "acme")),
  fact("has_relation", ent("Ticket", "t1"), "project", ent("Project", "api")),
  fact("has_relation", ent("Ticket", "t2"), "project", ent("Project", "api")),
]);

const sorted = (rows: readonly Record<string, string | null>[]) =>
  rows.map((row) => JSON.stringify(row)).sort();

describe("query", () => {
  it("answers the api reference example: a predicate joined with a call", () => {
    const question: Query = {
      predicate: ["allow", ["var_u1", "var_act", "var_tk"]],
      calls: [["has_relation", ["var_tk", "var_c7", "var_pr"]]],
      constraints: {
        var_u1: { type: "User", ids: ["ada"] },
        var_act: { type: "String", ids: null },
        var_tk: { type: "Ticket", ids: null },
        var_c7: { type: "String", ids: ["project"] },
        var_pr: { type: "Project", ids: ["api"] },
      },
      context_facts: [],
    };
    const rows = query(nested, facts, question);
    expect(sorted(rows)).toEqual(
      sorted(
        ["t1", "t2"].flatMap((ticket) =>
          ["comment", "view"].map((act) => ({
            var_u1: "ada",
            var_act: act,
            var_tk: ticket,
            var_c7: "project",
            var_pr: "api",
          })),
        ),
      ),
    );
  });

  it("returns no rows when nothing matches", () => {
    const rows = query(nested, facts, {
      predicate: ["allow", ["u", "a", "t"]],
      constraints: {
        u: { type: "User", ids: ["zed"] },
        a: { type: "String", ids: null },
        t: { type: "Ticket", ids: null },
      },
    });
    expect(rows).toEqual([]);
  });

  it("uses context facts for this question only", () => {
    const question: Query = {
      predicate: ["allow", ["u", "a", "t"]],
      constraints: {
        u: { type: "User", ids: ["bo"] },
        a: { type: "String", ids: ["view"] },
        t: { type: "Ticket", ids: ["t1"] },
      },
      context_facts: [fact("has_role", user("bo"), "admin", ent("Workspace", "acme"))],
    };
    expect(query(nested, facts, question)).toEqual([{ u: "bo", a: "view", t: "t1" }]);
    expect(query(nested, facts, { ...question, context_facts: [] })).toEqual([]);
  });

  it("matches constraint types exactly, never subtypes", () => {
    const program = policy(`
      actor User {}
      resource File {}
      resource Doc extends File {}
      owns(User{"ada"}, File{"f1"});
      owns(User{"ada"}, Doc{"d1"});
    `);
    const ask = (type: string) =>
      query(program, [], {
        predicate: ["owns", ["u", "f"]],
        constraints: { u: { type: "User", ids: null }, f: { type, ids: null } },
      });
    expect(ask("File")).toEqual([{ u: "ada", f: "f1" }]);
    expect(ask("Doc")).toEqual([{ u: "ada", f: "d1" }]);
    expect(ask("Folder")).toEqual([]);
  });

  it("reports wildcards as null, and as one row per listed id", () => {
    const program = policy(`
      actor User {}
      resource Org {}
      has_role(_: User, "guest", _: Org);
      has_role(User{"ada"}, "guest", Org{"o1"});
    `);
    const ask = (ids: string[] | null) =>
      query(program, [], {
        predicate: ["has_role", ["u", "r", "o"]],
        constraints: {
          u: { type: "User", ids },
          r: { type: "String", ids: null },
          o: { type: "Org", ids: null },
        },
      });
    expect(sorted(ask(null))).toEqual(
      sorted([
        { u: null, r: "guest", o: null },
        { u: "ada", r: "guest", o: "o1" },
      ]),
    );
    expect(sorted(ask(["bo", "cy"]))).toEqual(
      sorted([
        { u: "bo", r: "guest", o: null },
        { u: "cy", r: "guest", o: null },
      ]),
    );
  });

  it("includes variables that appear only in the constraints", () => {
    const rows = query(nested, facts, {
      predicate: ["has_relation", ["t", "rel", "p"]],
      constraints: {
        t: { type: "Ticket", ids: ["t1"] },
        rel: { type: "String", ids: null },
        p: { type: "Project", ids: null },
        extra: { type: "User", ids: null },
        picked: { type: "User", ids: ["x", "y"] },
      },
    });
    expect(sorted(rows)).toEqual(
      sorted(
        ["x", "y"].map((picked) => ({ t: "t1", rel: "project", p: "api", extra: null, picked })),
      ),
    );
  });

  it("joins a variable shared by the predicate and a call", () => {
    const rows = query(nested, facts, {
      predicate: ["has_relation", ["t", "rel", "p"]],
      calls: [["has_relation", ["p", "rel2", "w"]]],
      constraints: {
        t: { type: "Ticket", ids: null },
        rel: { type: "String", ids: null },
        p: { type: "Project", ids: null },
        rel2: { type: "String", ids: null },
        w: { type: "Workspace", ids: null },
      },
    });
    expect(rows.map((row) => row.t).sort()).toEqual(["t1", "t2"]);
    expect(new Set(rows.map((row) => row.w))).toEqual(new Set(["acme"]));
  });

  it("canonicalises Integer ids", () => {
    const program = policy('actor User {}\nlevel(User{"ada"}, 7);');
    const rows = query(program, [], {
      predicate: ["level", ["u", "n"]],
      constraints: { u: { type: "User", ids: null }, n: { type: "Integer", ids: ["007"] } },
    });
    expect(rows).toEqual([{ u: "ada", n: "7" }]);
  });
});

describe("query errors", () => {
  const base: Query = {
    predicate: ["allow", ["u", "a", "t"]],
    constraints: {
      u: { type: "User", ids: ["ada"] },
      a: { type: "String", ids: null },
      t: { type: "Ticket", ids: null },
    },
  };
  const fails = (question: Query, message: string) => {
    expect(() => query(nested, facts, question)).toThrowError(EvaluationError);
    expect(() => query(nested, facts, question)).toThrowError(message);
  };

  it("accepts the well-formed base question", () => {
    expect(query(nested, facts, base).length).toBeGreaterThan(0);
  });

  it("names an unknown predicate and a wrong arity", () => {
    fails(
      { ...base, predicate: ["does_not_exist", ["u", "a"]] },
      "unknown predicate `does_not_exist/2`",
    );
    fails(
      { ...base, predicate: ["allow", ["u", "a"]] },
      "unknown predicate `allow/2`; `allow` takes 3 arguments",
    );
    fails({ ...base, calls: [["nope", ["u"]]] }, "unknown predicate `nope/1`");
  });

  it("names a variable without a constraint", () => {
    fails(
      { ...base, calls: [["has_relation", ["t", "var_x", "u"]]] },
      "variable `var_x` has no constraint",
    );
  });

  it("rejects abstract and empty types and empty or malformed ids", () => {
    const constrain = (type: string, ids: string[] | null): Query => ({
      ...base,
      constraints: { ...base.constraints, u: { type, ids } },
    });
    fails(constrain("Actor", null), "query variables need a concrete type, not `Actor`");
    fails(constrain("Resource", ["x"]), "query variables need a concrete type, not `Resource`");
    fails(constrain("", null), "variable `u` needs a non-empty type");
    fails(constrain("User", [""]), "variable `u` has an empty id");
    fails(constrain("Integer", ["abc"]), "`Integer` id `abc` is not a 64-bit integer");
    fails(constrain("Boolean", ["yes"]), "`Boolean` id `yes` is not `true` or `false`");
  });
});
