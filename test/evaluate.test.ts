/**
 * The reference evaluator, feature by feature: a success and a failure case for each semantic
 * rule of the reference (§3–§5, §8, §9).
 */
import { describe, expect, it } from "vitest";
import { type PredicateKey, type Program, predicateKey } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import {
  actions,
  authorize,
  authorizeResources,
  EvaluationError,
  indexFacts,
  list,
  type Slot,
} from "../src/evaluate/index.js";
import { createSession } from "../src/evaluate/session.js";
import { ANY, anyOf } from "../src/evaluate/slot.js";
import { callPredicate } from "../src/evaluate/solve.js";
import { bool, ent, fact, int, policy, str, user } from "./evaluate-support.js";

interface AskOptions {
  readonly now?: bigint;
  readonly context?: readonly GroundFact[];
}

/** Every answer of `name(pattern)`. */
function answers(
  program: Program,
  facts: readonly GroundFact[],
  name: string,
  pattern: readonly Slot[],
  options: AskOptions = {},
): readonly (readonly Slot[])[] {
  const layers = [indexFacts(facts), indexFacts(options.context ?? [])];
  const now = options.now;
  const session = createSession(program, layers, now === undefined ? {} : { now: () => now });
  const key: PredicateKey = predicateKey(name, pattern.length);
  return callPredicate(session, key, pattern);
}

function holds(
  program: Program,
  facts: readonly GroundFact[],
  name: string,
  args: readonly Value[],
  options: AskOptions = {},
): boolean {
  return answers(program, facts, name, args, options).length > 0;
}

/** The distinct values an argument takes over all answers, formatted and sorted. */
function column(rows: readonly (readonly Slot[])[], index: number): string[] {
  const format = (slot: Slot) =>
    "kind" in slot ? `*${slot.types.join("&")}` : `${slot.type}:${slot.id}`;
  return [...new Set(rows.map((row) => format(row[index]!)))].sort();
}

describe("head matching", () => {
  const program = policy(`
    actor User {}
    resource File {}
    resource Doc extends File {}
    limit("pro", 50);
    is_file(_f: File);
    same(x, x);
    pair(_, _);
    first_and_last(x, _, x);
  `);

  it("matches literal parameters exactly", () => {
    expect(holds(program, [], "limit", [str("pro"), int(50)])).toBe(true);
    expect(holds(program, [], "limit", [str("pro"), int(51)])).toBe(false);
    expect(holds(program, [], "limit", [str("free"), int(50)])).toBe(false);
    expect(holds(program, [], "limit", [int(50), str("pro")])).toBe(false);
  });

  it("accepts values of a specializer's subtypes, and nothing else", () => {
    expect(holds(program, [], "is_file", [ent("File", "a")])).toBe(true);
    expect(holds(program, [], "is_file", [ent("Doc", "a")])).toBe(true);
    expect(holds(program, [], "is_file", [user("a")])).toBe(false);
    expect(holds(program, [], "is_file", [str("a")])).toBe(false);
  });

  it("forces repeated head variables to be equal", () => {
    expect(holds(program, [], "same", [int(1), int(1)])).toBe(true);
    expect(holds(program, [], "same", [int(1), int(2)])).toBe(false);
    expect(holds(program, [], "same", [str("1"), int(1)])).toBe(false);
    expect(holds(program, [], "first_and_last", [int(1), str("x"), int(1)])).toBe(true);
    expect(holds(program, [], "first_and_last", [int(1), str("x"), int(2)])).toBe(false);
  });

  it("treats each `_` as a distinct variable", () => {
    expect(holds(program, [], "pair", [int(1), str("two")])).toBe(true);
    expect(holds(program, [], "pair", [user("a"), user("a")])).toBe(true);
  });

  it("never errors on a call that fits no clause", () => {
    expect(holds(program, [], "limit", [str("pro"), str("pro")])).toBe(false);
    expect(holds(program, [], "no_such_predicate", [str("x")])).toBe(false);
  });
});

