/**
 * Properties of the reference evaluator over random facts (fast-check), for several policy
 * families: answers equal a hand-written model of each policy; authorize, list, actions and
 * query agree; stored and context facts give the same answers; adding facts never removes an
 * answer when the policy has no `not`. Also: 100,000 facts answer quickly, and long or cyclic
 * chains terminate.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import {
  actions,
  authorize,
  type FactIndex,
  indexFacts,
  list,
  query,
} from "../src/evaluate/index.js";
import { EXAMPLES, ent, fact, int, policy, user } from "./evaluate-support.js";
import { propertyRuns } from "./support/runs.js";

type Model = (
  facts: readonly GroundFact[],
) => (actor: Value, action: string, resource: Value) => boolean;

interface Family {
  readonly name: string;
  readonly program: Program;
  readonly actors: readonly Value[];
  readonly resources: readonly Value[];
  readonly actions: readonly string[];
  /** Every fact a random fact set may contain. */
  readonly universe: readonly GroundFact[];
  readonly model: Model;
  readonly usesNot: boolean;
}

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);
const users = ids("u", 3).map(user);
const actors = [...users, user("stranger")];
const key = (value: Value) => `${value.type}:${value.id}`;

/** Facts of `predicate` as lookups: `has(facts, "has_role", u, "owner", w)`. */
function has(
  facts: readonly GroundFact[],
  predicate: string,
  ...args: (Value | string)[]
): boolean {
  const wanted = args.map((arg) => (typeof arg === "string" ? `String:${arg}` : key(arg)));
  return facts.some(
    (f) =>
      f.predicate === predicate &&
      f.args.length === wanted.length &&
      f.args.every((arg, i) => key(arg) === wanted[i]),
  );
}

function related(facts: readonly GroundFact[], subject: Value, relation: string): Value[] {
  return facts
    .filter(
      (f) =>
        f.predicate === "has_relation" &&
        key(f.args[0]!) === key(subject) &&
        f.args[1]!.id === relation &&
        f.args[1]!.type === "String",
    )
    .map((f) => f.args[2]!);
}

function product<T>(...lists: (readonly T[])[]): T[][] {
  return lists.reduce<T[][]>(
    (acc, items) => acc.flatMap((row) => items.map((item) => [...row, item])),
    [[]],
  );
}

// ---------------------------------------------------------------- families

const workspaces = ids("w", 3).map((id) => ent("Workspace", id));
const rbac: Family = {
  name: "RBAC with a role hierarchy",
  program: policy(EXAMPLES.rbac),
  actors,
  resources: [...workspaces, ent("Nope", "w0")],
  actions: ["read", "write", "invite", "fly"],
  universe: product<Value | string>(users, ["viewer", "editor", "owner"], workspaces).map((args) =>
    fact("has_role", ...args),
  ),
  usesNot: false,
  model: (facts) => (actor, action, resource) => {
    const role = (r: string) => has(facts, "has_role", actor, r, resource);
    const owner = role("owner");
    const editor = owner || role("editor");
    const viewer = editor || role("viewer");
    return { read: viewer, write: editor, invite: owner }[action] ?? false;
  },
};

const folderIds = ids("f", 4).map((id) => ent("Folder", id));
const documents = ids("d", 2).map((id) => ent("Document", id));
const folders: Family = {
  name: "recursive folders with cycles",
  program: policy(EXAMPLES.folders),
  actors,
  resources: [...folderIds, ...documents],
  actions: ["list", "upload", "open", "edit"],
  universe: [
    ...product<Value | string>(users, ["reader", "writer"], folderIds).map((a) =>
      fact("has_role", ...a),
    ),
    ...product<Value | string>(folderIds, ["parent"], folderIds).map((a) =>
      fact("has_relation", ...a),
    ),
    ...product<Value | string>(documents, ["folder"], folderIds).map((a) =>
      fact("has_relation", ...a),
    ),
  ],
  usesNot: false,
  model: (facts) => (actor, action, resource) => {
    // Folders reachable by parent edges (including the folder itself), cycles allowed.
    const ancestors = (start: Value) => {
      const seen = new Map([[key(start), start]]);
      const queue = [start];
      for (let next = queue.pop(); next; next = queue.pop()) {
        for (const parent of related(facts, next, "parent")) {
          if (!seen.has(key(parent))) {
            seen.set(key(parent), parent);
            queue.push(parent);
          }
        }
      }
      return [...seen.values()];
    };
    const writer = (f: Value) =>
      ancestors(f).some((a) => has(facts, "has_role", actor, "writer", a));
    const reader = (f: Value) =>
      ancestors(f).some(
        (a) =>
          has(facts, "has_role", actor, "reader", a) || has(facts, "has_role", actor, "writer", a),
      );
    if (resource.type === "Folder") {
      return action === "list" ? reader(resource) : action === "upload" && writer(resource);
    }
    const inFolders = related(facts, resource, "folder");
    if (action === "open") return inFolders.some(reader);
    return action === "edit" && inFolders.some(writer);
  },
};

