/**
 * Explain never lies: over the policy families of the differential tests and over random
 * policies, with random facts spread over stored, context and local sources, for every actor,
 * action and resource, explain's `allowed` equals `authorize`'s, and the independent checker
 * accepts every tree (each proof is a valid derivation; each call said to fail is false).
 * Longer runs with POLAR_SQL_LONG=1.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explainResponseSchema } from "../src/api/wire.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { authorize, explain } from "../src/evaluate/index.js";
import {
  attributes,
  attributesSpace,
  blocked,
  blockedSpace,
  customAllow,
  customAllowSpace,
  extendsFamily,
  extendsSpace,
  folders,
  foldersSpace,
  globalRoles,
  globalSpace,
  levels,
  levelsSpace,
  mutual,
  mutualParity,
  mutualParitySpace,
  mutualSelf,
  mutualSelfSpace,
  mutualSpace,
  mutualTypes,
  mutualTypesSpace,
  nested,
  nestedSpace,
  rbac,
  rbacSpace,
} from "./local-families.js";
import type { Family } from "./local-support.js";
import { check } from "./support/explain-checker.js";
import { randomPolicy } from "./support/explain-policies.js";

const LONG = process.env.POLAR_SQL_LONG === "1";
const NOW = 1_700_000_000n;
const SOURCES = ["stored", "context", "local"] as const;
type Source = (typeof SOURCES)[number];

function programOf(text: string): Program {
  const result = checkPolicy([{ name: "policy.polar", text }]);
  if (!result.ok)
    throw new Error(`policy does not check:\n${text}\n${result.diagnostics[0]?.message}`);
  return result.program;
}

const routed = (space: readonly GroundFact[], maxLength: number) =>
  fc.array(fc.record({ fact: fc.constantFrom(...space), to: fc.constantFrom(...SOURCES) }), {
    maxLength,
  });

interface Round {
  readonly program: Program;
  readonly actors: readonly Value[];
  readonly actions: readonly string[];
  readonly resources: readonly Value[];
  readonly facts: readonly { fact: GroundFact; to: Source }[];
}

/** Asks every question; returns how many were allowed and how many asked. */
function askAll(round: Round): { allowed: number; asked: number } {
  const { program } = round;
  const bySource: Record<Source, GroundFact[]> = { stored: [], context: [], local: [] };
  for (const { fact, to } of round.facts) bySource[to].push(fact);
  const all = round.facts.map((f) => f.fact);
  let allowed = 0;
  let asked = 0;
  for (const actor of round.actors) {
    for (const action of round.actions) {
      for (const resource of round.resources) {
        const expected = authorize(program, all, actor, action, resource, { now: () => NOW });
        const result = explain(program, { actor, action, resource }, bySource.stored, {
          contextFacts: bySource.context,
          localFacts: bySource.local,
          now: () => NOW,
        });
        const question = `${actor.id} ${action} ${resource.type}:${resource.id}`;
        explainResponseSchema.parse(result); // exactly the documented node format
        expect(result.allowed, question).toBe(expected);
        expect(result.explanation.holds, question).toBe(expected);
        expect(check({ program, facts: bySource, now: NOW }, result.explanation), question).toEqual(
          [],
        );
        asked++;
        if (expected) allowed++;
      }
    }
  }
  return { allowed, asked };
}

const families: [Family, GroundFact[]][] = [
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
];

describe("explain agrees with authorize and every tree checks", () => {
  it.each(families.map(([family, space]) => ({ name: family.name, family, space })))(
    "$name",
    ({ family, space }) => {
      const program = programOf(family.policy);
      const resources = family.resourceTypes.flatMap((type) =>
        (family.domain[type] ?? []).map((id) => ({ type, id })),
      );
      let allowed = 0;
      let asked = 0;
      fc.assert(
        fc.property(routed(space, 16), (facts) => {
          const found = askAll({
            program,
            actors: family.actors,
            actions: family.actions,
            resources,
            facts,
          });
          allowed += found.allowed;
          asked += found.asked;
        }),
        // The whole space, stored, as one example: some questions are always allowed.
        { numRuns: LONG ? 60 : 8, examples: [[space.map((fact) => ({ fact, to: "stored" }))]] },
      );
      expect(allowed).toBeGreaterThan(0);
      expect(allowed).toBeLessThan(asked);
    },
  );

  it("random policies", () => {
    let allowed = 0;
    fc.assert(
      fc.property(
        randomPolicy.chain((policy) => fc.tuple(fc.constant(policy), routed(policy.space, 20))),
        ([policy, facts]) => {
          const program = programOf(policy.text);
          allowed += askAll({ program, ...policy, facts }).allowed;
        },
      ),
      { numRuns: LONG ? 300 : 40 },
    );
    expect(allowed).toBeGreaterThan(0);
  });
});