describe("operators", () => {
  const program = policy(`
    actor User {}
    resource File {}
    resource Doc extends File {}
    eq(x, y) if x = y;
    named(x) if x = "ada";
    ne(x, y) if x != y;
    lt(x, y) if x < y;
    le(x, y) if x <= y;
    gt(x, y) if x > y;
    ge(x, y) if x >= y;
    small(x) if x in [1, 2, "three", User{"u"}];
    is_resource(x) if x matches Resource;
    is_file(x) if x matches File;
    is_string(x) if x matches String;
    is_integer(x) if x matches Integer;
    yes() if true;
    no() if false;
  `);

  it("`=` tests equality of bound values and binds unbound ones", () => {
    expect(holds(program, [], "eq", [int(1), int(1)])).toBe(true);
    expect(holds(program, [], "eq", [int(1), str("1")])).toBe(false);
    expect(column(answers(program, [], "named", [ANY]), 0)).toEqual(["String:ada"]);
    expect(holds(program, [], "named", [str("bo")])).toBe(false);
  });

  it("`=` never equates a subtype value with a supertype value", () => {
    expect(holds(program, [], "eq", [ent("Doc", "a"), ent("Doc", "a")])).toBe(true);
    expect(holds(program, [], "eq", [ent("Doc", "a"), ent("File", "a")])).toBe(false);
  });

  it("`!=` holds for different values, including values of different types", () => {
    expect(holds(program, [], "ne", [int(1), int(2)])).toBe(true);
    expect(holds(program, [], "ne", [int(1), str("1")])).toBe(true);
    expect(holds(program, [], "ne", [int(1), int(1)])).toBe(false);
  });

  it("compares Integers numerically over the whole 64-bit range", () => {
    expect(holds(program, [], "lt", [int(2), int(10)])).toBe(true);
    expect(holds(program, [], "lt", [int(10), int(2)])).toBe(false);
    expect(holds(program, [], "lt", [int(-5), int(-4)])).toBe(true);
    const max = 9223372036854775807n;
    expect(holds(program, [], "lt", [int(max - 1n), int(max)])).toBe(true);
    expect(holds(program, [], "lt", [int(max), int(max - 1n)])).toBe(false);
    expect(holds(program, [], "le", [int(3), int(3)])).toBe(true);
    expect(holds(program, [], "le", [int(4), int(3)])).toBe(false);
    expect(holds(program, [], "gt", [int(4), int(3)])).toBe(true);
    expect(holds(program, [], "gt", [int(3), int(3)])).toBe(false);
    expect(holds(program, [], "ge", [int(3), int(3)])).toBe(true);
    expect(holds(program, [], "ge", [int(2), int(3)])).toBe(false);
  });

  it("compares Strings by code point, not by locale or UTF-16 unit", () => {
    expect(holds(program, [], "lt", [str("B"), str("a")])).toBe(true);
    expect(holds(program, [], "lt", [str("a"), str("B")])).toBe(false);
    expect(holds(program, [], "lt", [str("ab"), str("abc")])).toBe(true);
    // U+FFFF is below U+1F600, although its UTF-16 unit is above the surrogate 0xD83D.
    expect(holds(program, [], "lt", [str("\uffff"), str("😀")])).toBe(true);
    expect(holds(program, [], "gt", [str("\uffff"), str("😀")])).toBe(false);
  });

  it("orders no other pair of values", () => {
    expect(holds(program, [], "lt", [int(1), str("2")])).toBe(false);
    expect(holds(program, [], "ge", [int(1), str("1")])).toBe(false);
    expect(holds(program, [], "lt", [bool(false), bool(true)])).toBe(false);
    expect(holds(program, [], "le", [user("a"), user("a")])).toBe(false);
  });

  it("`in` tests membership in a literal list and enumerates it when unbound", () => {
    expect(holds(program, [], "small", [int(2)])).toBe(true);
    expect(holds(program, [], "small", [user("u")])).toBe(true);
    expect(holds(program, [], "small", [int(3)])).toBe(false);
    expect(holds(program, [], "small", [str("2")])).toBe(false);
    expect(column(answers(program, [], "small", [ANY]), 0)).toEqual([
      "Integer:1",
      "Integer:2",
      "String:three",
      "User:u",
    ]);
  });

  it("`matches` tests types with subtypes; primitives are unrelated", () => {
    expect(holds(program, [], "is_resource", [ent("Doc", "d")])).toBe(true);
    expect(holds(program, [], "is_resource", [user("u")])).toBe(true); // Actor < Resource
    expect(holds(program, [], "is_resource", [str("d")])).toBe(false);
    expect(holds(program, [], "is_file", [ent("Doc", "d")])).toBe(true);
    expect(holds(program, [], "is_file", [user("d")])).toBe(false);
    expect(holds(program, [], "is_string", [str("1")])).toBe(true);
    expect(holds(program, [], "is_string", [int(1)])).toBe(false);
    expect(holds(program, [], "is_integer", [str("1")])).toBe(false);
  });

  it("`matches` on an unbound variable gives a wildcard of that type", () => {
    expect(answers(program, [], "is_file", [ANY])).toEqual([[anyOf("File")]]);
    expect(answers(program, [], "is_string", [anyOf("Integer")])).toEqual([]);
  });

  it("`true` and `false` as conditions", () => {
    expect(holds(program, [], "yes", [])).toBe(true);
    expect(holds(program, [], "no", [])).toBe(false);
  });
});

