import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalFact,
  canonicalValue,
  checkFact,
  checkFactValue,
  termValue,
} from "../src/check/facts.js";
import type { Program } from "../src/check/program.js";
import { INTEGER_MAX, INTEGER_MIN, type Value } from "../src/core/value.js";
import { parsePolicy } from "../src/polar/parse.js";
import { checkOk } from "./check-support.js";

const v = (type: string, id: string): Value => ({ type, id });
const fact = (predicate: string, ...args: Value[]) => ({ predicate, args });
const message = (program: Program, predicate: string, ...args: Value[]) =>
  checkFact(program, fact(predicate, ...args))?.message ?? null;
const signature = (program: Program, key: string) =>
  program.factSignatures.get(key as `${string}/${number}`)?.args;

describe("checkFact", () => {
  const program = checkOk(`
    actor User {}
    actor Admin extends User {}
    resource Team {}
    resource Doc { permissions = ["read"]; "read" if is_public(resource); }
    declare has_tag(User, String);
    declare member(Actor, Team);
    declare member(Actor, Doc);
  `);

  it("accepts has_role, has_permission and has_relation with any argument types", () => {
    expect(message(program, "has_role", v("Integer", "1"), v("Doc", "d"))).toBeNull();
    expect(
      message(program, "has_role", v("Team", "t"), v("Doc", "d"), v("Boolean", "true")),
    ).toBeNull();
    expect(message(program, "has_permission", v("Doc", "d"), v("String", "x"))).toBeNull();
    expect(
      message(program, "has_permission", v("Doc", "d"), v("String", "x"), v("Team", "t")),
    ).toBeNull();
    expect(
      message(program, "has_relation", v("Doc", "d"), v("String", "x"), v("Widget", "w")),
    ).toBeNull();
  });
  it("P501: unknown predicates and arities", () => {
    const diagnostic = checkFact(program, fact("does_not_exist", v("Doc", "d"), v("Doc", "e")));
    expect(diagnostic?.code).toBe("P501");
    expect(diagnostic?.message).toBe("unknown predicate `does_not_exist/2`");
    expect(message(program, "has_role", v("User", "a"))).toBe("unknown predicate `has_role/1`");
    expect(message(program, "is_public", v("Doc", "d"), v("Boolean", "true"))).toBe(
      "unknown predicate `is_public/2`",
    );
  });
  it("accepts declared types and their subtypes", () => {
    expect(message(program, "has_tag", v("User", "a"), v("String", "x"))).toBeNull();
    expect(message(program, "has_tag", v("Admin", "a"), v("String", "x"))).toBeNull();
    expect(message(program, "member", v("Admin", "a"), v("Doc", "d"))).toBeNull();
  });
  it("P502: wrong argument types", () => {
    const diagnostic = checkFact(program, fact("has_tag", v("Team", "t"), v("String", "x")));
    expect(diagnostic?.code).toBe("P502");
    expect(diagnostic?.message).toBe("argument 1 of `has_tag` must be `User`, got `Team`");
    expect(message(program, "has_tag", v("User", "a"), v("Integer", "3"))).toBe(
      "argument 2 of `has_tag` must be `String`, got `Integer`",
    );
    expect(message(program, "member", v("Team", "t"), v("Doc", "d"))).toBe(
      "argument 1 of `member` must be `Actor`, got `Team`",
    );
  });
  it("several declares form a union", () => {
    expect(signature(program, "member/2")).toEqual([["Actor"], ["Doc", "Team"]]);
    expect(message(program, "member", v("User", "a"), v("Team", "t"))).toBeNull();
    expect(message(program, "member", v("User", "a"), v("User", "b"))).toBe(
      "argument 2 of `member` must be `Doc` or `Team`, got `User`",
    );
  });
  it("P503: empty type or id", () => {
    expect(checkFact(program, fact("has_role", v("", "a"), v("String", "x")))?.code).toBe("P503");
    expect(message(program, "has_role", v("User", ""), v("String", "x"))).toBe(
      "fact arguments need a non-empty type and id",
    );
  });
  it("P504: at most 384 bytes of UTF-8", () => {
    const ok = "é".repeat(192);
    const long = `${ok}x`;
    expect(message(program, "has_role", v("User", ok), v("String", "x"))).toBeNull();
    const diagnostic = checkFact(program, fact("has_role", v("User", long), v("String", "x")));
    expect(diagnostic?.code).toBe("P504");
    expect(diagnostic?.message).toBe("fact argument exceeds 384 bytes");
  });
  it("P505: Integer ids are 64-bit integers", () => {
    const diagnostic = checkFact(program, fact("has_role", v("Integer", "abc"), v("String", "x")));
    expect(diagnostic?.code).toBe("P505");
    expect(diagnostic?.message).toBe("`Integer` id `abc` is not a 64-bit integer");
    expect(checkFactValue(v("Integer", "9223372036854775808"))?.code).toBe("P505");
    expect(checkFactValue(v("Integer", "-9223372036854775808"))).toBeNull();
    expect(checkFactValue(v("Integer", "1.5"))?.code).toBe("P505");
  });
  it("P506: Boolean ids are true or false", () => {
    expect(checkFactValue(v("Boolean", "yes"))?.code).toBe("P506");
    expect(checkFactValue(v("Boolean", "false"))).toBeNull();
  });
  it("no values of abstract types", () => {
    expect(checkFactValue(v("Actor", "a"))?.code).toBe("P112");
  });
});

