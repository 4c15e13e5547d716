/**
 * Recursive data for the HTTP benchmarks (issue 15): the folder policy of the local bench
 * (bench/local/policy.polar: folder roles flow down trees up to 8 deep, organization admins own
 * their folders, public documents), with thousands of users, thousands of nested folders and
 * tens of thousands of documents, generated deterministically. Requests pick a user, an action
 * and a document at random from a seeded generator, so bodies vary over millions of
 * combinations and no answer cache sees one question twice by construction.
 */
import type { BenchRequest, WireFact } from "./fixture.js";

export const RECURSIVE_POLICY_FILE = "bench/local/policy.polar";

export interface RecursiveScale {
  readonly users: number;
  readonly organizations: number;
  readonly folders: number;
  readonly documents: number;
}

export const RECURSIVE_SCALES = {
  /** ~100k facts: 10,000 users (30,000 roles), 3,000 folders, 30,000 documents. */
  default: { users: 10000, organizations: 20, folders: 3000, documents: 30000 },
  /** ~8k facts. */
  small: { users: 300, organizations: 5, folders: 300, documents: 3000 },
} as const satisfies Record<string, RecursiveScale>;

/** A small deterministic generator (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const v = (type: string, id: number | string) => ({ type, id: String(id) });
const MAX_DEPTH = 8;
const FOLDER_ROLES = ["viewer", "editor", "owner"] as const;
const ACTIONS = ["read", "write", "delete"] as const;

/** Folders, their organization and depth: each non-root's parent is an earlier folder. */
function folderTrees(scale: RecursiveScale, random: () => number) {
  const org: number[] = [];
  const depth: number[] = [];
  const facts: WireFact[] = [];
  for (let f = 0; f < scale.folders; f++) {
    const isRoot = f < scale.organizations * 5 || random() < 0.05;
    let parent = -1;
    if (!isRoot) {
      for (let tries = 0; tries < 8 && parent < 0; tries++) {
        const candidate = Math.floor(random() * f);
        if (depth[candidate]! < MAX_DEPTH - 1) parent = candidate;
      }
    }
    org[f] = parent >= 0 ? org[parent]! : f % scale.organizations;
    depth[f] = parent >= 0 ? depth[parent]! + 1 : 0;
    if (parent >= 0) {
      facts.push({
        predicate: "has_relation",
        args: [v("Folder", f), v("String", "parent"), v("Folder", parent)],
      });
    }
    facts.push({
      predicate: "has_relation",
      args: [v("Folder", f), v("String", "organization"), v("Organization", org[f]!)],
    });
  }
  return { org, facts };
}

export function recursiveFacts(scale: RecursiveScale): WireFact[] {
  const random = seeded(15);
  const { org, facts } = folderTrees(scale, random);
  for (let d = 0; d < scale.documents; d++) {
    const folder = Math.floor(random() * scale.folders);
    facts.push({
      predicate: "has_relation",
      args: [v("Document", d), v("String", "folder"), v("Folder", folder)],
    });
    facts.push({
      predicate: "has_relation",
      args: [v("Document", d), v("String", "organization"), v("Organization", org[folder]!)],
    });
    if (random() < 0.1) facts.push({ predicate: "is_public", args: [v("Document", d)] });
  }
  for (let u = 0; u < scale.users; u++) {
    const role = u % 50 === 0 ? "admin" : "member";
    facts.push({
      predicate: "has_role",
      args: [v("User", u), v("String", role), v("Organization", u % scale.organizations)],
    });
    for (let k = 0; k < 2; k++) {
      const folder = Math.floor(random() * scale.folders);
      const folderRole = FOLDER_ROLES[Math.floor(random() * FOLDER_ROLES.length)]!;
      facts.push({
        predicate: "has_role",
        args: [v("User", u), v("String", folderRole), v("Folder", folder)],
      });
    }
  }
  return facts;
}

/**
 * The local endpoints' bindings: the application's tables hold folders and documents; the
 * roles are stored in the service only (the usual split for local authorization), so each
 * `authorize_query` inlines the asking user's stored roles.
 */
export const RECURSIVE_BINDINGS = `facts:
  "has_relation(Folder:_, parent, Folder:_)":
    query: SELECT id, parent_id FROM folders WHERE parent_id IS NOT NULL
  "has_relation(Folder:_, organization, Organization:_)":
    query: SELECT id, org_id FROM folders WHERE org_id IS NOT NULL
  "has_relation(Document:_, folder, Folder:_)":
    query: SELECT id, folder_id FROM documents
  "has_relation(Document:_, organization, Organization:_)":
    query: SELECT id, org_id FROM documents
  "is_public(Document:_)":
    query: SELECT id FROM documents WHERE is_public
sql_types:
  User: integer
  Organization: integer
  Folder: integer
  Document: integer
`;

/** `count` requests per endpoint, each drawn at random (seeded) over users, actions, documents. */
export function recursiveRequests(
  scale: RecursiveScale,
  count: number,
  seed = 1,
): Record<BenchRequest["name"], BenchRequest[]> {
  const random = seeded(seed);
  const pick = () => ({
    user: String(Math.floor(random() * scale.users)),
    action: ACTIONS[Math.floor(random() * ACTIONS.length)]!,
    document: String(Math.floor(random() * scale.documents)),
  });
  const make = (name: BenchRequest["name"], body: () => object): BenchRequest[] =>
    Array.from({ length: count }, () => ({
      name,
      path: `/api/${name}`,
      body: JSON.stringify(body()),
    }));
  const question = () => {
    const { user, action, document } = pick();
    return {
      actor_type: "User",
      actor_id: user,
      action,
      resource_type: "Document",
      resource_id: document,
    };
  };
  return {
    authorize: make("authorize", () => ({ ...question(), context_facts: [] })),
    list: make("list", () => ({
      actor_type: "User",
      actor_id: pick().user,
      action: "read",
      resource_type: "Document",
      context_facts: [],
      page_size: 10000,
    })),
    actions: make("actions", () => {
      const { user, document } = pick();
      return {
        actor_type: "User",
        actor_id: user,
        resource_type: "Document",
        resource_id: document,
        context_facts: [],
      };
    }),
    authorize_query: make("authorize_query", () => ({
      query: { ...question(), context_facts: [] },
      data_bindings: RECURSIVE_BINDINGS,
    })),
  };
}

/** The body of `POST /api/authorize_query`: may `user` read `document`, with these bindings. */
export const authorizeQueryBody = (user: number, document: number, bindings = RECURSIVE_BINDINGS) =>
  JSON.stringify({
    query: {
      actor_type: "User",
      actor_id: String(user),
      action: "read",
      resource_type: "Document",
      resource_id: String(document),
      context_facts: [],
    },
    data_bindings: bindings,
  });