describe("@current_unix_time", () => {
  const program = policy(`
    actor User {}
    fresh(expires_at) if expires_at > @current_unix_time;
    stamp(t) if t = @current_unix_time;
  `);

  it("reads the injected clock", () => {
    expect(holds(program, [], "fresh", [int(1001)], { now: 1000n })).toBe(true);
    expect(holds(program, [], "fresh", [int(1000)], { now: 1000n })).toBe(false);
    expect(answers(program, [], "stamp", [ANY], { now: 1234n })).toEqual([[int(1234)]]);
  });

  it("defaults to the system clock", () => {
    const seconds = Math.floor(Date.now() / 1000);
    expect(holds(program, [], "fresh", [int(seconds + 3600)])).toBe(true);
    expect(holds(program, [], "fresh", [int(seconds - 3600)])).toBe(false);
  });
});

describe("facts from every source", () => {
  const program = policy(`
    actor User {}
    resource Plan {}
    tier(Plan{"pro"}, 50);
    declare tier(Plan, Integer);
  `);
  const stored = [fact("tier", ent("Plan", "free"), int(5))];
  const context = [fact("tier", ent("Plan", "team"), int(10))];

  it("unions policy facts, stored facts and context facts", () => {
    const all = answers(program, stored, "tier", [anyOf("Plan"), ANY], { context });
    expect(column(all, 0)).toEqual(["Plan:free", "Plan:pro", "Plan:team"]);
  });

  it("forgets context facts after the question", () => {
    const all = answers(program, stored, "tier", [anyOf("Plan"), ANY]);
    expect(column(all, 0)).toEqual(["Plan:free", "Plan:pro"]);
  });

  it("collapses duplicate facts and compares Integer ids numerically", () => {
    const duplicated = [
      ...stored,
      fact("tier", ent("Plan", "free"), { type: "Integer", id: "05" }),
    ];
    expect(answers(program, duplicated, "tier", [ent("Plan", "free"), ANY])).toEqual([
      [ent("Plan", "free"), int(5)],
    ]);
  });
});

