/**
 * Policy families for the differential tests: each with its bound signatures, id domain and a
 * generator of random facts (with where each fact is stored).
 */
import fc from "fast-check";
import type { GroundFact, Value } from "../src/core/value.js";
import type { Destination, Family, RoutedFact } from "./local-support.js";

const v = (type: string, id: string): Value => ({ type, id });
const s = (id: string): Value => ({ type: "String", id });

/** Every fact `predicate(a, b, …)` with arguments drawn from the lists. */
export function factSpace(
  predicate: string,
  ...lists: readonly (readonly Value[])[]
): GroundFact[] {
  let tuples: Value[][] = [[]];
  for (const list of lists) tuples = tuples.flatMap((t) => list.map((value) => [...t, value]));
  return tuples.map((args) => ({ predicate, args }));
}

const ids = (type: string, values: readonly string[]) => values.map((id) => v(type, id));

/** Random subsets of the fact space, each fact stored locally, centrally or as context. */
export function routedFacts(
  space: readonly GroundFact[],
  destinations: readonly Destination[],
  maxLength = 14,
): fc.Arbitrary<RoutedFact[]> {
  return fc.array(
    fc.record({ fact: fc.constantFrom(...space), to: fc.constantFrom(...destinations) }),
    { maxLength },
  );
}

// ---------------------------------------------------------------- 12.1 RBAC

export const rbac: Family = {
  name: "rbac",
  policy: `actor User {}
resource Workspace {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "invite"];
  "viewer" if "editor";
  "editor" if "owner";
  "read" if "viewer";
  "write" if "editor";
  "invite" if "owner";
}`,
  bindings: ["has_role(User:_, String:_, Workspace:_)"],
  sqlTypes: { User: "integer", Workspace: "bigint" },
  domain: { User: ["1", "2", "3"], Workspace: ["10", "11"] },
  actors: ids("User", ["1", "2", "3"]),
  actions: ["read", "write", "invite", "delete"],
  resourceTypes: ["Workspace"],
};

export const rbacSpace = [
  ...factSpace(
    "has_role",
    ids("User", ["1", "2", "3"]),
    ["viewer", "editor", "owner", "stranger"].map(s),
    ids("Workspace", ["10", "11"]),
  ),
  // stored permissions and allow facts: always central (nothing binds them)
  ...factSpace(
    "has_permission",
    ids("User", ["1", "2"]),
    [s("invite"), s("delete")],
    ids("Workspace", ["10"]),
  ),
  ...factSpace("allow", ids("User", ["3"]), [s("read"), s("delete")], ids("Workspace", ["11"])),
];

// ---------------------------------------------------------------- 12.2 nested relations

export const nested: Family = {
  name: "nested",
  policy: `actor User {}
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
}`,
  bindings: [
    "has_role(User:_, String:_, Workspace:_)",
    "has_relation(Project:_, String:workspace, Workspace:_)",
    "has_relation(Ticket:_, project, Project:_)",
    "has_relation(Ticket:_, reporter, User:_)",
  ],
  sqlTypes: { User: "integer", Workspace: "integer", Project: "integer", Ticket: "bigint" },
  domain: {
    User: ["1", "2"],
    Workspace: ["10", "11"],
    Project: ["100", "101"],
    Ticket: ["1000", "1001"],
  },
  actors: ids("User", ["1", "2"]),
  actions: ["view", "comment", "close", "edit"],
  resourceTypes: ["Ticket", "Project"],
};

export const nestedSpace = [
  ...factSpace(
    "has_role",
    ids("User", ["1", "2"]),
    [s("member"), s("admin")],
    ids("Workspace", ["10", "11"]),
  ),
  ...factSpace(
    "has_role",
    ids("User", ["1", "2"]),
    [s("maintainer"), s("contributor")],
    ids("Project", ["100", "101"]),
  ),
  ...factSpace(
    "has_relation",
    ids("Project", ["100", "101"]),
    [s("workspace")],
    ids("Workspace", ["10", "11"]),
  ),
  ...factSpace(
    "has_relation",
    ids("Ticket", ["1000", "1001"]),
    [s("project")],
    ids("Project", ["100", "101"]),
  ),
  ...factSpace(
    "has_relation",
    ids("Ticket", ["1000", "1001"]),
    [s("reporter")],
    ids("User", ["1", "2"]),
  ),
];

