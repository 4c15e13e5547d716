/**
 * Who gains and who loses which access if the candidate policy replaced the active one, over
 * the facts of a store (docs/policy-preview.md). Each side's `allow` is compiled per
 * (actor type, permission, resource type) as one set question (src/preview/question.ts), and
 * the difference runs in the store, one statement per such entry (src/preview/sql.ts); entries
 * whose two statements print the same text cannot differ and are skipped.
 */

import type { Program } from "../check/program.js";
import { type WorkBudget, withBudget } from "../core/budget.js";
import { DeadlineExceeded } from "../core/deadline.js";
import type { GroundFact } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { type CentralFacts, NO_CENTRAL_FACTS } from "../plan/resolve/central-facts.js";
import { storeBindings } from "../store/bindings.js";
import type { SqlExecutor } from "../store/executor.js";
import type { FactShape } from "../store/facts.js";
import { PreviewError } from "./errors.js";
import { sideStatement } from "./question.js";
import {
  type PreviewCounts,
  type PreviewTriple,
  type TestSummary,
  testSummary,
  zeroCounts,
} from "./reply.js";
import {
  type Change,
  type EntryReading,
  type EntrySource,
  entryStatement,
  type PageAfter,
} from "./sql.js";
import {
  type PreviewPosition,
  previewHash,
  readPageToken,
  tokenSecret,
  writePageToken,
} from "./token.js";
import { contextIds, entityPlaces, type PreviewEntry, previewEntries } from "./universe.js";

export type { PreviewCounts, PreviewTriple, TestSummary };

/** A page of a preview: the HTTP reply's shape (docs/policy-preview.md). */
export interface PreviewPage {
  readonly gained: readonly PreviewTriple[];
  readonly lost: readonly PreviewTriple[];
  readonly counts: PreviewCounts;
  readonly tests: { readonly active: TestSummary; readonly candidate: TestSummary };
  readonly next_page_token?: string;
}

/** The store a preview reads: its connection, dialect and the shapes of its facts. */
export interface PreviewStore {
  readonly db: SqlExecutor;
  readonly dialect: Dialect;
  readonly shapes: readonly FactShape[];
  /** Facts the fact table does not present as bindings (zero-argument facts). */
  readonly central?: CentralFacts;
}

export interface PreviewLimits {
  /** Milliseconds the preview's statements may take, checked after each statement. */
  readonly timeMs: number;
  /** Changed triples a preview may count. */
  readonly rows: number;
}

export const DEFAULT_PREVIEW_LIMITS: PreviewLimits = { timeMs: 30_000, rows: 1_000_000 };

const PREVIEW_PAGE_SIZE = { default: 1000, max: 100_000 } as const;

export interface PreviewRequest {
  readonly active: Program;
  readonly candidate: Program;
  /** Facts that count as stored for both policies (and name entities of the universe). */
  readonly contextFacts?: readonly GroundFact[];
  readonly pageSize?: number;
  readonly pageToken?: string;
  /** The clock builtins read, in Unix seconds, the same for both policies. */
  readonly now?: () => bigint;
  readonly limits?: Partial<PreviewLimits>;
  /** Bounds on planning and on running the policies' tests. */
  readonly budget?: WorkBudget;
}

const NO_BUDGET: WorkBudget = {
  planSteps: Number.MAX_SAFE_INTEGER,
  branches: Number.MAX_SAFE_INTEGER,
  evaluationSteps: Number.MAX_SAFE_INTEGER,
};

/**
 * One page of the triples whose `allow` answer differs between the two policies.
 *
 *   const page = await previewPolicyChange(store, { active, candidate, pageSize: 100 });
 *   page.gained; // [{ actor: { type: "User", id: "bob" }, action: "push", resource: … }]
 */
