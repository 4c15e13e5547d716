/**
 * Random small policy changes and facts for the preview's tests, and the brute-force answer
 * they are compared with: every (actor, action, resource) of the universe authorized one by
 * one by the reference evaluator under both policies.
 */
import fc from "fast-check";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { authorize } from "../src/evaluate/index.js";
import type { PreviewTriple } from "../src/preview/preview.js";
import { previewEntries } from "../src/preview/universe.js";

/** Lines of a policy; a policy is the declarations with a subset of these. */
const ORG_LINES = [`"read" if "member";`, `"admin" if "owner";`, `"member" if "owner";`];
const REPO_LINES = [
  `"read" if "reader";`,
  `"write" if "writer";`,
  `"reader" if "writer";`,
  `"read" if "member" on "parent";`,
  `"writer" if "owner" on "parent";`,
  `"read" if "write";`,
];
const TOP_LINES = [
  "allow(actor, action, resource) if has_permission(actor, action, resource);",
  `allow(_: User, "read", r: Repo) if is_public(r);`,
  "allow(u: User, _action, _: Repo) if is_super(u);",
  `allow(_: User, "read", _: Org);`,
  `allow(t: Team, "read", r: Repo) if has_role(t, "reader", r);`,
  `has_role(u: User, role: String, r: Repo) if t matches Team and has_group(u, t) and has_role(t, role, r);`,
  `allow(u: User, "write", _: Repo) if u = User{"root"};`,
  `allow(u: User, "admin", o: Org) if is_super(u) and has_role(u, "member", o);`,
];
const LINES = [...ORG_LINES, ...REPO_LINES, ...TOP_LINES];

/** Whether the policy's Repo declares the extra permission `delete` (a declared action). */
export interface PolicyChoice {
  readonly lines: readonly number[];
  readonly repoDelete: boolean;
}

export function policyText({ lines, repoDelete }: PolicyChoice): string {
  const chosen = (from: number, pool: readonly string[]) =>
    pool.filter((_, i) => lines.includes(from + i)).join("\n  ");
  const repoPermissions = repoDelete ? `"read", "write", "delete"` : `"read", "write"`;
  return `actor User {}
actor Team {}
resource Org {
  roles = ["member", "owner"];
  permissions = ["read", "admin"];
  ${chosen(0, ORG_LINES)}
}
resource Repo {
  roles = ["reader", "writer"];
  permissions = [${repoPermissions}];
  relations = { parent: Org };
  ${chosen(ORG_LINES.length, REPO_LINES)}
  ${repoDelete ? `"delete" if "writer";` : ""}
}
${chosen(ORG_LINES.length + REPO_LINES.length, TOP_LINES)}
`;
}

export function program(text: string): Program {
  const checked = checkPolicy([{ name: "policy.polar", text }]);
  if (!checked.ok) {
    throw new Error(`test policy does not check: ${JSON.stringify(checked.diagnostics)}`);
  }
  return checked.program;
}

/** A policy and a candidate differing by one added, removed or changed rule. */
export const policyPair: fc.Arbitrary<readonly [PolicyChoice, PolicyChoice]> = fc
  .record({
    lines: fc.uniqueArray(fc.nat({ max: LINES.length - 1 }), { maxLength: LINES.length }),
    repoDelete: fc.boolean(),
    change: fc.constantFrom("add", "remove", "change", "declare"),
    pick: fc.nat(),
    other: fc.nat(),
  })
  .map(({ lines, repoDelete, change, pick, other }) => {
    const before: PolicyChoice = { lines, repoDelete };
    const absent = [...LINES.keys()].filter((i) => !lines.includes(i));
    const added = absent.length > 0 ? absent[pick % absent.length]! : null;
    const removed = lines.length > 0 ? lines[other % lines.length]! : null;
    let after: number[] = [...lines];
    if (change === "add" && added !== null) after.push(added);
    if (change === "remove" && removed !== null) after = after.filter((i) => i !== removed);
    if (change === "change" && added !== null && removed !== null) {
      after = [...after.filter((i) => i !== removed), added];
    }
    const candidate = { lines: after, repoDelete: change === "declare" ? !repoDelete : repoDelete };
    return [before, candidate] as const;
  });

const USERS = ["u1", "u2", "u3", "root"];
const TEAMS = ["t1", "t2"];
const ORGS = ["o1", "o2"];
const REPOS = ["r1", "r2", "r3"];

const user = fc.constantFrom(...USERS).map((id) => ({ type: "User", id }));
const team = fc.constantFrom(...TEAMS).map((id) => ({ type: "Team", id }));
const org = fc.constantFrom(...ORGS).map((id) => ({ type: "Org", id }));
const repo = fc.constantFrom(...REPOS).map((id) => ({ type: "Repo", id }));
const str = (...ids: string[]) => fc.constantFrom(...ids).map((id) => ({ type: "String", id }));

const fact: fc.Arbitrary<GroundFact> = fc.oneof(
  fc.tuple(fc.oneof(user, team), str("reader", "writer"), repo).map((args) => ({
    predicate: "has_role",
    args,
  })),
  fc.tuple(user, str("member", "owner"), org).map((args) => ({ predicate: "has_role", args })),
  fc.tuple(repo, str("parent"), org).map((args) => ({ predicate: "has_relation", args })),
  repo.map((r) => ({ predicate: "is_public", args: [r] })),
  user.map((u) => ({ predicate: "is_super", args: [u] })),
  fc.tuple(user, team).map((args) => ({ predicate: "has_group", args })),
);

/** Stored facts and context facts (only `has_role` facts, which every policy declares). */
export const factsArbitrary = fc
  .record({
    stored: fc.uniqueArray(fact, { maxLength: 14, selector: (f) => JSON.stringify(f) }),
    context: fc.uniqueArray(
      fc
        .tuple(user, str("reader", "writer"), repo)
        .map((args) => ({ predicate: "has_role", args })),
      { maxLength: 2, selector: (f) => JSON.stringify(f) },
    ),
  })
  .map(({ stored, context }) => ({
    stored,
    context: context.filter((c) => !stored.some((s) => JSON.stringify(s) === JSON.stringify(c))),
  }));

/** A triple as one comparable string. */
export function tripleKey(t: PreviewTriple): string {
  return JSON.stringify([t.actor.type, t.actor.id, t.action, t.resource.type, t.resource.id]);
}

/** The brute-force preview: authorize every triple of the universe under both policies. */
export function bruteForce(
  active: Program,
  candidate: Program,
  facts: readonly GroundFact[],
): { gained: string[]; lost: string[] } {
  const entries = previewEntries(active, candidate);
  const named = new Map<string, Set<string>>();
  for (const f of facts) {
    for (const arg of f.args) named.set(arg.type, (named.get(arg.type) ?? new Set()).add(arg.id));
  }
  const gained: string[] = [];
  const lost: string[] = [];
  const now = () => 0n;
  for (const { actorType, action, resourceType } of entries) {
    for (const actorId of named.get(actorType) ?? []) {
      for (const resourceId of named.get(resourceType) ?? []) {
        const actor = { type: actorType, id: actorId };
        const resource = { type: resourceType, id: resourceId };
        const before = authorize(active, facts, actor, action, resource, { now });
        const after = authorize(candidate, facts, actor, action, resource, { now });
        const key = tripleKey({ actor, action, resource });
        if (after && !before) gained.push(key);
        if (before && !after) lost.push(key);
      }
    }
  }
  return { gained: gained.sort(), lost: lost.sort() };
}