describe("canonical values", () => {
  it("Integer ids lose leading zeros and plus signs", () => {
    expect(canonicalValue(v("Integer", "007"))).toEqual(v("Integer", "7"));
    expect(canonicalValue(v("Integer", "+5"))).toEqual(v("Integer", "5"));
    expect(canonicalValue(v("Integer", "-0"))).toEqual(v("Integer", "0"));
    expect(canonicalValue(v("String", "007"))).toEqual(v("String", "007"));
    expect(canonicalFact(fact("f", v("Integer", "010"), v("User", "a")))).toEqual(
      fact("f", v("Integer", "10"), v("User", "a")),
    );
  });
  it("keeps already canonical facts as they are", () => {
    const same = fact("f", v("Integer", "10"));
    expect(canonicalFact(same)).toBe(same);
  });
  it("property: any padded form of an integer canonicalizes to its decimal form", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: INTEGER_MIN, max: INTEGER_MAX }),
        fc.nat(5),
        fc.boolean(),
        (n, zeros, plus) => {
          const digits = (n < 0n ? -n : n).toString();
          const sign = n < 0n ? "-" : plus ? "+" : "";
          const id = `${sign}${"0".repeat(zeros)}${digits}`;
          const canonical = canonicalValue(v("Integer", id));
          expect(canonical.id).toBe(n.toString());
          expect(canonicalValue(canonical)).toBe(canonical);
        },
      ),
    );
  });
});

describe("termValue", () => {
  const terms = () => {
    const { ast } = parsePolicy({
      name: "t.polar",
      text: `f("ada", 7, -3, true, User{"ada"}, Integer{5}, String{"s"}, Boolean{false}, x, @current_unix_time);`,
    });
    const item = ast.items[0]!;
    if (item.kind !== "rule") throw new Error("expected a rule");
    return item.head.params;
  };
  it("converts literals to runtime values", () => {
    const values = terms().map((param) => (param.kind === "typed" ? null : termValue(param)));
    expect(values).toEqual([
      v("String", "ada"),
      v("Integer", "7"),
      v("Integer", "-3"),
      v("Boolean", "true"),
      v("User", "ada"),
      v("Integer", "5"),
      v("String", "s"),
      v("Boolean", "false"),
      null,
      null,
    ]);
  });
});