const nestedWorkspaces = ids("w", 2).map((id) => ent("Workspace", id));
const projects = ids("p", 2).map((id) => ent("Project", id));
const tickets = ids("t", 3).map((id) => ent("Ticket", id));
const nested: Family = {
  name: "nested relations with `on`",
  program: policy(EXAMPLES.nested),
  actors,
  resources: [...projects, ...tickets],
  actions: ["view", "edit", "comment", "close"],
  universe: [
    ...product<Value | string>(users, ["member", "admin"], nestedWorkspaces).map((a) =>
      fact("has_role", ...a),
    ),
    ...product<Value | string>(users, ["contributor", "maintainer"], projects).map((a) =>
      fact("has_role", ...a),
    ),
    ...product<Value | string>(projects, ["workspace"], nestedWorkspaces).map((a) =>
      fact("has_relation", ...a),
    ),
    ...product<Value | string>(tickets, ["project"], projects).map((a) =>
      fact("has_relation", ...a),
    ),
    ...product<Value | string>(tickets, ["reporter"], users).map((a) => fact("has_relation", ...a)),
  ],
  usesNot: false,
  model: (facts) => (actor, action, resource) => {
    const role = (r: string, on: Value) => has(facts, "has_role", actor, r, on);
    const admin = (w: Value) => role("admin", w);
    const member = (w: Value) => role("member", w) || admin(w);
    const maintainer = (p: Value) =>
      role("maintainer", p) || related(facts, p, "workspace").some(admin);
    const contributor = (p: Value) =>
      role("contributor", p) || maintainer(p) || related(facts, p, "workspace").some(member);
    if (resource.type === "Project") {
      return action === "view" ? contributor(resource) : action === "edit" && maintainer(resource);
    }
    const view = related(facts, resource, "project").some(contributor);
    if (action === "view" || action === "comment") return view;
    if (action !== "close") return false;
    const reporter = related(facts, resource, "reporter").some((r) => key(r) === key(actor));
    return reporter || related(facts, resource, "project").some(maintainer);
  },
};

const teams = ids("team", 2).map((id) => ent("Team", id));
const global: Family = {
  name: "global roles",
  program: policy(EXAMPLES.global),
  actors,
  resources: teams,
  actions: ["view", "manage"],
  universe: [
    ...product<Value | string>(users, ["support", "superuser"]).map((a) => fact("has_role", ...a)),
    ...product<Value | string>(users, ["member", "lead"], teams).map((a) => fact("has_role", ...a)),
  ],
  usesNot: false,
  model: (facts) => (actor, action, resource) => {
    const superuser = has(facts, "has_role", actor, "superuser");
    const support = superuser || has(facts, "has_role", actor, "support");
    const lead = has(facts, "has_role", actor, "lead", resource);
    const member = lead || has(facts, "has_role", actor, "member", resource);
    return action === "view" ? member || support : action === "manage" && (lead || superuser);
  },
};

const attributeProjects = ids("p", 2).map((id) => ent("Project", id));
const attributes: Family = {
  name: "attributes and `not`",
  program: policy(EXAMPLES.attributes),
  actors,
  resources: tickets,
  actions: ["view", "edit"],
  universe: [
    ...product<Value | string>(users, ["member"], attributeProjects).map((a) =>
      fact("has_role", ...a),
    ),
    ...product<Value | string>(tickets, ["project"], attributeProjects).map((a) =>
      fact("has_relation", ...a),
    ),
    ...tickets.map((t) => fact("is_confidential", t)),
    ...product<Value | string>(tickets, ["closed", "open"]).map((a) => fact("has_status", ...a)),
    ...tickets.flatMap((t) => [fact("is_public", t, { type: "Boolean", id: "true" })]),
    ...product<Value>(users, [int(2), int(3), int(5)]).map((a) => fact("has_clearance", ...a)),
  ],
  usesNot: true,
  model: (facts) => (actor, action, ticket) => {
    const confidential = has(facts, "is_confidential", ticket);
    const member = related(facts, ticket, "project").some((p) =>
      has(facts, "has_role", actor, "member", p),
    );
    const cleared = [3, 5].some((level) => has(facts, "has_clearance", actor, int(level)));
    const isPublic = has(facts, "is_public", ticket, { type: "Boolean", id: "true" });
    const view = (member && !confidential) || isPublic || (confidential && cleared);
    if (action === "view") return view;
    return action === "edit" && view && !has(facts, "has_status", ticket, "closed");
  },
};

