/**
 * The preview answered by the reference evaluator, for facts held in memory (the playground's
 * editor; no store). Set-based like the store's: per (actor type, permission, resource type)
 * one `evaluate_query` question with actor and resource free, whose wildcard rows are expanded
 * over the entities the facts name. Same triples, order and counts as `previewPolicyChange`,
 * on one page. Browser-safe.
 */
import { type Program, predicateKey } from "../check/program.js";
import { compareCodePoints, type GroundFact } from "../core/value.js";
import { query } from "../evaluate/query.js";
import {
  type PreviewCounts,
  type PreviewTriple,
  type TestSummary,
  testSummary,
  zeroCounts,
} from "./reply.js";
import { type PreviewEntry, previewEntries } from "./universe.js";

export interface EvaluatedPreview {
  readonly gained: readonly PreviewTriple[];
  readonly lost: readonly PreviewTriple[];
  readonly counts: PreviewCounts;
  readonly tests: { readonly active: TestSummary; readonly candidate: TestSummary };
}

/**
 * Every changed triple of the candidate over the facts.
 *
 *   previewByEvaluation(active, candidate, facts).gained // [{ actor, action, resource }, …]
 */
export function previewByEvaluation(
  active: Program,
  candidate: Program,
  facts: readonly GroundFact[],
  options: { readonly now?: () => bigint } = {},
): EvaluatedPreview {
  const entries = previewEntries(active, candidate);
  const named = new Map<string, Set<string>>();
  for (const fact of facts) {
    for (const arg of fact.args)
      named.set(arg.type, (named.get(arg.type) ?? new Set()).add(arg.id));
  }
  const idsOf = (type: string) => [...(named.get(type) ?? [])];
  const counts = zeroCounts(entries);
  const gained: PreviewTriple[] = [];
  const lost: PreviewTriple[] = [];
  for (const entry of entries) {
    const before = allowedPairs(active, facts, entry, idsOf, options);
    const after = allowedPairs(candidate, facts, entry, idsOf, options);
    const tally = counts[entry.resourceType]![entry.action]!;
    for (const [list, plus, minus, change] of [
      [gained, after, before, "gained"],
      [lost, before, after, "lost"],
    ] as const) {
      const pairs = [...plus].filter((pair) => !minus.has(pair)).map((pair) => JSON.parse(pair));
      pairs.sort(
        ([a1, r1]: string[], [a2, r2]: string[]) =>
          compareCodePoints(r1!, r2!) || compareCodePoints(a1!, a2!),
      );
      tally[change] += pairs.length;
      for (const [actor, resource] of pairs) {
        list.push({
          actor: { type: entry.actorType, id: actor },
          action: entry.action,
          resource: { type: entry.resourceType, id: resource },
        });
      }
    }
  }
  const tests = {
    active: testSummary(active, options.now),
    candidate: testSummary(candidate, options.now),
  };
  // Entries are walked in page order, and each entry's pairs sorted as a page sorts them.
  return { gained, lost, counts, tests };
}

/** `[actor id, resource id]` pairs (as JSON) the program allows for the entry. */
function allowedPairs(
  program: Program,
  facts: readonly GroundFact[],
  entry: PreviewEntry,
  idsOf: (type: string) => string[],
  options: { readonly now?: () => bigint },
): Set<string> {
  const pairs = new Set<string>();
  if (!program.rules.has(predicateKey("allow", 3))) return pairs;
  const actors = new Set(idsOf(entry.actorType));
  const resources = new Set(idsOf(entry.resourceType));
  const rows = query(
    program,
    facts,
    {
      predicate: ["allow", ["actor", "action", "resource"]],
      constraints: {
        actor: { type: entry.actorType, ids: null },
        action: { type: "String", ids: [entry.action] },
        resource: { type: entry.resourceType, ids: null },
      },
    },
    options,
  );
  for (const row of rows) {
    const rowActors = row.actor === null ? [...actors] : actors.has(row.actor!) ? [row.actor!] : [];
    const rowResources =
      row.resource === null ? [...resources] : resources.has(row.resource!) ? [row.resource!] : [];
    for (const actor of rowActors) {
      for (const resource of rowResources) pairs.add(JSON.stringify([actor, resource]));
    }
  }
  return pairs;
}