export async function previewPolicyChange(
  store: PreviewStore,
  request: PreviewRequest,
): Promise<PreviewPage> {
  const limits = { ...DEFAULT_PREVIEW_LIMITS, ...request.limits };
  const deadline = Date.now() + limits.timeMs;
  const contextFacts = request.contextFacts ?? [];
  const secret = await tokenSecret(store.db);
  const preview = previewHash([
    request.active.sources.map((file) => [file.name, file.text]),
    request.candidate.sources.map((file) => [file.name, file.text]),
    contextFacts,
  ]);
  const start = request.pageToken ? readPageToken(request.pageToken, secret, preview) : null;
  const pageSize = start ? start.pageSize : pageSizeOf(request.pageSize);
  const startPart = start?.part ?? 0;
  const entries = previewEntries(request.active, request.candidate);
  const budget = request.budget ?? NO_BUDGET;
  const sides = withBudget(budget, () => compileSides(store, request, entries, contextFacts));
  const counts = zeroCounts(entries);
  const page: { part: number; triple: PreviewTriple }[] = [];
  const filled = { gained: 0, lost: 0 };
  let counted = 0;
  for (const [index, entry] of entries.entries()) {
    const [active, candidate] = sides[index]!;
    if (active === candidate) continue;
    const parts = { gained: index, lost: entries.length + index };
    const pages: EntryReading["pages"] = {};
    for (const change of ["gained", "lost"] as const) {
      const part = parts[change];
      if (part < startPart || filled[change] > pageSize) continue;
      const after = start && part === startPart ? positionAfter(start) : null;
      pages[change] = { after, limit: pageSize + 1 };
    }
    const source: EntrySource = {
      actors: universeOf(store, entry.actorType, contextFacts),
      resources: universeOf(store, entry.resourceType, contextFacts),
      active,
      candidate,
    };
    const reading = { cap: limits.rows - counted + 1, pages };
    const rows = await runEntry(store.db, source, reading, deadline).catch((cause) => {
      // The store stopped the statement at the deadline (src/core/deadline.ts).
      if (cause instanceof DeadlineExceeded) checkDeadline(0, limits.timeMs);
      throw cause;
    });
    checkDeadline(deadline, limits.timeMs);
    const tally = counts[entry.resourceType]![entry.action]!;
    for (const row of rows) {
      if (row.a === null) {
        tally[row.change] += Number(row.n);
        counted += Number(row.n);
        continue;
      }
      page.push({ part: parts[row.change], triple: tripleOf(entry, row) });
      filled[row.change]++;
    }
    if (counted > limits.rows) {
      throw new PreviewError(
        "rows-limit",
        `the change affects more than ${limits.rows} triples: over the limit of ${limits.rows} rows of a preview (raise it with the \`limits.rows\` option)`,
      );
    }
  }
  // Each entry's rows are in order; parts in page order (gained first, then entry order).
  page.sort((x, y) => x.part - y.part);
  const tests = withBudget(budget, () => ({
    active: testSummary(request.active, request.now),
    candidate: testSummary(request.candidate, request.now),
  }));
  const shown = page.slice(0, pageSize);
  const reply: PreviewPage = {
    gained: shown.filter((row) => row.part < entries.length).map((row) => row.triple),
    lost: shown.filter((row) => row.part >= entries.length).map((row) => row.triple),
    counts,
    tests,
  };
  if (page.length <= pageSize) return reply;
  const last = shown.at(-1)!;
  const position: PreviewPosition = {
    preview,
    part: last.part,
    resource: last.triple.resource.id,
    actor: last.triple.actor.id,
    pageSize,
  };
  return { ...reply, next_page_token: writePageToken(position, secret) };
}

function pageSizeOf(given: number | undefined): number {
  if (given === undefined) return PREVIEW_PAGE_SIZE.default;
  if (!Number.isSafeInteger(given) || given < 1 || given > PREVIEW_PAGE_SIZE.max) {
    throw new PreviewError(
      "invalid-page-size",
      `\`page_size\` must be an integer from 1 to ${PREVIEW_PAGE_SIZE.max}`,
    );
  }
  return given;
}

function positionAfter(position: PreviewPosition): PageAfter {
  return { resource: position.resource, actor: position.actor };
}

function checkDeadline(deadline: number, timeMs: number): void {
  if (Date.now() >= deadline) {
    throw new PreviewError(
      "time-limit",
      `the preview took more than ${timeMs} ms: over the limit of ${timeMs} milliseconds of a preview (raise it with \`--request-timeout-ms\` or the \`limits.timeMs\` option)`,
    );
  }
}

/** Each entry's statements under the active and the candidate policy (null: no rows). */
function compileSides(
  store: PreviewStore,
  request: PreviewRequest,
  entries: readonly PreviewEntry[],
  contextFacts: readonly GroundFact[],
): (readonly [string | null, string | null])[] {
  const bindings = storeBindings(store.shapes, store.dialect);
  // One clock for both sides: equal rules print equal text.
  const now = (request.now ?? (() => BigInt(Math.floor(Date.now() / 1000))))();
  const options = {
    dialect: store.dialect,
    central: store.central ?? NO_CENTRAL_FACTS,
    now,
    contextFacts,
  };
  return entries.map((entry) => [
    sideStatement(request.active, bindings, entry, options),
    sideStatement(request.candidate, bindings, entry, options),
  ]);
}

function universeOf(store: PreviewStore, type: string, contextFacts: readonly GroundFact[]) {
  return {
    type,
    places: entityPlaces(store.shapes, type),
    contextIds: contextIds(contextFacts, type),
  };
}

interface EntryRow {
  readonly change: Change;
  readonly a: string | null;
  readonly r: string | null;
  readonly n: number | string | bigint | null;
}

async function runEntry(
  db: SqlExecutor,
  source: EntrySource,
  reading: EntryReading,
  deadline: number,
): Promise<EntryRow[]> {
  const { sql, params } = entryStatement(db.engine, source, reading);
  return db.query<EntryRow>(sql, params, { deadline });
}

function tripleOf(entry: PreviewEntry, row: EntryRow): PreviewTriple {
  return {
    actor: { type: entry.actorType, id: String(row.a) },
    action: entry.action,
    resource: { type: entry.resourceType, id: String(row.r) },
  };
}
