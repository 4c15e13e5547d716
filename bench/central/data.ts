/**
 * Seeded fact generator for the central-engine bench: organizations with folder trees up to 8
 * deep, documents in folders, organization memberships and folder roles — `total` facts in all,
 * produced in batches so that the generator itself holds only a few typed arrays.
 *
 *   const data = benchData({ total: 1_000_000, seed: 42 });
 *   for (const batch of data.batches(10_000)) await store.applyBatch([{ inserts: batch }]);
 *
 * Organization `o0` is the list fixture: `u-lister` is its admin, so it may read exactly its
 * `LIST_SIZE` documents.
 */
import type { GroundFact, Value } from "../../src/core/value.js";

export const LIST_SIZE = 10_000;
export const LISTER = "u-lister";
const FOLDERS_PER_ORG = 100;
const TOP_FOLDERS = 3;
const MAX_DEPTH = 8;
const ORGS_PER_USER = 3;
const FOLDER_ROLES_PER_USER = 12;
const FOLDER_ROLES = ["viewer", "viewer", "viewer", "editor", "editor", "owner"];

export interface BenchSize {
  readonly users: number;
  readonly organizations: number;
  readonly folders: number;
  readonly documents: number;
  readonly memberships: number;
  readonly folderRoles: number;
  readonly total: number;
}

export interface AuthorizeQuestion {
  readonly label: string;
  readonly user: string;
  readonly action: string;
  readonly resourceType: string;
  readonly resourceId: string;
}

export interface BenchData {
  readonly size: BenchSize;
  batches(size: number): Iterable<GroundFact[]>;
  /** Authorize questions drawn over the generated data (same seed, same questions). */
  questions(count: number): AuthorizeQuestion[];
}

/** mulberry32: small, fast, good enough for data shapes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const value = (type: string, id: string): Value => ({ type, id });
const str = (id: string): Value => ({ type: "String", id });

/** Sizes for `total` facts: 6% memberships, 10% folders, 24% folder roles, the rest documents. */
export function sizeFor(total: number): BenchSize {
  const organizations = Math.max(2, Math.round(total / 1000));
  const folders = organizations * FOLDERS_PER_ORG;
  const users = Math.max(10, Math.round(total / 50));
  const memberships = users * ORGS_PER_USER + 1;
  const folderRoles = users * FOLDER_ROLES_PER_USER;
  const documents = total - memberships - folders - folderRoles;
  if (documents < LIST_SIZE + organizations)
    throw new Error(`${total} facts are too few for the list fixture; use at least 100000`);
  return { users, organizations, folders, documents, memberships, folderRoles, total };
}