describe("fact signature inference (§9.4)", () => {
  it("from head specializers and literals", () => {
    const program = checkOk(`
      actor User {}
      resource Doc {}
      f(u: User, "x", 3, true, Doc{"d"}, _, _: Doc, @current_unix_time) if g(u);
    `);
    expect(signature(program, "f/8")).toEqual([
      ["User"],
      ["String"],
      ["Integer"],
      ["Boolean"],
      ["Doc"],
      null,
      ["Doc"],
      ["Integer"],
    ]);
  });
  it("from typed parameters flowing into calls", () => {
    const program = checkOk(`
      actor User {}
      resource Doc {}
      allow(u: User, "read", d: Doc) if owner(u, d);
    `);
    expect(signature(program, "owner/2")).toEqual([["User"], ["Doc"]]);
    expect(message(program, "owner", v("User", "a"), v("User", "b"))).toBe(
      "argument 2 of `owner` must be `Doc`, got `User`",
    );
  });
  it("from matches, comparisons, unification and in", () => {
    const program = checkOk(`
      resource Doc {}
      f(x, n, t, s, k) if tag(x, n, t, s, k) and x matches Doc and n >= 3 and
        t < @current_unix_time and s = "a" and k in [1, "b"];
    `);
    expect(signature(program, "tag/5")).toEqual([
      ["Doc"],
      ["Integer"],
      ["Integer"],
      ["String"],
      ["Integer", "String"],
    ]);
    expect(signature(program, "f/5")).toEqual(signature(program, "tag/5"));
  });
  it("from the generated actor and resource parameters of shorthand rules", () => {
    const program = checkOk(`
      actor User {}
      resource Doc { permissions = ["read"]; "read" if is_public(resource) and member(actor) and not banned(actor); }
      resource Team { permissions = ["read"]; "read" if is_public(resource); }
    `);
    expect(signature(program, "is_public/1")).toEqual([["Doc", "Team"]]);
    expect(signature(program, "banned/1")).toEqual([["Actor"]]);
    expect(message(program, "banned", v("User", "u"))).toBeNull();
    expect(message(program, "banned", v("Doc", "d"))).toBe(
      "argument 1 of `banned` must be `Actor`, got `Doc`",
    );
  });
  it("to a fixpoint through variables that flow into calls", () => {
    const program = checkOk(`
      actor User {}
      d(y) if e(y);
      c(x) if d(x);
      a(u: User) if b(u);
      b(x) if c(x);
    `);
    for (const key of ["b/1", "c/1", "d/1", "e/1"]) {
      expect(signature(program, key), key).toEqual([["User"]]);
    }
  });
  it("unified variables share their types", () => {
    const program = checkOk(`actor User {}\nf(u: User) if v = u and g(v);`);
    expect(signature(program, "g/1")).toEqual([["User"]]);
  });
  it("a position nothing says anything about accepts any value", () => {
    const program = checkOk(`f(x) if g(x, "a");`);
    expect(signature(program, "g/2")).toEqual([null, ["String"]]);
    expect(signature(program, "f/1")).toEqual([null]);
    expect(message(program, "g", v("Widget", "w"), v("String", "a"))).toBeNull();
  });
  it("restrictions win over flows", () => {
    const program = checkOk(`
      actor User {}
      resource Team {}
      f(u: User) if g(u);
      h(t: Team) if g(t);
      k(x: User) if m(x);
      k2(x) if g(x) and m(x);
    `);
    expect(signature(program, "g/1")).toEqual([["Team", "User"]]);
    expect(signature(program, "m/1")).toEqual([["Team", "User"]]);
    expect(signature(program, "k/1")).toEqual([["User"]]);
  });
  it("declare adds to what is inferred", () => {
    const program = checkOk(
      `actor User {}\nresource Team {}\ndeclare g(Team);\nf(u: User) if g(u);`,
    );
    expect(signature(program, "g/1")).toEqual([["Team", "User"]]);
  });
  it("predicates only called in tests, queries or declared by `type` get signatures", () => {
    const program = checkOk(`
      actor User {}
      type t(x: User, y: String);
      ?= q(User{"a"});
      test "x" { assert a(User{"b"}, n: Integer); }
    `);
    expect(signature(program, "t/2")).toEqual([["User"], ["String"]]);
    expect(signature(program, "q/1")).toEqual([["User"]]);
    expect(signature(program, "a/2")).toEqual([["User"], ["Integer"]]);
  });
  it("the open predicates are always present and accept anything", () => {
    const program = checkOk(`f(1);`);
    for (const key of [
      "has_role/2",
      "has_role/3",
      "has_permission/2",
      "has_permission/3",
      "has_relation/3",
    ]) {
      const args = signature(program, key);
      expect(
        args?.every((a) => a === null),
        key,
      ).toBe(true);
    }
  });
  it("inference does not depend on call order", () => {
    const program = checkOk(`actor User {}\nb(x) if c(x);\na(u: User) if b(u);`);
    expect(signature(program, "c/1")).toEqual([["User"]]);
  });
});