// ---------------------------------------------------------------- 12.3 recursive folders

export const folders: Family = {
  name: "folders",
  policy: `actor User {}
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
}`,
  bindings: [
    "has_relation(Folder:_, parent, Folder:_)",
    "has_relation(Document:_, folder, Folder:_)",
    "has_role(User:_, String:_, Folder:_)",
  ],
  sqlTypes: { User: "text", Folder: "integer", Document: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3", "4"], Document: ["a.md", "b.md"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["list", "upload", "open", "edit"],
  resourceTypes: ["Folder", "Document"],
};

export const foldersSpace = [
  ...factSpace(
    "has_relation",
    ids("Folder", ["1", "2", "3", "4"]),
    [s("parent")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
  ...factSpace(
    "has_relation",
    ids("Document", ["a.md", "b.md"]),
    [s("folder")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo"]),
    [s("reader"), s("writer")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
];

// ---------------------------------------------------------------- 12.4 global roles

export const globalRoles: Family = {
  name: "globalroles",
  policy: `actor User {}
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
}`,
  bindings: ["has_role(User:_, String:_)", "has_role(User:_, String:_, Team:_)"],
  sqlTypes: { Team: "text" },
  domain: { User: ["ada", "bo", "cy"], Team: ["core", "web"] },
  actors: ids("User", ["ada", "bo", "cy"]),
  actions: ["view", "manage"],
  resourceTypes: ["Team"],
};

export const globalSpace = [
  ...factSpace("has_role", ids("User", ["ada", "bo", "cy"]), [s("support"), s("superuser")]),
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo", "cy"]),
    [s("member"), s("lead")],
    ids("Team", ["core", "web"]),
  ),
];

// ---------------------------------------------------------------- 12.5 attributes and not

export const attributes: Family = {
  name: "attributes",
  policy: `actor User {}
resource Project { roles = ["member"]; }
resource Ticket {
  permissions = ["view", "edit"];
  relations = { project: Project };
  "view" if "member" on "project" and not is_confidential(resource);
  "view" if is_public(resource, true);
  "edit" if "view" and not has_status(resource, "closed");
}

has_permission(user: User, "view", ticket: Ticket) if
  is_confidential(ticket) and has_clearance(user, level) and level >= 3;`,
  bindings: [
    "has_role(User:_, String:_, Project:_)",
    "has_relation(Ticket:_, project, Project:_)",
    "is_confidential(Ticket:_)",
    "has_status(Ticket:_, String:_)",
    "is_public(Ticket:_, Boolean:_)",
    "has_clearance(User:_, Integer:_)",
  ],
  sqlTypes: { User: "text", Project: "text", Ticket: "uuid" },
  domain: {
    User: ["ada", "bo"],
    Project: ["api"],
    Ticket: ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"],
  },
  actors: ids("User", ["ada", "bo"]),
  actions: ["view", "edit"],
  resourceTypes: ["Ticket"],
};

const tickets = ids("Ticket", [
  "00000000-0000-0000-0000-000000000001",
  "00000000-0000-0000-0000-000000000002",
]);
export const attributesSpace = [
  ...factSpace("has_role", ids("User", ["ada", "bo"]), [s("member")], ids("Project", ["api"])),
  ...factSpace("has_relation", tickets, [s("project")], ids("Project", ["api"])),
  ...factSpace("is_confidential", tickets),
  ...factSpace("has_status", tickets, [s("closed"), s("open")]),
  ...factSpace("is_public", tickets, [v("Boolean", "true"), v("Boolean", "false")]),
  ...factSpace(
    "has_clearance",
    ids("User", ["ada", "bo"]),
    ["2", "3", "4"].map((n) => v("Integer", n)),
  ),
];

// ---------------------------------------------------------------- 12.6 custom allow, context, time

export const customAllow: Family = {
  name: "customallow",
  policy: `actor User {}
resource Report {
  roles = ["viewer"];
  permissions = ["read", "export"];
  "read" if "viewer";
  "export" if "viewer";
}
allow(user: User, "read", report: Report) if has_permission(user, "read", report);
allow(user: User, "export", report: Report) if
  has_permission(user, "export", report) and mfa_verified(user);
allow(user: User, "read", report: Report) if
  has_grant(user, report, expires_at) and expires_at > @current_unix_time;`,
  bindings: ["has_role(User:_, String:_, Report:_)", "has_grant(User:_, Report:_, Integer:_)"],
  sqlTypes: { User: "text", Report: "text" },
  domain: { User: ["ada", "bo"], Report: ["q3", "q4"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["read", "export"],
  resourceTypes: ["Report"],
};

export const customAllowSpace = [
  ...factSpace("has_role", ids("User", ["ada", "bo"]), [s("viewer")], ids("Report", ["q3", "q4"])),
  ...factSpace("mfa_verified", ids("User", ["ada", "bo"])),
  ...factSpace(
    "has_grant",
    ids("User", ["ada", "bo"]),
    ids("Report", ["q3", "q4"]),
    ["946684800", "1700000000", "4102444800"].map((n) => v("Integer", n)),
  ),
];

// ---------------------------------------------------------------- extends and universal rules

export const extendsFamily: Family = {
  name: "extends",
  policy: `actor User {}
actor Bot {}
resource Org { roles = ["admin"]; }
resource File {
  roles = ["reader"];
  permissions = ["read", "write"];
  relations = { org: Org };
  "read" if "reader";
  "read" if "admin" on "org";
}
resource Doc extends File {
  permissions = ["comment"];
  "comment" if "read";
  "write" if "reader";
}
has_permission(_: Bot, "read", _: Doc);
has_role(actor: Actor, "reader", file: File) if has_role(actor, "admin", file);`,
  bindings: [
    "has_role(User:_, String:_, File:_)",
    "has_role(User:_, String:_, Doc:_)",
    "has_role(User:_, String:_, Org:_)",
    "has_relation(Doc:_, org, Org:_)",
  ],
  sqlTypes: { User: "text", Bot: "text", Org: "text", File: "text", Doc: "text" },
  domain: { User: ["ada", "bo"], Bot: ["r2"], Org: ["acme"], File: ["f1"], Doc: ["d1", "d2"] },
  actors: [...ids("User", ["ada", "bo"]), ...ids("Bot", ["r2"])],
  actions: ["read", "write", "comment"],
  resourceTypes: ["File", "Doc"],
};

export const extendsSpace = [
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo"]),
    [s("reader"), s("admin")],
    ids("File", ["f1"]),
  ),
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo"]),
    [s("reader"), s("admin")],
    ids("Doc", ["d1", "d2"]),
  ),
  ...factSpace(
    "has_role",
    [...ids("User", ["ada", "bo"]), ...ids("Bot", ["r2"])],
    [s("admin")],
    ids("Org", ["acme"]),
  ),
  ...factSpace("has_relation", ids("Doc", ["d1", "d2"]), [s("org")], ids("Org", ["acme"])),
  ...factSpace("has_relation", ids("File", ["f1"]), [s("org")], ids("Org", ["acme"])),
];

// ---------------------------------------------------------------- mutual recursion, negation

export const mutual: Family = {
  name: "mutual",
  policy: `actor User {}
resource Folder {
  roles = ["reader"];
  permissions = ["list", "peek"];
  relations = { parent: Folder };
  "list" if "reader";
  "list" if "list" on "parent";
  "reader" if "list" on "parent";
  "peek" if "list" and not is_hidden(resource);
}`,
  bindings: [
    "has_relation(Folder:_, parent, Folder:_)",
    "has_role(User:_, String:_, Folder:_)",
    "is_hidden(Folder:_)",
  ],
  sqlTypes: { Folder: "bigint", User: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["list", "peek"],
  resourceTypes: ["Folder"],
};

export const mutualSpace = [
  ...factSpace(
    "has_relation",
    ids("Folder", ["1", "2", "3"]),
    [s("parent")],
    ids("Folder", ["1", "2", "3"]),
  ),
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo"]),
    [s("reader")],
    ids("Folder", ["1", "2", "3"]),
  ),
  ...factSpace("is_hidden", ids("Folder", ["1", "2", "3"])),
];

// ---------------------------------------------------------------- negation over recursion

export const blocked: Family = {
  name: "blocked",
  policy: `actor User {}
resource Folder {
  roles = ["reader", "banned"];
  permissions = ["list"];
  relations = { parent: Folder };
  role if role on "parent";
  "list" if "reader" and not "banned";
}`,
  bindings: ["has_relation(Folder:_, parent, Folder:_)", "has_role(User:_, String:_, Folder:_)"],
  sqlTypes: { Folder: "integer", User: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3", "4"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["list"],
  resourceTypes: ["Folder"],
};

export const blockedSpace = [
  ...factSpace(
    "has_relation",
    ids("Folder", ["1", "2", "3", "4"]),
    [s("parent")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
  ...factSpace(
    "has_role",
    ids("User", ["ada", "bo"]),
    [s("reader"), s("banned")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
];

// ---------------------------------------------------------------- comparisons across sources

export const levels: Family = {
  name: "levels",
  policy: `actor User {}
resource Doc { permissions = ["read", "sign"]; }
has_permission(user: User, "read", doc: Doc) if
  has_clearance(user, level) and doc_level(doc, needed) and level >= needed;
has_permission(user: User, "sign", doc: Doc) if
  has_name(user, name) and doc_signer_from(doc, first) and name >= first and name != "zed";`,
  bindings: ["doc_level(Doc:_, Integer:_)", "doc_signer_from(Doc:_, String:_)"],
  sqlTypes: { Doc: "bigint", User: "text" },
  domain: { User: ["u1", "u2"], Doc: ["1", "2", "3"] },
  actors: ids("User", ["u1", "u2"]),
  actions: ["read", "sign"],
  resourceTypes: ["Doc"],
};

const names = ["a", "B", "é", "zed", "Z", "😀", "～"];
export const levelsSpace = [
  ...factSpace(
    "has_clearance",
    ids("User", ["u1", "u2"]),
    ["1", "3", "-2", "10"].map((n) => v("Integer", n)),
  ),
  ...factSpace(
    "doc_level",
    ids("Doc", ["1", "2", "3"]),
    ["0", "3", "5", "-3"].map((n) => v("Integer", n)),
  ),
  ...factSpace("has_name", ids("User", ["u1", "u2"]), names.map(s)),
  ...factSpace("doc_signer_from", ids("Doc", ["1", "2", "3"]), names.map(s)),
];

// ---------------------------------------------------------------- mutual recursion, both self-recursive

/**
 * Two members of one recursion that both call themselves: one merged CTE. `not` over the
 * recursion sits in `allow` (a rule of the recursion itself could not negate it).
 */
export const mutualSelf: Family = {
  name: "mutualself",
  policy: `actor User {}
resource Folder {
  roles = ["reader", "banned"];
  permissions = ["list"];
  relations = { parent: Folder };
  "list" if "reader";
  "list" if "list" on "parent";
  "reader" if "list" on "parent";
  "reader" if "reader" on "parent";
  "banned" if "banned" on "parent";
}
allow(actor: User, action: String, folder: Folder) if has_permission(actor, action, folder);
allow(actor: User, "peek", folder: Folder) if
  has_permission(actor, "list", folder) and not has_role(actor, "banned", folder);
allow(actor: User, "skim", folder: Folder) if
  is_public(folder) and has_role(actor, "banned", folder) and
  has_relation(folder, "parent", parent) and parent matches Folder and
  not has_permission(actor, "list", parent);
allow(actor: User, "hide", folder: Folder) if
  has_role(actor, "banned", folder) and not has_role(actor, "reader", folder);`,
  bindings: [
    "has_relation(Folder:_, parent, Folder:_)",
    "has_role(User:_, String:_, Folder:_)",
    "is_public(Folder:_)",
  ],
  sqlTypes: { Folder: "integer", User: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3", "4"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["list", "peek", "skim", "hide"],
  resourceTypes: ["Folder"],
};

/** The parent links and roles of `blockedSpace`, with central grants and public folders. */
export const mutualSelfSpace = [
  ...blockedSpace,
  ...factSpace(
    "has_permission",
    ids("User", ["ada"]),
    [s("list")],
    ids("Folder", ["1", "2", "3", "4"]),
  ),
  ...factSpace("is_public", ids("Folder", ["1", "2", "3", "4"])),
];

// ---------------------------------------------------------------- mutual recursion over two types

/**
 * A recursion through folders and documents, each type also recursing on its own; asked
 * through `has_role` ("own"), its root is a member that does not call itself.
 */
export const mutualTypes: Family = {
  name: "mutualtypes",
  policy: `actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["view"];
  relations = { parent: Folder, readme: Document };
  "view" if "viewer";
  "view" if "view" on "parent";
  "viewer" if "view" on "readme";
}
resource Document {
  roles = ["editor"];
  permissions = ["view", "edit"];
  relations = { folder: Folder, source: Document };
  "edit" if "editor";
  "view" if "edit";
  "view" if "view" on "folder";
  "view" if "view" on "source";
}
allow(actor: User, action: String, folder: Folder) if has_permission(actor, action, folder);
allow(actor: User, action: String, doc: Document) if has_permission(actor, action, doc);
allow(actor: User, "peek", doc: Document) if
  has_permission(actor, "view", doc) and has_relation(doc, "folder", folder) and
  folder matches Folder and not has_permission(actor, "view", folder);
allow(actor: User, "own", folder: Folder) if has_role(actor, "viewer", folder);`,
  bindings: [
    "has_relation(Folder:_, parent, Folder:_)",
    "has_relation(Folder:_, readme, Document:_)",
    "has_relation(Document:_, folder, Folder:_)",
    "has_relation(Document:_, source, Document:_)",
    "has_role(User:_, String:_, Folder:_)",
    "has_role(User:_, String:_, Document:_)",
  ],
  sqlTypes: { Folder: "integer", Document: "text", User: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3"], Document: ["a", "b"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["view", "edit", "peek", "own"],
  resourceTypes: ["Folder", "Document"],
};

const typeFolders = ids("Folder", ["1", "2", "3"]);
const typeDocuments = ids("Document", ["a", "b"]);
export const mutualTypesSpace = [
  ...factSpace("has_relation", typeFolders, [s("parent")], typeFolders),
  ...factSpace("has_relation", typeFolders, [s("readme")], typeDocuments),
  ...factSpace("has_relation", typeDocuments, [s("folder")], typeFolders),
  ...factSpace("has_relation", typeDocuments, [s("source")], typeDocuments),
  ...factSpace("has_role", ids("User", ["ada", "bo"]), [s("viewer")], typeFolders),
  ...factSpace("has_role", ids("User", ["ada", "bo"]), [s("editor")], typeDocuments),
];

// ---------------------------------------------------------------- mutual recursion, members apart

/**
 * Two self-recursive members that hold for different folders: each `link` edge switches
 * between them, so a merged CTE must keep apart which member a row belongs to.
 */
export const mutualParity: Family = {
  name: "mutualparity",
  policy: `actor User {}
resource Folder {
  roles = ["reader", "lister"];
  permissions = ["list"];
  relations = { parent: Folder, link: Folder };
  "list" if "lister";
  "list" if "list" on "parent";
  "list" if "reader" on "link";
  "reader" if "reader" on "parent";
  "reader" if "list" on "link";
}
allow(actor: User, action: String, folder: Folder) if has_permission(actor, action, folder);
allow(actor: User, "read", folder: Folder) if has_role(actor, "reader", folder);
allow(actor: User, "only", folder: Folder) if
  has_role(actor, "reader", folder) and not has_permission(actor, "list", folder);`,
  bindings: [
    "has_relation(Folder:_, parent, Folder:_)",
    "has_relation(Folder:_, link, Folder:_)",
    "has_role(User:_, String:_, Folder:_)",
  ],
  sqlTypes: { Folder: "integer", User: "text" },
  domain: { User: ["ada", "bo"], Folder: ["1", "2", "3", "4"] },
  actors: ids("User", ["ada", "bo"]),
  actions: ["list", "read", "only"],
  resourceTypes: ["Folder"],
};

const parityFolders = ids("Folder", ["1", "2", "3", "4"]);
export const mutualParitySpace = [
  ...factSpace("has_relation", parityFolders, [s("parent"), s("link")], parityFolders),
  ...factSpace("has_role", ids("User", ["ada", "bo"]), [s("reader"), s("lister")], parityFolders),
  ...factSpace("has_permission", ids("User", ["ada"]), [s("list")], parityFolders),
];

// ---------------------------------------------------------------- recursion over central facts only

/**
 * A management chain held only centrally (no binding for `manages`): the recursion is computed
 * while printing, from the actor, and only what it reaches is written into the statement. The
 * `not` reads the computed rows too.
 */
export const managers: Family = {
  name: "managers",
  policy: `actor User {}
resource Report {
  permissions = ["read", "audit"];
  relations = { owner: User };
  "read" if "owner";
}
managed_by(e: User, m: User) if manages(m, e);
managed_by(e: User, m: User) if manages(x, e) and managed_by(x, m);
has_permission(user: User, "read", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user);
has_permission(user: User, "audit", report: Report) if
  has_relation(report, "owner", owner) and managed_by(owner, user) and
  not managed_by(user, owner);`,
  bindings: ["has_relation(Report:_, owner, User:_)"],
  sqlTypes: { User: "integer", Report: "integer" },
  domain: { User: ["1", "2", "3", "4", "5"], Report: ["10", "11", "12"] },
  actors: ids("User", ["1", "2", "3", "4", "5"]),
  actions: ["read", "audit"],
  resourceTypes: ["Report"],
};

const staff = ids("User", ["1", "2", "3", "4", "5"]);
export const managersSpace = [
  ...factSpace("manages", staff, staff),
  ...factSpace("has_relation", ids("Report", ["10", "11", "12"]), [s("owner")], staff),
];

/** Every family with its fact space: the cases the oracle suites run on each engine. */
export const ORACLE_CASES: readonly {
  readonly name: string;
  readonly family: Family;
  readonly space: readonly GroundFact[];
}[] = (
  [
    [rbac, rbacSpace],
    [nested, nestedSpace],
    [folders, foldersSpace],
    [globalRoles, globalSpace],
    [attributes, attributesSpace],
    [customAllow, customAllowSpace],
    [extendsFamily, extendsSpace],
    [mutual, mutualSpace],
    [mutualSelf, mutualSelfSpace],
    [mutualParity, mutualParitySpace],
    [mutualTypes, mutualTypesSpace],
    [blocked, blockedSpace],
    [levels, levelsSpace],
    [managers, managersSpace],
  ] as [Family, GroundFact[]][]
).map(([family, space]) => ({ name: family.name, family, space }));
