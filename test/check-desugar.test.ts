import { describe, expect, it } from "vitest";
import { allClauses, check, checkOk, expectError, normalizeClause } from "./check-support.js";

const base = (ticket: string, global = "") => `
actor User {}
global {
  roles = ["g_role"];
  permissions = ["g_perm"];
  ${global}
}
resource Workspace { roles = ["admin"]; }
resource Project {
  roles = ["member"];
  permissions = ["view", "edit"];
  relations = { owner: User, workspace: Workspace };
}
resource Ticket {
  roles = ["viewer"];
  permissions = ["read", "comment", "close"];
  relations = { project: Project, reporter: User };
  ${ticket}
}
`;

/** The one clause desugared from the shorthand rule `shorthand` inside `Ticket`. */
function desugared(shorthand: string, where: "ticket" | "global" = "ticket") {
  const program = checkOk(where === "ticket" ? base(shorthand) : base("", shorthand));
  const clauses = allClauses(program).filter((c) => c.origin === "shorthand");
  expect(clauses).toHaveLength(1);
  return clauses[0]!;
}

/** The one hand-written rule `rule`, checked next to the same blocks. */
function longhand(rule: string) {
  const program = checkOk(`${base("")}\n${rule}`);
  const clauses = allClauses(program).filter((c) => c.origin === "rule");
  expect(clauses).toHaveLength(1);
  return clauses[0]!;
}

function expectSame(shorthand: string, rule: string, where: "ticket" | "global" = "ticket") {
  const clause = desugared(shorthand, where);
  expect(clause.origin).toBe("shorthand");
  expect(normalizeClause(clause)).toEqual(normalizeClause(longhand(rule)));
}