describe("recursion", () => {
  const program = policy(`
    actor User {}
    reach(x, y) if edge(x, y);
    reach(x, z) if edge(x, y) and reach(y, z);
    left(x, y) if edge(x, y);
    left(x, z) if left(x, y) and edge(y, z);
    even(0);
    even(y) if next(x, y) and odd(x);
    odd(y) if next(x, y) and even(x);
    declare edge(String, String);
    declare next(Integer, Integer);
  `);
  const cycle = [fact("edge", "a", "b"), fact("edge", "b", "c"), fact("edge", "c", "a")];

  it("computes the transitive closure of cyclic data and terminates", () => {
    for (const name of ["reach", "left"]) {
      expect(holds(program, cycle, name, [str("a"), str("a")])).toBe(true);
      expect(holds(program, cycle, name, [str("c"), str("b")])).toBe(true);
      expect(holds(program, cycle, name, [str("a"), str("d")])).toBe(false);
      expect(column(answers(program, cycle, name, [str("b"), ANY]), 1)).toEqual([
        "String:a",
        "String:b",
        "String:c",
      ]);
      expect(answers(program, cycle, name, [ANY, ANY])).toHaveLength(9);
    }
  });

  it("handles mutual recursion", () => {
    const chain = [0, 1, 2, 3, 4].map((n) => fact("next", int(n), int(n + 1)));
    expect(holds(program, chain, "even", [int(4)])).toBe(true);
    expect(holds(program, chain, "odd", [int(5)])).toBe(true);
    expect(holds(program, chain, "even", [int(3)])).toBe(false);
    expect(holds(program, chain, "odd", [int(4)])).toBe(false);
    // an odd cycle makes every node both even and odd
    const loop = [
      fact("next", int(0), int(1)),
      fact("next", int(1), int(2)),
      fact("next", int(2), int(0)),
    ];
    expect(holds(program, loop, "odd", [int(0)])).toBe(true);
    expect(holds(program, loop, "even", [int(2)])).toBe(true);
  });

  it("terminates on a long chain and on a dense cyclic graph", () => {
    const chain = Array.from({ length: 300 }, (_, i) => fact("edge", `n${i}`, `n${i + 1}`));
    expect(holds(program, chain, "reach", [str("n0"), str("n300")])).toBe(true);
    expect(holds(program, chain, "reach", [str("n300"), str("n0")])).toBe(false);
    const dense = [];
    for (let i = 0; i < 20; i++)
      for (let j = 0; j < 20; j += 3) dense.push(fact("edge", `d${i}`, `d${(i + j + 1) % 20}`));
    expect(answers(program, dense, "reach", [ANY, ANY])).toHaveLength(400);
  });
});

describe("negation", () => {
  const program = policy(`
    actor User {}
    resource Doc {}
    visible(d) if doc(d) and not hidden(d);
    public(d) if doc(d) and not (has_tag(d, t) and t = "secret");
    unreachable(x, y) if node(x) and node(y) and not reach(x, y);
    reach(x, y) if edge(x, y);
    reach(x, z) if edge(x, y) and reach(y, z);
    declare doc(Doc);
    declare hidden(Doc);
    declare has_tag(Doc, String);
    declare node(String);
    declare edge(String, String);
  `);
  const docs = [
    fact("doc", ent("Doc", "d1")),
    fact("doc", ent("Doc", "d2")),
    fact("hidden", ent("Doc", "d2")),
    fact("has_tag", ent("Doc", "d1"), "secret"),
    fact("has_tag", ent("Doc", "d2"), "draft"),
  ];

  it("negates a data predicate", () => {
    expect(holds(program, docs, "visible", [ent("Doc", "d1")])).toBe(true);
    expect(holds(program, docs, "visible", [ent("Doc", "d2")])).toBe(false);
  });

  it("negates a conjunction with a local variable", () => {
    expect(holds(program, docs, "public", [ent("Doc", "d2")])).toBe(true);
    expect(holds(program, docs, "public", [ent("Doc", "d1")])).toBe(false);
  });

  it("negates a recursive predicate from a higher stratum", () => {
    const graph = ["a", "b", "c"].map((n) => fact("node", n));
    graph.push(fact("edge", "a", "b"), fact("edge", "b", "c"));
    expect(holds(program, graph, "unreachable", [str("c"), str("a")])).toBe(true);
    expect(holds(program, graph, "unreachable", [str("a"), str("c")])).toBe(false);
    expect(answers(program, graph, "unreachable", [ANY, ANY])).toHaveLength(6);
  });
});