const families = [rbac, folders, nested, global, attributes];

// ---------------------------------------------------------------- properties

const factSets = (family: Family) => fc.subarray([...family.universe]);
const runs = { numRuns: propertyRuns(20, 60) };

describe.each(families)("$name", (family) => {
  it("answers exactly as a hand-written model of the policy", () => {
    fc.assert(
      fc.property(factSets(family), (facts) => {
        const index = indexFacts(facts);
        const expected = family.model(facts);
        for (const [actor, action, resource] of product<unknown>(
          family.actors,
          family.actions,
          family.resources,
        )) {
          const a = actor as Value;
          const r = resource as Value;
          const x = action as string;
          expect(authorize(family.program, index, a, x, r), `${key(a)} ${x} ${key(r)}`).toBe(
            expected(a, x, r),
          );
        }
      }),
      runs,
    );
  });

  it("authorize holds exactly when list and actions include the answer", () => {
    fc.assert(
      fc.property(factSets(family), (facts) => {
        const index = indexFacts(facts);
        const types = [...new Set(family.resources.map((r) => r.type))];
        for (const actor of family.actors) {
          const lists = new Map(
            product<unknown>(family.actions, types).map(([x, type]) => [
              `${x} ${type}`,
              list(family.program, index, actor, x as string, type as string),
            ]),
          );
          for (const resource of family.resources) {
            const allowed = actions(family.program, index, actor, resource);
            expect(allowed).toEqual([...allowed].sort());
            for (const x of family.actions) {
              const yes = authorize(family.program, index, actor, x, resource);
              // "*" is a wildcard answer: every id (or action) of the type.
              const listed = lists.get(`${x} ${resource.type}`)!;
              expect(listed.includes(resource.id) || listed.includes("*")).toBe(yes);
              expect(allowed.includes(x) || allowed.includes("*")).toBe(yes);
            }
          }
        }
      }),
      runs,
    );
  });

  it("query rows list the same triples as authorize", () => {
    fc.assert(
      fc.property(factSets(family), (facts) => {
        const index = indexFacts(facts);
        for (const type of new Set(family.resources.map((r) => r.type))) {
          const rows = query(family.program, index, {
            predicate: ["allow", ["a", "x", "r"]],
            constraints: {
              a: { type: "User", ids: null },
              x: { type: "String", ids: null },
              r: { type, ids: null },
            },
          });
          // A null (wildcard) stands for every value of the domain.
          const expand = (id: string | null | undefined, domain: readonly string[]) =>
            id === null || id === undefined ? domain : domain.includes(id) ? [id] : [];
          const resourceIds = family.resources.filter((r) => r.type === type).map((r) => r.id);
          const fromQuery = new Set(
            rows.flatMap((row) =>
              product(
                expand(
                  row.a,
                  family.actors.map((a) => a.id),
                ),
                expand(row.x, family.actions),
                expand(row.r, resourceIds),
              ).map((triple) => triple.join(" ")),
            ),
          );
          const fromAuthorize = new Set<string>();
          for (const actor of family.actors) {
            for (const resource of family.resources.filter((r) => r.type === type)) {
              for (const x of family.actions) {
                if (authorize(family.program, index, actor, x, resource)) {
                  fromAuthorize.add(`${actor.id} ${x} ${resource.id}`);
                }
              }
            }
          }
          expect(fromQuery).toEqual(fromAuthorize);
        }
      }),
      runs,
    );
  });

  it("gives the same answers for stored facts, context facts, or a mix", () => {
    fc.assert(
      fc.property(
        factSets(family).chain((facts) => fc.tuple(fc.constant(facts), fc.subarray(facts))),
        ([facts, moved]) => {
          const stored = indexFacts(facts);
          const empty = indexFacts([]);
          const rest = indexFacts(facts.filter((f) => !moved.includes(f)));
          for (const actor of family.actors) {
            for (const resource of family.resources) {
              const answer = actions(family.program, stored, actor, resource);
              expect(
                actions(family.program, empty, actor, resource, { contextFacts: facts }),
              ).toEqual(answer);
              expect(
                actions(family.program, rest, actor, resource, { contextFacts: moved }),
              ).toEqual(answer);
            }
          }
        },
      ),
      runs,
    );
  });
});