export function benchData(options: { total: number; seed: number }): BenchData {
  const size = sizeFor(options.total);
  const random = seededRandom(options.seed);
  const pick = (n: number) => Math.floor(random() * n);

  // Folder f belongs to organization floor(f / FOLDERS_PER_ORG); -1 parent marks a top folder.
  const parent = new Int32Array(size.folders).fill(-1);
  const depth = new Uint8Array(size.folders);
  for (let f = 0; f < size.folders; f++) {
    const k = f % FOLDERS_PER_ORG;
    if (k < TOP_FOLDERS) continue;
    const base = f - k;
    let p = base + pick(k);
    if (depth[p]! >= MAX_DEPTH - 1) p = base + pick(TOP_FOLDERS);
    parent[f] = p;
    depth[f] = depth[p]! + 1;
  }
  // Organization 0 holds LIST_SIZE documents; the rest share the remainder.
  const otherDocs = size.documents - LIST_SIZE;
  const docOrg = (d: number) =>
    d < LIST_SIZE
      ? 0
      : 1 + Math.floor(((d - LIST_SIZE) * (size.organizations - 1)) / Math.max(1, otherDocs));
  const docFolder = new Int32Array(size.documents);
  for (let d = 0; d < size.documents; d++)
    docFolder[d] = docOrg(d) * FOLDERS_PER_ORG + pick(FOLDERS_PER_ORG);
  // Users join organizations other than the fixture's.
  const userOrgs = new Int32Array(size.users * ORGS_PER_USER);
  for (let u = 0; u < size.users; u++) {
    const chosen = new Set<number>();
    while (chosen.size < ORGS_PER_USER) chosen.add(1 + pick(size.organizations - 1));
    userOrgs.set([...chosen], u * ORGS_PER_USER);
  }
  // Folder roles: FOLDER_ROLES_PER_USER distinct folders inside the user's organizations.
  const roleFolder = new Int32Array(size.users * FOLDER_ROLES_PER_USER);
  const roleKind = new Uint8Array(size.users * FOLDER_ROLES_PER_USER);
  for (let u = 0; u < size.users; u++) {
    const chosen = new Set<number>();
    while (chosen.size < FOLDER_ROLES_PER_USER) {
      const org = userOrgs[u * ORGS_PER_USER + pick(ORGS_PER_USER)]!;
      chosen.add(org * FOLDERS_PER_ORG + pick(FOLDERS_PER_ORG));
    }
    roleFolder.set([...chosen], u * FOLDER_ROLES_PER_USER);
    for (let i = 0; i < FOLDER_ROLES_PER_USER; i++)
      roleKind[u * FOLDER_ROLES_PER_USER + i] = pick(FOLDER_ROLES.length);
  }
  const isBelow = (folder: number, ancestor: number) => {
    for (let f = folder; f >= 0; f = parent[f]!) if (f === ancestor) return true;
    return false;
  };

  function* facts(): Generator<GroundFact> {
    yield fact("has_role", value("User", LISTER), str("admin"), value("Organization", "o0"));
    for (let u = 0; u < size.users; u++) {
      for (let i = 0; i < ORGS_PER_USER; i++) {
        const org = userOrgs[u * ORGS_PER_USER + i]!;
        const role = (u * 7 + i) % 50 === 0 ? "admin" : "member";
        yield fact("has_role", value("User", `u${u}`), str(role), value("Organization", `o${org}`));
      }
    }
    for (let f = 0; f < size.folders; f++) {
      const p = parent[f]!;
      yield p < 0
        ? fact(
            "has_relation",
            value("Folder", `f${f}`),
            str("organization"),
            value("Organization", `o${Math.floor(f / FOLDERS_PER_ORG)}`),
          )
        : fact("has_relation", value("Folder", `f${f}`), str("parent"), value("Folder", `f${p}`));
    }
    for (let d = 0; d < size.documents; d++) {
      yield fact(
        "has_relation",
        value("Document", `d${d}`),
        str("folder"),
        value("Folder", `f${docFolder[d]}`),
      );
    }
    for (let u = 0; u < size.users; u++) {
      for (let i = 0; i < FOLDER_ROLES_PER_USER; i++) {
        const at = u * FOLDER_ROLES_PER_USER + i;
        const role = FOLDER_ROLES[roleKind[at]!]!;
        yield fact(
          "has_role",
          value("User", `u${u}`),
          str(role),
          value("Folder", `f${roleFolder[at]}`),
        );
      }
    }
  }

  return {
    size,
    *batches(batchSize) {
      let batch: GroundFact[] = [];
      for (const f of facts()) {
        batch.push(f);
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
    questions(count) {
      const ask = seededRandom(options.seed + 1);
      const draw = (n: number) => Math.floor(ask() * n);
      const questions: AuthorizeQuestion[] = [];
      for (let i = 0; i < count; i++) {
        const u = draw(size.users);
        const action = ["read", "read", "write", "delete"][draw(4)]!;
        if (i % 3 === 0) {
          // Below one of the user's role folders: read is granted, often through ancestors.
          const at = u * FOLDER_ROLES_PER_USER + draw(FOLDER_ROLES_PER_USER);
          const d = documentBelow(roleFolder[at]!);
          if (d !== null) {
            questions.push(question("below a role folder", u, "read", d));
            continue;
          }
        }
        if (i % 3 === 1) {
          const org = userOrgs[u * ORGS_PER_USER + draw(ORGS_PER_USER)]!;
          questions.push(question("own organization", u, action, documentOf(org)));
        } else {
          questions.push(question("any document", u, action, LIST_SIZE + draw(otherDocs)));
        }
      }
      return questions;

      function documentBelow(folder: number): number | null {
        const org = Math.floor(folder / FOLDERS_PER_ORG);
        const [lo, hi] = documentRange(org);
        const start = lo + draw(Math.max(1, hi - lo));
        for (let k = 0; k < hi - lo; k++) {
          const d = lo + ((start - lo + k) % (hi - lo));
          if (isBelow(docFolder[d]!, folder)) return d;
        }
        return null;
      }

      function documentOf(org: number): number {
        const [lo, hi] = documentRange(org);
        return lo + draw(Math.max(1, hi - lo));
      }

      function documentRange(org: number): [number, number] {
        // Documents of an organization are contiguous; find the range by bisection.
        let lo = org === 0 ? 0 : LIST_SIZE;
        let hi = size.documents;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (docOrg(mid) < org) lo = mid + 1;
          else hi = mid;
        }
        let end = lo;
        while (end < size.documents && docOrg(end) === org) end++;
        return [lo, end];
      }
    },
  };
}

function fact(predicate: string, ...args: Value[]): GroundFact {
  return { predicate, args };
}

function question(label: string, u: number, action: string, d: number): AuthorizeQuestion {
  return { label, user: `u${u}`, action, resourceType: "Document", resourceId: `d${d}` };
}
