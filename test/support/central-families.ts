/**
 * The example policies with a small id domain each, for the central consistency tests: the
 * actors, resources and actions to ask about, and the space of facts a random store draws from.
 */
import { readFileSync } from "node:fs";
import type { GroundFact, Value } from "../../src/core/value.js";
import { mutualTypes } from "../local-families.js";

export interface CentralFamily {
  readonly name: string;
  readonly file: string;
  readonly src: string;
  readonly actors: readonly Value[];
  readonly resources: readonly Value[];
  /** Actions asked per resource type; each list includes one the policy never grants. */
  readonly actions: Readonly<Record<string, readonly string[]>>;
  /** Every fact a random store may hold. */
  readonly space: readonly GroundFact[];
}

/** A fixed clock between the two invitation/grant expiries used below. */
export const NOW = 1_700_000_000n;
const PAST = "946684800";
const FUTURE = "4102444800";

const v = (type: string, id: string): Value => ({ type, id });
const strings = (...ids: string[]) => ids.map((id) => v("String", id));
const of = (type: string, ...ids: string[]) => ids.map((id) => v(type, id));

/** Every fact `predicate(a, b, …)` with arguments drawn from the lists. */
function space(predicate: string, ...lists: readonly (readonly Value[])[]): GroundFact[] {
  let tuples: Value[][] = [[]];
  for (const list of lists) tuples = tuples.flatMap((t) => list.map((value) => [...t, value]));
  return tuples.map((args) => ({ predicate, args }));
}

function family(
  name: string,
  file: string,
  rest: Omit<CentralFamily, "name" | "file" | "src">,
): CentralFamily {
  const src = readFileSync(new URL(`../../examples/${file}`, import.meta.url), "utf8");
  return { name, file, src, ...rest };
}

const rbacUsers = of("User", "ada", "bo");
const rbac = family("12-1 rbac", "reference/12-1-rbac.polar", {
  actors: rbacUsers,
  resources: of("Workspace", "w1", "it's"),
  actions: { Workspace: ["read", "write", "invite", "delete"] },
  space: [
    ...space("has_role", rbacUsers, strings("viewer", "editor", "owner", "guest"), [
      ...of("Workspace", "w1", "it's"),
    ]),
    ...space("has_permission", rbacUsers, strings("read", "delete"), of("Workspace", "it's")),
  ],
});

const nestedUsers = of("User", "ada", 'bo \\ "b"');
const nested = family("12-2 nested relations", "reference/12-2-nested-relations.polar", {
  actors: nestedUsers,
  resources: [...of("Project", "p1", "p2"), ...of("Ticket", "t1", "t2"), v("Workspace", "acme")],
  actions: {
    Project: ["view", "edit", "close"],
    Ticket: ["view", "comment", "close", "edit"],
    Workspace: ["view"],
  },
  space: [
    ...space("has_role", nestedUsers, strings("member", "admin"), of("Workspace", "acme", "zen")),
    ...space("has_role", nestedUsers, strings("contributor", "maintainer"), of("Project", "p1")),
    ...space("has_relation", of("Project", "p1", "p2"), strings("workspace"), [
      ...of("Workspace", "acme", "zen"),
    ]),
    ...space(
      "has_relation",
      of("Ticket", "t1", "t2"),
      strings("project"),
      of("Project", "p1", "p2"),
    ),
    ...space("has_relation", of("Ticket", "t1", "t2"), strings("reporter"), nestedUsers),
  ],
});

const folderIds = of("Folder", "f1", "ﬀ", "😀");
const folderUsers = of("User", "ada", "bo");
const folders = family("12-3 recursive folders", "reference/12-3-recursive-folders.polar", {
  actors: folderUsers,
  resources: [...folderIds, ...of("Document", "d1", "d2; --")],
  actions: { Folder: ["list", "upload", "open"], Document: ["open", "edit", "list"] },
  space: [
    // every pair, cycles included
    ...space("has_relation", folderIds, strings("parent"), folderIds),
    ...space("has_relation", of("Document", "d1", "d2; --"), strings("folder"), folderIds),
    ...space("has_role", folderUsers, strings("reader", "writer"), folderIds),
  ],
});

const globalUsers = of("User", "ada", "bo", "cy");
const globalRoles = family("12-4 global roles", "reference/12-4-global-roles.polar", {
  actors: globalUsers,
  resources: of("Team", "core", "web"),
  actions: { Team: ["view", "manage", "view_audit_log"] },
  space: [
    ...space("has_role", globalUsers, strings("support", "superuser")),
    ...space("has_role", globalUsers, strings("member", "lead"), of("Team", "core", "web")),
  ],
});