describe.each(families.filter((family) => !family.usesNot))("$name without `not`", (family) => {
  it("never loses an answer when facts are added", () => {
    fc.assert(
      fc.property(
        factSets(family).chain((facts) =>
          fc.tuple(fc.constant(facts), fc.subarray([...family.universe])),
        ),
        ([facts, extra]) => {
          const before = indexFacts(facts);
          const after = indexFacts([...facts, ...extra]);
          for (const actor of family.actors) {
            for (const resource of family.resources) {
              const more = new Set(actions(family.program, after, actor, resource));
              for (const x of actions(family.program, before, actor, resource))
                expect(more.has(x)).toBe(true);
            }
          }
        },
      ),
      runs,
    );
  });
});

describe("a policy with `not`", () => {
  it("can lose an answer when a fact is added, so monotonicity is not vacuous", () => {
    const ticket = ent("Ticket", "t0");
    const facts = [
      fact("has_role", user("u0"), "member", ent("Project", "p0")),
      fact("has_relation", ticket, "project", ent("Project", "p0")),
    ];
    expect(authorize(attributes.program, facts, user("u0"), "view", ticket)).toBe(true);
    const more = [...facts, fact("is_confidential", ticket)];
    expect(authorize(attributes.program, more, user("u0"), "view", ticket)).toBe(false);
  });
});

describe("termination and scale", () => {
  const folderPolicy = folders.program;

  it("terminates on cyclic parent chains and long chains", () => {
    const ring: GroundFact[] = folderIds.map((f, i) =>
      fact("has_relation", f, "parent", folderIds[(i + 1) % folderIds.length]!),
    );
    expect(list(folderPolicy, ring, user("u0"), "list", "Folder")).toEqual([]);
    ring.push(fact("has_role", user("u0"), "reader", folderIds[2]!));
    expect(list(folderPolicy, ring, user("u0"), "list", "Folder")).toEqual([
      "f0",
      "f1",
      "f2",
      "f3",
    ]);

    const depth = 5000;
    const chain = [fact("has_role", user("ada"), "writer", ent("Folder", "c0"))];
    for (let i = 1; i <= depth; i++) {
      chain.push(
        fact("has_relation", ent("Folder", `c${i}`), "parent", ent("Folder", `c${i - 1}`)),
      );
    }
    const index = indexFacts(chain);
    expect(authorize(folderPolicy, index, user("ada"), "upload", ent("Folder", `c${depth}`))).toBe(
      true,
    );
    expect(authorize(folderPolicy, index, user("bo"), "upload", ent("Folder", `c${depth}`))).toBe(
      false,
    );
    expect(list(folderPolicy, index, user("ada"), "list", "Folder")).toHaveLength(depth + 1);
  });

  it("authorizes over 100,000 facts", () => {
    // Speed is measured in bench/; this checks answers at that size.
    const program = policy(EXAMPLES.folders);
    const facts = bigFolderData();
    expect(facts.length).toBe(100_000);
    const index: FactIndex = indexFacts(facts);
    let allowed = 0;
    const questions = 200;
    for (let i = 0; i < questions; i++) {
      const actor = user(`u${(i * 17) % 5000}`);
      const document = ent("Document", `d${(i * 31) % 40000}`);
      if (authorize(program, index, actor, i % 2 ? "open" : "edit", document)) allowed++;
    }
    expect(allowed).toBeGreaterThan(0);
    expect(allowed).toBeLessThan(questions);
  });
});

/** 20,000 folders in a tree of fan-out 3, 40,000 documents, 40,000 folder roles. */
function bigFolderData(): GroundFact[] {
  const facts: GroundFact[] = [];
  const folderCount = 20_000;
  for (let i = 1; i < folderCount; i++) {
    facts.push(
      fact(
        "has_relation",
        ent("Folder", `f${i}`),
        "parent",
        ent("Folder", `f${Math.floor((i - 1) / 3)}`),
      ),
    );
  }
  for (let i = 0; i < 40_000; i++) {
    facts.push(
      fact(
        "has_relation",
        ent("Document", `d${i}`),
        "folder",
        ent("Folder", `f${(i * 7) % folderCount}`),
      ),
    );
  }
  for (let i = 0; facts.length < 100_000; i++) {
    const role = i % 2 ? "reader" : "writer";
    facts.push(
      fact("has_role", user(`u${i % 5000}`), role, ent("Folder", `f${(i * 13) % folderCount}`)),
    );
  }
  return facts;
}