describe("wildcard answers", () => {
  const program = policy(`
    actor User {}
    resource Org {}
    resource Team {}
    has_permission(_: User, "read", _: Org);
    has_permission(actor: User, action, _: Team) if is_admin(actor) and action matches String;
    has_role(user: User, "member", org: Org) if has_relation(org, "owner", user);
    guarded(x) if candidate(x) and not blocked(x);
    big(n) if limit(n) and n > 3;
    candidate(_: User);
    limit(_: Integer);
    declare blocked(User);
    declare is_admin(User);
  `);
  const facts = [
    fact("is_admin", user("root")),
    fact("has_relation", ent("Org", "o1"), "owner", user("ada")),
  ];

  it("answers universal rules without expanding them", () => {
    expect(authorize(program, facts, user("anyone"), "read", ent("Org", "o9"))).toBe(true);
    expect(authorize(program, facts, user("anyone"), "read", ent("Team", "t1"))).toBe(false);
    expect(authorize(program, facts, user("anyone"), "write", ent("Org", "o9"))).toBe(false);
    expect(list(program, facts, user("anyone"), "read", "Org")).toEqual(["*"]);
    expect(list(program, facts, user("anyone"), "read", "Team")).toEqual([]);
  });

  it("reports an unbound action as `*` and keeps concrete answers beside it", () => {
    expect(actions(program, facts, user("root"), ent("Team", "t1"))).toEqual(["*"]);
    expect(actions(program, facts, user("bo"), ent("Team", "t1"))).toEqual([]);
    expect(actions(program, facts, user("root"), ent("Org", "o1"))).toEqual(["read"]);
  });

  it("lists a wildcard as `*` beside the concrete ids", () => {
    const rows = [fact("has_relation", ent("Org", "o1"), "owner", user("ada"))];
    const program = policy(`
      actor User {}
      resource Org {}
      has_permission(_: User, "read", _: Org);
      has_permission(user: User, "read", org: Org) if has_relation(org, "owner", user);
    `);
    expect(list(program, rows, user("ada"), "read", "Org")).toEqual(["*", "o1"]);
    expect(list(program, rows, user("bo"), "read", "Org")).toEqual(["*"]);
  });

  it("refuses to equate two wildcards, which answers cannot express", () => {
    const program = policy(`
      actor User {}
      same(x, x);
      twin(x, y) if member(x) and member(y) and x = y;
      member(_: User);
    `);
    expect(answers(program, [], "same", [int(1), ANY])).toEqual([[int(1), int(1)]]);
    expect(() => answers(program, [], "same", [ANY, ANY])).toThrowError(
      "cannot evaluate a rule for `same` over an unbounded value of `x`, which appears more than once in its head",
    );
    expect(answers(program, [], "twin", [user("a"), ANY])).toEqual([[user("a"), user("a")]]);
    expect(() => answers(program, [], "twin", [ANY, ANY])).toThrowError(
      "cannot evaluate `=` over an unbounded value of `x`",
    );
  });

  it("decides `!=` and orderings over a wildcard when the types cannot meet", () => {
    const program = policy(`
      actor User {}
      other(x) if member(x) and x != "ada";
      ranked(x) if member(x) and x > 3;
      same_kind(x) if member(x) and x != User{"ada"};
      member(_: User);
    `);
    expect(answers(program, [], "other", [ANY])).toEqual([[anyOf("User")]]);
    expect(answers(program, [], "ranked", [ANY])).toEqual([]);
    expect(() => answers(program, [], "same_kind", [ANY])).toThrowError(
      "cannot evaluate `!=` over an unbounded value of `x`",
    );
  });

  it("joins a wildcard with a concrete value", () => {
    expect(answers(program, facts, "has_permission", [user("x"), ANY, ANY])).toEqual([
      [user("x"), str("read"), anyOf("Org")],
    ]);
  });

  it("refuses `not` and comparisons over a value bound only to a wildcard", () => {
    expect(() => answers(program, facts, "guarded", [ANY])).toThrowError(
      "cannot evaluate `not` over an unbounded value of `x`",
    );
    expect(holds(program, [fact("blocked", user("b"))], "guarded", [user("a")])).toBe(true);
    expect(holds(program, [fact("blocked", user("b"))], "guarded", [user("b")])).toBe(false);
    expect(() => answers(program, facts, "big", [ANY])).toThrowError(EvaluationError);
    expect(() => answers(program, facts, "big", [ANY])).toThrowError(
      "cannot evaluate `>` over an unbounded value of `n`",
    );
    expect(holds(program, facts, "big", [int(4)])).toBe(true);
    expect(holds(program, facts, "big", [int(3)])).toBe(false);
  });
});