const attributeUsers = of("User", "ada", "bo");
const tickets = of("Ticket", "t1", "t2");
const attributes = family("12-5 attributes and not", "reference/12-5-attributes-not.polar", {
  actors: attributeUsers,
  resources: [...tickets, v("Project", "api")],
  actions: { Ticket: ["view", "edit", "close"], Project: ["view"] },
  space: [
    ...space("has_role", attributeUsers, strings("member"), of("Project", "api")),
    ...space("has_relation", tickets, strings("project"), of("Project", "api")),
    ...space("is_confidential", tickets),
    ...space("is_public", tickets, of("Boolean", "true", "false")),
    ...space("has_status", tickets, strings("closed", "open")),
    ...space("has_clearance", attributeUsers, of("Integer", "2", "3", "4")),
  ],
});

const reportUsers = of("User", "ada", "bo");
const reports = of("Report", "q3", "q4");
const customAllow = family("12-6 custom allow", "reference/12-6-custom-allow.polar", {
  actors: reportUsers,
  resources: reports,
  actions: { Report: ["read", "export", "delete"] },
  space: [
    ...space("has_role", reportUsers, strings("viewer"), reports),
    ...space("mfa_verified", reportUsers),
    ...space("has_grant", reportUsers, reports, of("Integer", PAST, FUTURE)),
  ],
});

const people = of("User", "alice", "bob");
const bot = v("Bot", "ci");
const repositories = of("Repository", "anvil", "rocket");
const gitFolders = of("Folder", "src", "lib");
const gitclub = family("gitclub", "gitclub.polar", {
  actors: [...people, bot],
  resources: [
    v("Organization", "acme"),
    ...repositories,
    v("Issue", "i1"),
    ...gitFolders,
    v("File", "a.ts"),
  ],
  actions: {
    Organization: ["read", "manage", "create_repository"],
    Repository: ["read", "clone", "push", "create_issue", "delete"],
    Issue: ["read", "comment", "close", "edit"],
    Folder: ["read", "edit", "delete"],
    File: ["read", "edit", "delete", "push"],
  },
  space: [
    ...space("has_role", [...people, bot], strings("owner", "member"), [v("Organization", "acme")]),
    ...space("has_role", [...people, bot], strings("reader", "writer", "admin"), repositories),
    ...space("has_role", people, strings("admin", "staff")),
    ...space("has_role", people, strings("editor"), gitFolders),
    ...space("has_relation", repositories, strings("organization"), [v("Organization", "acme")]),
    ...space("has_relation", [v("Issue", "i1")], strings("repository"), repositories),
    ...space("has_relation", [v("Issue", "i1")], strings("creator", "assignee"), people),
    ...space("has_relation", gitFolders, strings("repository"), repositories),
    ...space("has_relation", gitFolders, strings("parent"), gitFolders),
    ...space("has_relation", gitFolders, strings("creator"), people),
    ...space("has_relation", [v("File", "a.ts")], strings("folder"), gitFolders),
    ...space("has_relation", [v("File", "a.ts")], strings("repository"), repositories),
    ...space("is_public", repositories, of("Boolean", "true")),
    ...space("is_archived", repositories),
    ...space("is_locked", [v("Issue", "i1")]),
    ...space("is_suspended", people),
    ...space("has_invitation", people, repositories, of("Integer", PAST, FUTURE)),
  ],
});

/**
 * Mutual recursion through two types in which several members call themselves (one merged
 * CTE), with `not` over it: the oracle family `mutualTypes` of the local tests.
 */
const mutualUsers = of("User", "ada", "bo");
const mutualFolders = of("Folder", "f1", "f2");
const mutualDocuments = of("Document", "d1", "d2");
const mutualRecursion: CentralFamily = {
  name: "mutual recursion",
  file: "mutual-recursion.polar",
  src: mutualTypes.policy,
  actors: mutualUsers,
  resources: [...mutualFolders, ...mutualDocuments],
  actions: { Folder: ["view", "own", "edit"], Document: ["view", "edit", "peek", "own"] },
  space: [
    // every pair, cycles included
    ...space("has_relation", mutualFolders, strings("parent"), mutualFolders),
    ...space("has_relation", mutualFolders, strings("readme"), mutualDocuments),
    ...space("has_relation", mutualDocuments, strings("folder"), mutualFolders),
    ...space("has_relation", mutualDocuments, strings("source"), mutualDocuments),
    ...space("has_role", mutualUsers, strings("viewer"), mutualFolders),
    ...space("has_role", mutualUsers, strings("editor"), mutualDocuments),
  ],
};

export const CENTRAL_FAMILIES: readonly CentralFamily[] = [
  rbac,
  nested,
  folders,
  globalRoles,
  attributes,
  customAllow,
  gitclub,
  mutualRecursion,
];
