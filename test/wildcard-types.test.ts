/**
 * The types an untyped wildcard of `POST /query` may stand for (src/api/wildcard-types.ts):
 * hand-written cases, and a property: no type left out has an answer (the reference evaluator
 * finds nothing for any combination that uses a type outside the candidates).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateTypes, type WildcardSources } from "../src/api/wildcard-types.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { query } from "../src/evaluate/index.js";
import type { FactShape } from "../src/store/facts.js";
import {
  attributes,
  attributesSpace,
  customAllow,
  customAllowSpace,
  folders,
  foldersSpace,
  nested,
  nestedSpace,
  rbac,
  rbacSpace,
  routedFacts,
} from "./local-families.js";
import { checked } from "./local-support.js";

const RUNS = Number(process.env.WILDCARD_RUNS ?? (process.env.POLAR_SQL_LONG ? 40 : 6));

function shapesOf(facts: readonly GroundFact[]): FactShape[] {
  const shapes = new Map<string, FactShape>();
  for (const fact of facts) {
    const types = fact.args.map((a) => a.type);
    shapes.set(JSON.stringify([fact.predicate, types]), { predicate: fact.predicate, types });
  }
  return [...shapes.values()];
}

function sources(program: Program, facts: readonly GroundFact[] = [], context: GroundFact[] = []) {
  return { program, shapes: shapesOf(facts), contextFacts: context } satisfies WildcardSources;
}

const sortedSet = (set: ReadonlySet<string>) => [...set].sort();

describe("candidate types", () => {
  const program = checked(nested.policy);

  it("a shorthand head gives its literal and its block's type", () => {
    const s = sources(program);
    expect(sortedSet(candidateTypes(s, "has_role", 3, 1))).toEqual(["String"]);
    expect(sortedSet(candidateTypes(s, "has_role", 3, 2))).toEqual(["Project", "Workspace"]);
    // `actor: Actor` in generated heads: every actor type.
    expect(sortedSet(candidateTypes(s, "has_role", 3, 0))).toEqual(["User"]);
  });

  it("the default allow follows its body into has_permission", () => {
    const s = sources(program);
    expect(sortedSet(candidateTypes(s, "allow", 3, 2))).toEqual(["Project", "Ticket"]);
    expect(sortedSet(candidateTypes(s, "allow", 3, 1))).toEqual(["String"]);
  });

  it("stored fact shapes and context facts add their types", () => {
    const stored: GroundFact[] = [
      {
        predicate: "has_role",
        args: [
          { type: "User", id: "a" },
          { type: "String", id: "member" },
          { type: "Workspace", id: "w" },
        ],
      },
    ];
    const context: GroundFact[] = [
      {
        predicate: "has_relation",
        args: [
          { type: "Ticket", id: "t" },
          { type: "String", id: "reporter" },
          { type: "User", id: "u" },
        ],
      },
    ];
    const s = sources(program, stored, context);
    expect(sortedSet(candidateTypes(s, "has_role", 3, 2))).toEqual(["Project", "Workspace"]);
    expect(sortedSet(candidateTypes(s, "has_relation", 3, 2))).toEqual(["User"]);
    expect(sortedSet(candidateTypes(sources(program), "has_relation", 3, 2))).toEqual([]);
  });

  it("recursion, matches, or, and an unconstrained variable", () => {
    const p = checked(`actor User {}
resource Folder { relations = { parent: Folder }; }
ancestor(a, b) if has_relation(a, "parent", b);
ancestor(a, c) if ancestor(a, b) and ancestor(b, c);
kind(x) if x matches User or x matches Folder;
same(x, y) if x = y;
`);
    const stored: GroundFact[] = [
      {
        predicate: "has_relation",
        args: [
          { type: "Folder", id: "1" },
          { type: "String", id: "parent" },
          { type: "Folder", id: "2" },
        ],
      },
    ];
    const s = sources(p, stored);
    expect(sortedSet(candidateTypes(s, "ancestor", 2, 0))).toEqual(["Folder"]);
    expect(sortedSet(candidateTypes(s, "ancestor", 2, 1))).toEqual(["Folder"]);
    expect(sortedSet(candidateTypes(s, "kind", 1, 0))).toEqual(["Folder", "User"]);
    expect(sortedSet(candidateTypes(s, "same", 2, 0))).toEqual([
      "Boolean",
      "Folder",
      "Integer",
      "String",
      "User",
    ]);
  });
});

const families = [
  { family: rbac, space: rbacSpace },
  { family: nested, space: nestedSpace },
  { family: folders, space: foldersSpace },
  { family: attributes, space: attributesSpace },
  { family: customAllow, space: customAllowSpace },
];

function* product(lists: readonly (readonly string[])[]): Generator<string[]> {
  if (lists.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = lists;
  for (const tail of product(rest)) for (const head of first!) yield [head, ...tail];
}

describe.each(families)("no answer is left out: $family.name", ({ family, space }) => {
  const program = checked(family.policy);
  const types = [...program.types.values()].filter((t) => t.kind !== "abstract").map((t) => t.name);
  it("every combination using a type outside the candidates has no solution", () => {
    fc.assert(
      fc.property(routedFacts(space, ["central", "context"], 10), (routed) => {
        const stored = routed.filter((r) => r.to === "central").map((r) => r.fact);
        const context = routed.filter((r) => r.to === "context").map((r) => r.fact);
        const s = sources(program, stored, context);
        const predicates = new Set<string>(program.rules.keys());
        for (const fact of space) predicates.add(`${fact.predicate}/${fact.args.length}`);
        for (const key of predicates) {
          const [name, arityText] = key.split("/");
          const arity = Number(arityText);
          if (arity > 3) continue;
          const candidates = Array.from({ length: arity }, (_, i) =>
            candidateTypes(s, name!, arity, i),
          );
          for (const combination of product(Array.from({ length: arity }, () => types))) {
            if (combination.every((type, i) => candidates[i]!.has(type))) continue;
            const variables = combination.map((_, i) => `v${i}`);
            const rows = query(
              program,
              stored,
              {
                predicate: [name!, variables],
                constraints: Object.fromEntries(
                  combination.map((type, i) => [`v${i}`, { type, ids: null }]),
                ),
              },
              { contextFacts: context, now: () => 1_700_000_000n },
            );
            expect(rows, `${key} as (${combination.join(", ")})`).toEqual([]);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
