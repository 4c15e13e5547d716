import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkPolicy,
  checkPolicyOrThrow,
  checkPolicyText,
  PolicyError,
} from "../src/check/check.js";
import { isSubtype } from "../src/check/program.js";
import {
  allClauses,
  check,
  checkOk,
  describeDiagnostics,
  expectError,
  underlined,
} from "./check-support.js";

const examplesDir = join(import.meta.dirname, "..", "examples");

describe("examples", () => {
  const reference = readdirSync(join(examplesDir, "reference")).filter((f) => f.endsWith(".polar"));
  it("has the six §12 policies", () => {
    expect(reference.sort()).toEqual([
      "12-1-rbac.polar",
      "12-2-nested-relations.polar",
      "12-3-recursive-folders.polar",
      "12-4-global-roles.polar",
      "12-5-attributes-not.polar",
      "12-6-custom-allow.polar",
    ]);
  });
  for (const file of [...reference.map((f) => join("reference", f)), "gitclub.polar"]) {
    it(`${file} checks without any diagnostic`, () => {
      const text = readFileSync(join(examplesDir, file), "utf8");
      const result = checkPolicy([{ name: file, text }]);
      expect(result.diagnostics, describeDiagnostics(result)).toEqual([]);
      expect(result.ok).toBe(true);
    });
  }
  it("gitclub: tests, fixtures, custom allow and inherited declarations", () => {
    const text = readFileSync(join(examplesDir, "gitclub.polar"), "utf8");
    const program = checkOk([{ name: "gitclub.polar", text }]);
    expect(program.tests.map((t) => t.name)).toContain("folder roles flow down nested folders");
    expect(program.rules.get("allow/3")?.every((c) => c.origin === "rule")).toBe(true);
    expect(program.resources.get("Issue")?.relations).toEqual({
      assignee: "User",
      creator: "User",
      repository: "Repository",
    });
    expect(program.resources.get("File")?.permissions).toEqual(["delete", "edit", "read"]);
    expect(isSubtype(program, "Bot", "User")).toBe(true);
    expect(isSubtype(program, "Bot", "Actor")).toBe(true);
    expect(program.factSignatures.get("is_public/2")?.args).toEqual([["Repository"], ["Boolean"]]);
    expect(program.factSignatures.get("has_invitation/3")?.args).toEqual([
      ["User"],
      ["Repository"],
      ["Integer"],
    ]);
  });
});