describe("the authorization predicates", () => {
  const rbac = policy(`
    actor User {}
    resource Workspace {
      roles = ["viewer", "owner"];
      permissions = ["read", "delete"];
      "viewer" if "owner";
      "read" if "viewer";
      "delete" if "owner";
    }
  `);
  const facts = [
    fact("has_role", user("ada"), "owner", ent("Workspace", "w1")),
    fact("has_role", user("bo"), "viewer", ent("Workspace", "w1")),
    fact("has_role", user("bo"), "viewer", ent("Workspace", "w2")),
  ];

  it("uses the default `allow` when the policy has no `allow/3`", () => {
    expect(authorize(rbac, facts, user("ada"), "delete", ent("Workspace", "w1"))).toBe(true);
    expect(authorize(rbac, facts, user("bo"), "delete", ent("Workspace", "w1"))).toBe(false);
  });

  it("lists ids of exactly the type, sorted, and actions sorted", () => {
    expect(list(rbac, facts, user("bo"), "read", "Workspace")).toEqual(["w1", "w2"]);
    expect(list(rbac, facts, user("ada"), "delete", "Workspace")).toEqual(["w1"]);
    expect(actions(rbac, facts, user("ada"), ent("Workspace", "w1"))).toEqual(["delete", "read"]);
    expect(actions(rbac, facts, user("bo"), ent("Workspace", "w3"))).toEqual([]);
  });

  it("answers unknown actions, types and ids negatively", () => {
    expect(authorize(rbac, facts, user("ada"), "fly", ent("Workspace", "w1"))).toBe(false);
    expect(authorize(rbac, facts, user("ada"), "read", ent("Nope", "w1"))).toBe(false);
    expect(list(rbac, facts, user("ada"), "read", "Nope")).toEqual([]);
    expect(actions(rbac, facts, ent("Ghost", "x"), ent("Workspace", "w1"))).toEqual([]);
  });

  it("authorizes a batch in input order, keeping duplicates", () => {
    const w1 = ent("Workspace", "w1");
    const w3 = ent("Workspace", "w3");
    expect(authorizeResources(rbac, facts, user("bo"), "read", [w1, w3, w1])).toEqual([w1, w1]);
    expect(authorizeResources(rbac, facts, user("cy"), "read", [w1])).toEqual([]);
  });

  it("drops the default `allow` when the policy has its own", () => {
    const custom = policy(`
      actor User {}
      resource Workspace { permissions = ["read"]; }
      has_permission(_: User, "read", _: Workspace);
      allow(_: User, "peek", _: Workspace);
    `);
    expect(authorize(custom, [], user("a"), "peek", ent("Workspace", "w"))).toBe(true);
    expect(authorize(custom, [], user("a"), "read", ent("Workspace", "w"))).toBe(false);
  });

  it("rejects values without a type or id", () => {
    expect(() =>
      authorize(rbac, facts, { type: "", id: "a" }, "read", ent("Workspace", "w1")),
    ).toThrowError("the actor needs a non-empty type and id");
    expect(() => list(rbac, facts, user("a"), "read", "")).toThrowError(EvaluationError);
  });
});

describe("conjunctions are order-independent", () => {
  const program = policy(`
    actor User {}
    resource Team {}
    linked(x, y) if (p(x) or q(y)) and y matches Team and r(x, y);
    later(x) if x > 3 and num(x);
    via(x) if x = y and num(y);
    declare p(User);
    declare q(Team);
    declare r(User, Team);
    declare num(Integer);
  `);
  const facts = [
    fact("p", user("a")),
    fact("q", ent("Team", "t2")),
    fact("r", user("a"), ent("Team", "t1")),
    fact("r", user("b"), ent("Team", "t2")),
    fact("r", user("c"), ent("Team", "t3")),
    fact("num", int(2)),
    fact("num", int(7)),
  ];

  it("schedules binding atoms before the atoms that need their variables", () => {
    const rows = answers(program, facts, "linked", [ANY, ANY]);
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual([user("a"), ent("Team", "t1")]);
    expect(rows).toContainEqual([user("b"), ent("Team", "t2")]);
    expect(column(answers(program, facts, "later", [ANY]), 0)).toEqual(["Integer:7"]);
    expect(column(answers(program, facts, "via", [ANY]), 0)).toEqual(["Integer:2", "Integer:7"]);
  });

  it("still fails when no atom order yields a solution", () => {
    expect(holds(program, facts, "linked", [user("c"), ent("Team", "t3")])).toBe(false);
    expect(holds(program, facts, "later", [int(2)])).toBe(false);
  });
});
