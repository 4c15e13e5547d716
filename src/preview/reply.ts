/**
 * The parts of a preview's reply that need no store: triples, counts and the policies' test
 * results. Browser-safe (the playground imports it through src/preview/evaluated.ts).
 */
import type { Program } from "../check/program.js";
import { runTests } from "../evaluate/test-runner.js";
import { declaredActions, type PreviewEntry } from "./universe.js";

export interface PreviewTriple {
  readonly actor: { readonly type: string; readonly id: string };
  readonly action: string;
  readonly resource: { readonly type: string; readonly id: string };
}

/** Changed triples per resource type, then permission. */
export type PreviewCounts = Record<string, Record<string, { gained: number; lost: number }>>;

/** The names of a policy's `test` blocks that pass and that fail. */
export interface TestSummary {
  readonly passed: readonly string[];
  readonly failed: readonly string[];
}

/** A count of zero for every resource type and permission of the entries. */
export function zeroCounts(entries: readonly PreviewEntry[]): PreviewCounts {
  const counts: PreviewCounts = {};
  for (const [resourceType, actions] of declaredActions(entries)) {
    counts[resourceType] = Object.fromEntries(
      actions.map((action) => [action, { gained: 0, lost: 0 }]),
    );
  }
  return counts;
}

export function testSummary(program: Program, now?: () => bigint): TestSummary {
  const report = runTests(program, now ? { now } : {});
  return {
    passed: report.tests.filter((test) => test.passed).map((test) => test.name),
    failed: report.tests.filter((test) => !test.passed).map((test) => test.name),
  };
}
