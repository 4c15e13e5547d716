/**
 * Helpers shared by the evaluator and test-runner tests.
 */
import { expect } from "vitest";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { formatDiagnostic } from "../src/source/format.js";

/** Checks a policy, failing the test with code frames on errors. */
export function policy(text: string, name = "policy.polar"): Program {
  const result = checkPolicy([{ name, text }]);
  if (!result.ok) {
    const frames = result.diagnostics.map((d) => formatDiagnostic(d, result.sources));
    expect.fail(`expected the policy to check:\n${frames.join("\n\n")}`);
  }
  return result.program;
}

export const user = (id: string): Value => ({ type: "User", id });
export const str = (id: string): Value => ({ type: "String", id });
export const int = (id: number | bigint): Value => ({ type: "Integer", id: String(id) });
export const bool = (id: boolean): Value => ({ type: "Boolean", id: String(id) });
export const ent = (type: string, id: string): Value => ({ type, id });

export function fact(predicate: string, ...args: (Value | string)[]): GroundFact {
  return { predicate, args: args.map((arg) => (typeof arg === "string" ? str(arg) : arg)) };
}

/** The §12 example policies, test blocks included. */
export const EXAMPLES = {
  rbac: `actor User {}
resource Workspace {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "invite"];
  "viewer" if "editor";
  "editor" if "owner";
  "read" if "viewer";
  "write" if "editor";
  "invite" if "owner";
}

test "owners inherit every lower role" {
  setup {
    has_role(User{"ada"}, "owner", Workspace{"w1"});
    has_role(User{"bo"}, "viewer", Workspace{"w1"});
  }
  assert allow(User{"ada"}, act: String, Workspace{"w1"}) iff act in ["read", "write", "invite"];
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read"];
  assert_not allow(User{"bo"}, "read", Workspace{"w2"});
  assert has_role(User{"ada"}, "viewer", Workspace{"w1"});
}
`,
  nested: `actor User {}
resource Workspace { roles = ["member", "admin"]; "member" if "admin"; }
resource Project {
  roles = ["contributor", "maintainer"];
  permissions = ["view", "edit"];
  relations = { workspace: Workspace };
  "contributor" if "member" on "workspace";
  "maintainer" if "admin" on "workspace";
  "contributor" if "maintainer";
  "view" if "contributor";
  "edit" if "maintainer";
}
resource Ticket {
  permissions = ["view", "comment", "close"];
  relations = { project: Project, reporter: User };
  "view" if "view" on "project";
  "comment" if "view";
  "close" if "edit" on "project" or "reporter";
}

test "access flows workspace -> project -> ticket" {
  setup {
    has_role(User{"ada"}, "member", Workspace{"acme"});
    has_role(User{"cy"}, "admin", Workspace{"acme"});
    has_relation(Project{"api"}, "workspace", Workspace{"acme"});
    has_relation(Ticket{"t1"}, "project", Project{"api"});
    has_relation(Ticket{"t1"}, "reporter", User{"dee"});
  }
  assert allow(User{"ada"}, "comment", Ticket{"t1"});
  assert_not allow(User{"ada"}, "close", Ticket{"t1"});
  assert allow(User{"cy"}, "close", Ticket{"t1"});
  assert allow(User{"dee"}, "close", Ticket{"t1"});
  assert_not allow(User{"dee"}, "view", Ticket{"t1"});
}
`,
  folders: `actor User {}
resource Folder {
  roles = ["reader", "writer"];
  permissions = ["list", "upload"];
  relations = { parent: Folder };
  role if role on "parent";
  "reader" if "writer";
  "list" if "reader";
  "upload" if "writer";
}
resource Document {
  permissions = ["open", "edit"];
  relations = { folder: Folder };
  "open" if "list" on "folder";
  "edit" if "upload" on "folder";
}

test "roles flow down any depth of folders" {
  setup {
    has_role(User{"ada"}, "writer", Folder{"root"});
    has_role(User{"bo"}, "reader", Folder{"mid"});
    has_relation(Folder{"mid"}, "parent", Folder{"root"});
    has_relation(Folder{"leaf"}, "parent", Folder{"mid"});
    has_relation(Document{"plan.md"}, "folder", Folder{"leaf"});
  }
  assert allow(User{"ada"}, "edit", Document{"plan.md"});
  assert allow(User{"bo"}, "open", Document{"plan.md"});
  assert_not allow(User{"bo"}, "edit", Document{"plan.md"});
  assert_not allow(User{"bo"}, "list", Folder{"root"});
}

test "cyclic folder data terminates" {
  setup {
    has_relation(Folder{"a"}, "parent", Folder{"b"});
    has_relation(Folder{"b"}, "parent", Folder{"a"});
  }
  assert_not allow(User{"ada"}, "list", Folder{"a"});
}
`,
  global: `actor User {}
global {
  roles = ["support", "superuser"];
  permissions = ["view_audit_log"];
  "support" if "superuser";
  "view_audit_log" if "support";
}

resource Team {
  roles = ["member", "lead"];
  permissions = ["view", "manage"];
  "member" if "lead";
  "view" if "member" or global "support";
  "manage" if "lead" or global "superuser";
}

test "global roles reach every team" {
  setup {
    has_role(User{"ada"}, "superuser");
    has_role(User{"bo"}, "support");
    has_role(User{"cy"}, "member", Team{"core"});
  }
  assert allow(User{"ada"}, "manage", Team{"core"});
  assert allow(User{"bo"}, "view", Team{"any-team"});
  assert_not allow(User{"bo"}, "manage", Team{"core"});
  assert has_permission(User{"ada"}, "view_audit_log");
  assert_not has_permission(User{"cy"}, "view_audit_log");
}
`,
  attributes: `actor User {}
resource Project { roles = ["member"]; }
resource Ticket {
  permissions = ["view", "edit"];
  relations = { project: Project };
  "view" if "member" on "project" and not is_confidential(resource);
  "view" if is_public(resource, true);
  "edit" if "view" and not has_status(resource, "closed");
}

has_permission(user: User, "view", ticket: Ticket) if
  is_confidential(ticket) and has_clearance(user, level) and level >= 3;

test "confidential and closed tickets" {
  setup {
    has_role(User{"ada"}, "member", Project{"api"});
    has_relation(Ticket{"t1"}, "project", Project{"api"});
    has_relation(Ticket{"t2"}, "project", Project{"api"});
    has_status(Ticket{"t1"}, "closed");
    is_confidential(Ticket{"t2"});
    is_public(Ticket{"t3"}, true);
    has_clearance(User{"bo"}, 4);
  }
  assert allow(User{"ada"}, "view", Ticket{"t1"});
  assert_not allow(User{"ada"}, "edit", Ticket{"t1"});
  assert_not allow(User{"ada"}, "view", Ticket{"t2"});
  assert allow(User{"bo"}, "view", Ticket{"t2"});
  assert allow(User{"zed"}, "edit", Ticket{"t3"});
}
`,
  customAllow: `actor User {}
resource Report {
  roles = ["viewer"];
  permissions = ["read", "export"];
  "read" if "viewer";
  "export" if "viewer";
}

# any allow/3 clause removes the default allow rule, so "read" is restated
allow(user: User, "read", report: Report) if has_permission(user, "read", report);

# mfa_verified(user) is sent by the application as a context fact
allow(user: User, "export", report: Report) if
  has_permission(user, "export", report) and mfa_verified(user);

# time-limited grants
allow(user: User, "read", report: Report) if
  has_grant(user, report, expires_at) and expires_at > @current_unix_time;

test "custom allow rules" {
  setup {
    has_role(User{"ada"}, "viewer", Report{"q3"});
    has_role(User{"bo"}, "viewer", Report{"q3"});
    mfa_verified(User{"ada"});
    has_grant(User{"cy"}, Report{"q3"}, 4102444800);
    has_grant(User{"dee"}, Report{"q3"}, 946684800);
  }
  assert allow(User{"ada"}, "export", Report{"q3"});
  assert_not allow(User{"bo"}, "export", Report{"q3"});
  assert allow(User{"bo"}, "read", Report{"q3"});
  assert allow(User{"cy"}, "read", Report{"q3"});
  assert_not allow(User{"dee"}, "read", Report{"q3"});
}
`,
} as const;