describe("entry points", () => {
  it("checkPolicyText returns the program and no diagnostics for a valid policy", () => {
    const result = checkPolicyText(`actor User {}\nresource Doc { permissions = ["read"]; }`);
    expect(result.ok).toBe(true);
    expect(result.diagnostics).toEqual([]);
  });
  it("parse errors come back as diagnostics", () => {
    const result = checkPolicyText("resource Doc {", "broken.polar");
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toMatch(/^P00/);
  });
  it("checkPolicyOrThrow throws a PolicyError naming the first error and the count", () => {
    const text = `actor User {}\nresource Doc {\n  permissions = ["read"];\n  "read" if "viewer";\n  "write" if "read";\n}`;
    let thrown: unknown;
    try {
      checkPolicyOrThrow([{ name: "doc.polar", text }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    expect(thrown).toBeInstanceOf(Error);
    const policyError = thrown as PolicyError;
    expect(policyError.message).toBe(
      "doc.polar:4:13: undeclared term `viewer` in `Doc`; declare it as a role, permission or relation (2 errors)",
    );
    expect(policyError.diagnostics.map((d) => d.code)).toEqual(["P201", "P201"]);
  });
  it("checkPolicyOrThrow returns the program when there is no error", () => {
    const program = checkPolicyOrThrow([{ name: "a.polar", text: "actor User {}" }]);
    expect(program.types.get("User")?.kind).toBe("actor");
  });
  it("diagnostics are sorted by file and position", () => {
    const result = checkPolicy([
      { name: "a.polar", text: `resource A { permissions = ["x"]; "x" if "b"; "x" if "a"; }` },
      { name: "b.polar", text: `resource B { permissions = ["x"]; "x" if "c"; }` },
    ]);
    expect(result.diagnostics.map((d) => `${d.span?.file}:${d.message.split("`")[1]}`)).toEqual([
      "a.polar:b",
      "a.polar:a",
      "b.polar:c",
    ]);
  });
});

describe("types (§3)", () => {
  it("builds primitives, abstract types, actors and resources with reflexive ancestors", () => {
    const program = checkOk(`actor User {}\nresource Doc {}`);
    const ancestors = (name: string) => program.types.get(name)?.ancestors;
    expect(ancestors("String")).toEqual(["String"]);
    expect(ancestors("Actor")).toEqual(["Actor", "Resource"]);
    expect(ancestors("Resource")).toEqual(["Resource"]);
    expect(ancestors("User")).toEqual(["User", "Actor", "Resource"]);
    expect(ancestors("Doc")).toEqual(["Doc", "Resource"]);
    expect(program.types.get("User")?.supertypes).toEqual(["Actor"]);
    expect(isSubtype(program, "Doc", "Actor")).toBe(false);
    expect(isSubtype(program, "Integer", "Resource")).toBe(false);
  });
  it("`extends` is transitive and order-independent", () => {
    const program = checkOk(`resource C extends B {}\nresource B extends A {}\nresource A {}`);
    expect(program.types.get("C")?.ancestors).toEqual(["C", "B", "A", "Resource"]);
    expect(program.types.get("C")?.supertypes).toEqual(["B", "Resource"]);
  });
  it("P109: extends an undeclared type", () => {
    expectError(
      `resource Ticket extends Item {}`,
      "P109",
      "Item",
      "`Ticket` extends undeclared type `Item`",
    );
  });
  it("P109: extends a primitive type", () => {
    expectError(`resource Ticket extends String {}`, "P109", "String");
  });
  it("P110: cyclic extends", () => {
    expectError(
      `resource A extends B {}\nresource B extends A {}`,
      "P110",
      "B",
      "cyclic `extends`: `A` -> `B` -> `A`",
    );
    expectError(`resource A extends A {}`, "P110", "A", "cyclic `extends`: `A` -> `A`");
  });
  it("P110 names the shortest cycle from the first declared type", () => {
    expectError(
      `resource A extends B {}\nresource B extends C {}\nresource C extends A {}`,
      "P110",
      "B",
      "cyclic `extends`: `A` -> `B` -> `C` -> `A`",
    );
  });
  it("W001: an undeclared type is an entity type below Resource, with one warning", () => {
    const result = check(
      `actor User {}\nallow(u: User, "read", t: Team) if member(u, t) and t matches Team;`,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const warnings = result.diagnostics.filter((d) => d.code === "W001");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.severity).toBe("warning");
    expect(warnings[0]?.message).toBe("undeclared type `Team`; treating it as an entity type");
    expect(underlined(result, warnings[0]!)).toBe("Team");
    expect(result.program.types.get("Team")).toMatchObject({
      kind: "undeclared",
      ancestors: ["Team", "Resource"],
    });
    expect(result.program.warnings).toEqual(warnings);
  });
  it("W001 for types in object literals, matches and declare", () => {
    for (const policy of [
      `f(x) if x = Team{"a"};`,
      `f(x) if x matches Team;`,
      `declare f(Team);`,
      `test "t" { assert f(Team{"a"}); }\nf(_);`,
    ]) {
      const result = check(policy);
      expect(result.ok, describeDiagnostics(result)).toBe(true);
      expect(result.diagnostics.map((d) => d.code)).toEqual(["W001"]);
    }
  });
  it("W002: matches! is treated as matches", () => {
    const result = check(`actor User {}\nf(x) if g(x) and x matches! User;`);
    expect(result.ok).toBe(true);
    const found = result.diagnostics.filter((d) => d.code === "W002");
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toBe("`matches!` is treated as `matches`");
    expect(underlined(result, found[0]!)).toBe("x matches! User");
  });
  it("P112: no values of abstract types", () => {
    expectError(
      `f(x) if x = Actor{"ada"};`,
      "P112",
      `Actor{"ada"}`,
      "cannot create a value of abstract type `Actor`",
    );
    expectError(`f(Resource{"r"});`, "P112", `Resource{"r"}`);
  });
  it("P113: entity ids are strings", () => {
    expectError(
      `actor User {}\nf(x) if x = User{1};`,
      "P113",
      "User{1}",
      'entity ids are strings: write `User{"1"}`',
    );
  });
  it("P113: entity ids are non-empty", () => {
    expectError(`actor User {}\nf(User{""});`, "P113", `User{""}`);
  });
  it("P113: primitive object literals need their own kind of literal", () => {
    expectError(
      `f(x) if x = String{3};`,
      "P113",
      "String{3}",
      "a `String` value needs a string literal, got `3`",
    );
    expectError(`f(Integer{"3"});`, "P113", `Integer{"3"}`);
    expectError(`f(Boolean{1});`, "P113", "Boolean{1}");
  });
  it("primitive object literals of the right kind are fine", () => {
    checkOk(`f(String{"a"}, Integer{3}, Boolean{true});`);
  });
});

describe("blocks (§6)", () => {
  it("P101: unknown declaration key", () => {
    expectError(
      `resource Ticket { role = ["a"]; }`,
      "P101",
      "role",
      "unknown declaration `role` in `Ticket`; expected `roles`, `permissions` or `relations`",
    );
  });
  it("P102: roles and permissions must be lists of strings", () => {
    expectError(
      `resource Ticket { roles = { viewer: User }; }`,
      "P102",
      "{ viewer: User }",
      "`roles` in `Ticket` must be a list of strings",
    );
    expectError(`resource Ticket { permissions = ["a", b]; }`, "P102", "b");
  });
  it("P102: relations must be a dictionary", () => {
    expectError(
      `resource Ticket { relations = ["project"]; }`,
      "P102",
      `["project"]`,
      "`relations` in `Ticket` must be a dictionary like `{ project: Project }`",
    );
  });
  it("P103: relation without a type", () => {
    expectError(
      `resource Ticket { relations = { project }; }`,
      "P103",
      "project",
      "relation `project` in `Ticket` has no type",
    );
  });
  it("P104: a key declared twice in a block", () => {
    expectError(
      `resource Ticket { roles = ["a"]; roles = ["b"]; }`,
      "P104",
      "roles",
      "`roles` is declared more than once in `Ticket`",
    );
    const result = check(`resource Ticket { roles = ["a"]; roles = ["b"]; }`);
    const found = result.diagnostics.find((d) => d.code === "P104")!;
    expect(found.span?.start).toBe(`resource Ticket { roles = ["a"]; `.length);
  });
  it("P105: a name declared twice across roles, permissions and relations", () => {
    expectError(
      `resource Ticket { roles = ["reader"]; permissions = ["reader"]; }`,
      "P105",
      `"reader"`,
      "`reader` is declared more than once in `Ticket`",
    );
    expectError(
      `actor User {}\nresource Ticket { roles = ["owner"]; relations = { owner: User }; }`,
      "P105",
      "owner",
    );
    expectError(`resource Ticket { roles = ["a", "a"]; }`, "P105", `"a"`);
  });
  it("P105: re-declaring an inherited name", () => {
    expectError(
      `resource Item { roles = ["viewer"]; }\nresource Doc extends Item { permissions = ["viewer"]; }`,
      "P105",
      `"viewer"`,
      "`viewer` is declared more than once in `Doc`",
    );
  });
  it("P106: relation to an undeclared type", () => {
    expectError(
      `resource Ticket { relations = { project: Projekt }; }`,
      "P106",
      "Projekt",
      "relation `project` in `Ticket` refers to undeclared type `Projekt`",
    );
  });
  it("P106: relation to a primitive type", () => {
    expectError(`resource Ticket { relations = { name: String }; }`, "P106", "String");
  });
  it("P107: only one global block", () => {
    expectError(
      `global { roles = ["a"]; }\nglobal { roles = ["b"]; }`,
      "P107",
      "global",
      "only one `global` block is allowed",
    );
    const result = check(`global { roles = ["a"]; }\nglobal { roles = ["b"]; }`);
    const found = result.diagnostics.find((d) => d.code === "P107")!;
    expect(found.span?.start).toBe(`global { roles = ["a"]; }\n`.length);
  });
  it("identical global blocks merge", () => {
    const program = checkOk(`global { roles = ["a"]; }\nglobal { roles = ["a"]; }`);
    expect(program.resources.get("global")?.roles).toEqual(["a"]);
  });
  it("P108: global declares only roles and permissions", () => {
    expectError(
      `actor User {}\nglobal { relations = { owner: User }; }`,
      "P108",
      "relations",
      "`global` may declare only `roles` and `permissions`",
    );
  });
  it("P111: a type declared twice differently", () => {
    expectError(
      `resource Ticket { roles = ["a"]; }\nresource Ticket { roles = ["b"]; }`,
      "P111",
      "Ticket",
      "`Ticket` is declared twice with different declarations",
    );
    expectError(
      `actor User { roles = ["a"]; }\nresource User {}\nactor User { roles = ["b"]; }`,
      "P111",
      "User",
      "`User` is declared twice with different declarations",
    );
  });
  it("a type with an actor and a resource block is both; the blocks combine", () => {
    const program = checkOk(`resource Team { roles = ["member"]; }
actor User { roles = ["manager"]; }
resource User {
  roles = ["friend"];
  permissions = ["view", "edit"];
  relations = { team: Team };
  "friend" if "manager";
  "view" if "friend";
  "view" if "member" on "team";
}
resource User {
  roles = ["friend"];
  permissions = ["view", "edit"];
  relations = { team: Team };
  "friend" if "manager";
  "view" if "friend";
  "view" if "member" on "team";
}`);
    expect(program.types.get("User")?.kind).toBe("actor");
    expect(isSubtype(program, "User", "Actor")).toBe(true);
    expect(isSubtype(program, "User", "Resource")).toBe(true);
    expect(program.resources.get("User")).toEqual({
      name: "User",
      kind: "actor",
      roles: ["friend", "manager"],
      permissions: ["edit", "view"],
      relations: { team: "Team" },
    });
    expect(program.rules.get("has_role/3")?.length).toBe(1);
    expect(program.rules.get("has_permission/3")?.length).toBe(2);
    // Either order, in separate files, gives the same program.
    const swapped = checkOk([
      { name: "b.polar", text: `resource User { roles = ["friend"]; "friend" if "manager"; }` },
      { name: "a.polar", text: `actor User { roles = ["manager"]; }` },
    ]);
    expect(swapped.resources.get("User")?.roles).toEqual(["friend", "manager"]);
    expect(swapped.types.get("User")?.kind).toBe("actor");
  });
  it("P105: a name declared in both the actor and the resource block of a type", () => {
    expectError(
      `actor User { roles = ["admin"]; }\nresource User { permissions = ["admin"]; }`,
      "P105",
      '"admin"',
      "`admin` is declared more than once in `User`",
    );
    expectError(
      `actor User { roles = ["admin"]; }\nresource User { roles = ["admin"]; }`,
      "P105",
      '"admin"',
    );
  });
  it("P111: two different resource blocks for a type that also has an actor block", () => {
    expectError(
      `actor User {}\nresource User { roles = ["a"]; }\nresource User { roles = ["b"]; }`,
      "P111",
      "User",
    );
  });
  it("P201: a shorthand rule naming a term of neither block", () => {
    expectError(
      `actor User { roles = ["manager"]; }\nresource User { permissions = ["view"]; "view" if "friend"; }`,
      "P201",
      '"friend"',
    );
  });
  it("P111: a built-in type cannot be declared", () => {
    expectError(
      `resource String {}`,
      "P111",
      "String",
      "`String` is a built-in type and cannot be declared",
    );
    expectError(`actor Actor {}`, "P111", "Actor");
  });
  it("identical blocks merge, also across files and with an optional `;`", () => {
    const block = `resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }`;
    const program = checkOk([
      { name: "a.polar", text: `actor User {}\n${block}` },
      { name: "b.polar", text: `${block};` },
    ]);
    expect(program.rules.get("has_permission/3")).toHaveLength(1);
  });
  it("resource metadata: one entry per block plus global, sorted, with inherited names", () => {
    const program = checkOk(`
      actor User { roles = ["self"]; }
      resource Base { roles = ["z", "a"]; relations = { owner: User }; }
      resource Doc extends Base { permissions = ["write", "read"]; relations = { parent: Doc }; }
    `);
    expect([...program.resources.keys()].sort()).toEqual(["Base", "Doc", "User", "global"]);
    expect(program.resources.get("global")).toEqual({
      name: "global",
      kind: "global",
      roles: [],
      permissions: [],
      relations: {},
    });
    expect(program.resources.get("Doc")).toEqual({
      name: "Doc",
      kind: "resource",
      roles: ["a", "z"],
      permissions: ["read", "write"],
      relations: { owner: "User", parent: "Doc" },
    });
    expect(program.resources.get("User")?.kind).toBe("actor");
  });
  it("inheritance through several levels and from several supertypes", () => {
    const program = checkOk(`
      resource A { roles = ["ra"]; }
      resource B { permissions = ["pb"]; }
      resource C extends A, B { roles = ["rc"]; "pb" if "ra"; }
      resource D extends C { "rc" if "ra"; }
    `);
    expect(program.resources.get("D")?.roles).toEqual(["ra", "rc"]);
    expect(program.resources.get("D")?.permissions).toEqual(["pb"]);
  });
});

describe("several files", () => {
  it("merge into one policy; declaration order never matters", () => {
    const program = checkOk([
      { name: "rules.polar", text: `allow(u: User, "read", d: Doc) if has_role(u, "viewer", d);` },
      { name: "types.polar", text: `actor User {}\nresource Doc { roles = ["viewer"]; }` },
    ]);
    expect(program.types.get("Doc")?.kind).toBe("resource");
    expect(program.sources.map((s) => s.name)).toEqual(["rules.polar", "types.polar"]);
  });
  it("report diagnostics in the right file", () => {
    const result = checkPolicy([
      { name: "a.polar", text: "actor User {}" },
      { name: "b.polar", text: `resource Doc { permissions = ["read"]; "read" if "viewer"; }` },
    ]);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.span?.file).toBe("b.polar");
    expect(underlined(result, result.diagnostics[0]!)).toBe(`"viewer"`);
  });
  it("identical rules merge, also across files", () => {
    const rule = `is_admin(u: User) if has_role(u, "admin");`;
    const program = checkOk([
      { name: "a.polar", text: `actor User {}\n${rule}\n${rule}` },
      {
        name: "b.polar",
        text: `# same rule, other layout\nis_admin(u:User) if\n  has_role(u, "admin");`,
      },
    ]);
    expect(program.rules.get("is_admin/1")).toHaveLength(1);
  });
  it("different rules of one predicate stay in source order", () => {
    const program = checkOk(`f(1);\nf(2) if g(2);\nf(3);`);
    const values = program.rules.get("f/1")!.map((c) => {
      const param = c.params[0]!;
      return param.kind === "integer" ? param.value : null;
    });
    expect(values).toEqual([1n, 2n, 3n]);
  });
});

describe("default allow (§8)", () => {
  it("is injected when the policy has no allow/3 clause", () => {
    const program = checkOk(`actor User {}\nresource Doc { permissions = ["read"]; }`);
    const clauses = program.rules.get("allow/3")!;
    expect(clauses).toHaveLength(1);
    expect(clauses[0]?.origin).toBe("default_allow");
    expect(clauses[0]?.params.map((p) => (p.kind === "variable" ? p.name : null))).toEqual([
      "actor",
      "action",
      "resource",
    ]);
    expect(clauses[0]?.body).toMatchObject({
      kind: "call",
      name: { name: "has_permission" },
      args: [{ name: "actor" }, { name: "action" }, { name: "resource" }],
    });
  });
  it("is not injected when a rule defines allow/3", () => {
    const program = checkOk(`actor User {}\nallow(u: User, "read", _) if is_admin(u);`);
    expect(program.rules.get("allow/3")?.map((c) => c.origin)).toEqual(["rule"]);
  });
  it("is not injected when a bodiless allow/3 fact exists", () => {
    const program = checkOk(`actor User {}\nresource Doc {}\nallow(_: User, "read", _: Doc);`);
    expect(program.rules.get("allow/3")?.map((c) => c.origin)).toEqual(["rule"]);
  });
  it("allow with another arity does not count", () => {
    const program = checkOk(`allow(a, b) if f(a, b);`);
    expect(program.rules.get("allow/3")?.[0]?.origin).toBe("default_allow");
    expect(program.rules.get("allow/2")).toHaveLength(1);
  });
});

describe("negation (§9.2)", () => {
  it("P301: a cycle through not", () => {
    expectError(
      `can_view(u, d) if has_doc(u, d) and not is_hidden(u, d);
       is_hidden(u, d) if has_doc(u, d) and not can_view(u, d);`,
      "P301",
      "not is_hidden(u, d)",
      "negation cycle: `can_view` -> `is_hidden` -> `can_view`",
    );
  });
  it("P301: a predicate negating itself", () => {
    expectError(`p(x) if q(x) and not p(x);`, "P301", "not p(x)", "negation cycle: `p` -> `p`");
  });
  it("P301 through shorthand rules", () => {
    expectError(
      `actor User {}\nresource Doc { roles = ["a", "b"]; "a" if "b" and not "a"; }`,
      "P301",
      `not "a"`,
      "negation cycle: `has_role` -> `has_role`",
    );
  });
  it("stratified negation and positive recursion are fine", () => {
    checkOk(`
      reach(a, b) if edge(a, b);
      reach(a, c) if edge(a, b) and reach(b, c);
      unreachable(a, b) if node(a) and node(b) and not reach(a, b);
      lonely(a) if node(a) and not unreachable(a, a);
    `);
  });
  it("P302: a variable only under not", () => {
    expectError(
      `p(x) if not q(x);`,
      "P302",
      "x",
      "variable `x` in a rule for `p` appears only under `not`; bind it in a positive call or rename it `_x`",
    );
    const result = check(`p(x) if not q(x);`);
    expect(result.diagnostics[0]?.span?.start).toBe("p(x) if not q(".length);
  });
  it("P302: head parameters and typed parameters do not bind", () => {
    expectError(`actor User {}\np(u: User) if not banned(u);`, "P302", "u");
  });
  it("P302: a comparison under not needs bound variables", () => {
    expectError(`p(x) if q(x) and not y > 3;`, "P302", "y");
    expectError(`p(x) if q(x) and not (r(x) and x != y);`, "P302", "y");
  });
  it("P302: one binding branch of an or is not enough", () => {
    expectError(`p(x, y) if (q(x) or r(y)) and not s(x);`, "P302", "x");
  });
  it("safe uses of not", () => {
    checkOk(`
      a(x) if q(x) and not r(x);
      b(x) if not r(x) and q(x);
      c(x) if q(x) and not (s(x, y) and t(y));
      d(x) if q(x) and not (s(x, y) or t(x));
      e(x) if x = 3 and not r(x);
      f(x) if x in [1, 2] and not r(x);
      g(x) if q(x) and not r(_) and not r(_y);
      h(x) if q(y) and x = y and not r(x);
      i(x) if (q(x) or r(x)) and not s(x);
      j(x) if q(x) and not not r(x);
    `);
  });
  it("P302 is reported once per variable and clause", () => {
    const result = check(`p(x) if not q(x) and not r(x);`);
    expect(result.diagnostics.filter((d) => d.code === "P302")).toHaveLength(1);
  });
});

describe("type declarations (§11)", () => {
  it("P305: declarations disagree on arity", () => {
    expectError(
      `actor User {}\ntype f(x: User);\ntype f(x: User, y: String);`,
      "P305",
      "f",
      "`type` declarations for `f` disagree on arity: 1 and 2",
    );
    const result = check(`actor User {}\ntype f(x: User);\ntype f(x: User, y: String);`);
    const found = result.diagnostics.find((d) => d.code === "P305")!;
    expect(found.span?.start).toBe("actor User {}\ntype f(x: User);\ntype ".length);
  });
  it("P306: a rule head with another arity", () => {
    expectError(
      `actor User {}\ntype f(x: User);\nf(a, b) if g(a, b);`,
      "P306",
      "f",
      "`f` is used with 2 arguments but its `type` declarations have 1",
    );
  });
  it("P306: a call with another arity", () => {
    const message = expectError(`type f(x: String);\ng(x) if f(x, x);`, "P306", "f");
    expect(message).toBe("`f` is used with 2 arguments but its `type` declarations have 1");
  });
  it("matching declarations and uses are fine", () => {
    checkOk(
      `actor User {}\ntype f(x: User);\ntype f(x: User);\nf(u: User) if g(u);\nh(u) if f(u);`,
    );
  });
});

describe("program shape", () => {
  it("clauses keep their origin and span", () => {
    const text = `actor User {}\nresource Doc { roles = ["v"]; permissions = ["r"]; "r" if "v"; }\nf(1);`;
    const result = check(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const origins = allClauses(result.program).map((c) => [c.predicate, c.origin]);
    expect(origins).toEqual([
      ["has_permission/3", "shorthand"],
      ["f/1", "rule"],
      ["allow/3", "default_allow"],
    ]);
    const f = result.program.rules.get("f/1")![0]!;
    expect(text.slice(f.span.start, f.span.end)).toBe("f(1);");
  });
  it("inline queries are kept", () => {
    const program = checkOk(`f(1);\n?= f(1);`);
    expect(program.inlineQueries).toHaveLength(1);
  });
});