describe("shorthand heads (§7.1)", () => {
  it("a permission of the block", () => {
    expectSame(
      `"read" if "viewer";`,
      `has_permission(actor: Actor, "read", resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
  });
  it("a role of the block", () => {
    expectSame(
      `"viewer" if "comment";`,
      `has_role(actor: Actor, "viewer", resource: Ticket) if has_permission(actor, "comment", resource);`,
    );
  });
  it("a variable named permission", () => {
    expectSame(
      `permission if "viewer";`,
      `has_permission(actor: Actor, permission, resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
  });
  it("any other variable is a role", () => {
    expectSame(
      `role if "viewer";`,
      `has_role(actor: Actor, role, resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
    expectSame(
      `anything if "viewer";`,
      `has_role(actor: Actor, anything, resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
  });
  it("a relation is an error (P202)", () => {
    expectError(
      base(`"project" if "viewer";`),
      "P202",
      `"project"`,
      "relation `project` cannot be the head of a shorthand rule in `Ticket`",
    );
  });
  it("an undeclared string is an error (P201)", () => {
    expectError(
      base(`"edit" if "viewer";`),
      "P201",
      `"edit"`,
      "undeclared term `edit` in `Ticket`; declare it as a role, permission or relation",
    );
  });
  it("inside global: arity 2", () => {
    expectSame(
      `"g_perm" if "g_role";`,
      `has_permission(actor: Actor, "g_perm") if has_role(actor, "g_role");`,
      "global",
    );
    expectSame(
      `"g_role" if is_staff(actor);`,
      `has_role(actor: Actor, "g_role") if is_staff(actor);`,
      "global",
    );
    expectSame(
      `permission if "g_role";`,
      `has_permission(actor: Actor, permission) if has_role(actor, "g_role");`,
      "global",
    );
  });
  it("an undeclared string inside global is an error (P201)", () => {
    expectError(
      base("", `"g_other" if "g_role";`),
      "P201",
      `"g_other"`,
      "undeclared term `g_other` in `global`; declare it as a role or permission",
    );
  });
});

describe("shorthand bodies (§7.2)", () => {
  it("a permission of the block", () => {
    expectSame(
      `"comment" if "read";`,
      `has_permission(actor: Actor, "comment", resource: Ticket) if has_permission(actor, "read", resource);`,
    );
  });
  it("a role of the block", () => {
    expectSame(
      `"comment" if "viewer";`,
      `has_permission(actor: Actor, "comment", resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
  });
  it("a relation used as a role", () => {
    expectSame(
      `"close" if "reporter";`,
      `has_permission(actor: Actor, "close", resource: Ticket) if has_relation(resource, "reporter", actor);`,
    );
  });
  it(`"x" on "rel" with a role of the related type`, () => {
    expectSame(
      `"viewer" if "member" on "project";`,
      `has_role(actor: Actor, "viewer", resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_role(actor, "member", o1);`,
    );
  });
  it(`"x" on "rel" with a permission of the related type`, () => {
    expectSame(
      `"read" if "view" on "project";`,
      `has_permission(actor: Actor, "read", resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_permission(actor, "view", o1);`,
    );
  });
  it(`"x" on "rel" with a relation of the related type`, () => {
    expectSame(
      `"viewer" if "owner" on "project";`,
      `has_role(actor: Actor, "viewer", resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_relation(o1, "owner", actor);`,
    );
  });
  it("role on and permission on a relation", () => {
    expectSame(
      `role if role on "project";`,
      `has_role(actor: Actor, role, resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_role(actor, role, o1);`,
    );
    expectSame(
      `permission if permission on "project";`,
      `has_permission(actor: Actor, permission, resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_permission(actor, permission, o1);`,
    );
  });
  it("bare role and permission variables", () => {
    expectSame(
      `"read" if role;`,
      `has_permission(actor: Actor, "read", resource: Ticket) if has_role(actor, role, resource);`,
    );
    expectSame(
      `"viewer" if permission;`,
      `has_role(actor: Actor, "viewer", resource: Ticket) if has_permission(actor, permission, resource);`,
    );
  });
  it(`"x" on resource is bare "x"`, () => {
    expectSame(
      `"read" if "viewer" on resource;`,
      `has_permission(actor: Actor, "read", resource: Ticket) if has_role(actor, "viewer", resource);`,
    );
  });
  it(`global "g" for a global role and a global permission`, () => {
    expectSame(
      `"read" if global "g_role";`,
      `has_permission(actor: Actor, "read", resource: Ticket) if has_role(actor, "g_role");`,
    );
    expectSame(
      `"read" if global "g_perm";`,
      `has_permission(actor: Actor, "read", resource: Ticket) if has_permission(actor, "g_perm");`,
    );
  });
  it("calls refer to the generated parameters", () => {
    expectSame(
      `"read" if is_public(resource, true) and owned_by(actor, resource);`,
      `has_permission(actor: Actor, "read", resource: Ticket) if
         is_public(resource, true) and owned_by(actor, resource);`,
    );
  });
  it("and, or, parentheses and not", () => {
    expectSame(
      `"read" if ("viewer" or "reporter") and not (is_banned(actor) or is_locked(resource));`,
      `has_permission(actor: Actor, "read", resource: Ticket) if
         (has_role(actor, "viewer", resource) or has_relation(resource, "reporter", actor)) and
         not (is_banned(actor) or is_locked(resource));`,
    );
  });
  it("the §7.2 example: `on` inside `or`", () => {
    expectSame(
      `"close" if "edit" on "project" or "reporter";`,
      `has_permission(actor: Actor, "close", resource: Ticket) if
         (o1 matches Project and has_relation(resource, "project", o1) and has_permission(actor, "edit", o1))
         or has_relation(resource, "reporter", actor);`,
    );
  });
  it("each `on` gets its own fresh variable", () => {
    expectSame(
      `"read" if "member" on "project" and "view" on "project";`,
      `has_permission(actor: Actor, "read", resource: Ticket) if
         o1 matches Project and has_relation(resource, "project", o1) and has_role(actor, "member", o1) and
         o2 matches Project and has_relation(resource, "project", o2) and has_permission(actor, "view", o2);`,
    );
  });
  it("the fresh variable cannot collide with a user variable named like it", () => {
    const clause = desugared(`"read" if "member" on "project" and has_tag(resource, o1);`);
    const text = JSON.stringify(normalizeClause(clause));
    // `o1` (renamed from the fresh variable) and the user's `o1` are distinct before renaming
    expect(JSON.stringify(clause.body)).toContain('"$on1"');
    expect(text).toContain('"o1"');
  });
  it("desugared nodes carry the span of the shorthand piece", () => {
    const result = check(base(`"read" if "member" on "project" or is_public(resource);`));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const clause = allClauses(result.program).find((c) => c.origin === "shorthand")!;
    const text = result.sources[0]!.text;
    const at = (span: { start: number; end: number }) => text.slice(span.start, span.end);
    expect(at(clause.span)).toBe(`"read" if "member" on "project" or is_public(resource);`);
    const body = clause.body!;
    expect(body.kind).toBe("or");
    if (body.kind !== "or") return;
    expect(at(body.operands[0]!.span)).toBe(`"member" on "project"`);
    expect(at(body.operands[1]!.span)).toBe("is_public(resource)");
    const head = clause.params[1]!;
    expect(at(head.span)).toBe(`"read"`);
  });
});

describe("inherited declarations", () => {
  it("a subtype's shorthand uses the supertype's roles and relations", () => {
    const program = checkOk(`
      actor User {}
      resource Project { roles = ["member"]; }
      resource Item { roles = ["viewer"]; relations = { project: Project }; }
      resource Doc extends Item {
        permissions = ["read"];
        "read" if "viewer";
        "viewer" if "member" on "project";
      }
    `);
    const names = allClauses(program)
      .filter((c) => c.origin === "shorthand")
      .map((c) => c.predicate);
    expect(names).toEqual(["has_permission/3", "has_role/3"]);
    expect(program.resources.get("Doc")).toEqual({
      name: "Doc",
      kind: "resource",
      roles: ["viewer"],
      permissions: ["read"],
      relations: { project: "Project" },
    });
  });
  it("`on` reaches names the related type inherits", () => {
    checkOk(`
      actor User {}
      resource Base { roles = ["member"]; }
      resource Project extends Base {}
      resource Ticket { roles = ["viewer"]; relations = { project: Project }; "viewer" if "member" on "project"; }
    `);
  });
});

describe("shorthand checks (§7.2)", () => {
  it("P203: `on` needs a relation of the block", () => {
    expectError(
      base(`"read" if "viewer" on "owner";`),
      "P203",
      `"owner"`,
      "`owner` is not a relation of `Ticket`",
    );
    expectError(base(`"read" if "viewer" on project;`), "P203", "project");
  });
  it("P204: the term must be declared in the related type", () => {
    expectError(
      base(`"read" if "admin" on "project";`),
      "P204",
      `"admin"`,
      "`admin` is not declared in `Project` (reached through `project` of `Ticket`)",
    );
  });
  it("P205: `global` terms must be declared in the global block", () => {
    expectError(
      base(`"read" if global "superuser";`),
      "P205",
      `"superuser"`,
      "`superuser` is not declared in the `global` block",
    );
  });
  it("P205 also when there is no global block", () => {
    expectError(
      `actor User {}\nresource Doc { permissions = ["read"]; "read" if global "admin"; }`,
      "P205",
      `"admin"`,
    );
  });
  it("P206: no `on` in the global block", () => {
    expectError(
      base("", `"g_perm" if "g_role" on "parent";`),
      "P206",
      `"g_role" on "parent"`,
      "`on` cannot be used in the `global` block",
    );
  });
  it("P201 in a body", () => {
    expectError(base(`"read" if "editor";`), "P201", `"editor"`);
  });
});

describe("determinism", () => {
  it("checking the same text twice gives structurally equal clauses", () => {
    const text = base(`"close" if "edit" on "project" or "reporter";\n"read" if "viewer";`);
    const a = allClauses(checkOk(text)).map(normalizeClause);
    const b = allClauses(checkOk(text)).map(normalizeClause);
    expect(a).toEqual(b);
  });
});
