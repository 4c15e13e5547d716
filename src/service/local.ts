/**
 * Local questions asked of the service: the body's bindings describe the caller's database,
 * and stored facts are central facts. Steps: decode the body into a question, get its plan,
 * print it over the stored facts loaded so far; printing answers which lookups it still needs,
 * as a value, and those are read from the store (all of a round in one statement) before it
 * prints again. What was loaded is kept until the data version changes.
 */
import type { Limits } from "../api/limits.js";
import { type LocalEndpoint, localParts } from "../api/local.js";
import type { PolarService, Reading, Reply } from "../api/service.js";
import type { GroundFact, Value } from "../core/value.js";
import type { CentralFacts } from "../plan/resolve/central-facts.js";
import { printPlan } from "../print/statement.js";
import type { SqlExecutor } from "../store/executor.js";
import { matchingFactsOfEach } from "../store/fact-lookups.js";
import { type FactShape, readShapes } from "../store/facts.js";
import type { FactStore } from "../store/store.js";
import type { Clock } from "./execute.js";
import type { Planning } from "./planning.js";
import { guarded } from "./refusals.js";
import { EMPTY_PROGRAM } from "./snapshot.js";

type LocalEndpoints = Pick<
  PolarService,
  "authorizeQuery" | "actionsQuery" | "listQuery" | "evaluateQueryLocal"
>;

/** Facts a local question asked for: see `CentralFacts`. */
interface Lookup {
  readonly predicate: string;
  readonly arity: number;
  readonly pattern?: readonly (Value | null)[];
  readonly types?: readonly (string | null)[];
}

/** Stored facts held for local questions before the cache starts over. */
const MAX_LOADED_ROWS = 500_000;
/** Rounds of lookups by pattern; after them, whole predicates (a superset is still correct). */
const PATTERN_ROUNDS = 8;

/** Stored facts loaded for local questions, by lookup, for one data version. */
interface LoadedFacts {
  readonly version: number;
  readonly lookups: Map<string, GroundFact[]>;
  rows: number;
  /** Whether any stored fact can match a lookup (by predicate, arity and fixed types). */
  stored: StoredShapes | null;
}

export function localEndpoints(
  store: FactStore,
  planning: Planning,
  limits: Limits,
  clock: Clock,
): LocalEndpoints {
  let loaded: LoadedFacts = { version: -1, lookups: new Map(), rows: 0, stored: null };

  /**
   * The facts kept for `version`, read on `db`. A question at an older version (a standby
   * further behind) loads its own: what it reads must not be kept for newer questions.
   */
  async function loadedFacts(version: number, db: SqlExecutor): Promise<LoadedFacts> {
    const fresh = (): LoadedFacts => ({ version, lookups: new Map(), rows: 0, stored: null });
    if (version < loaded.version) return { ...fresh(), stored: storedShapes(await readShapes(db)) };
    if (version > loaded.version || loaded.rows > MAX_LOADED_ROWS) loaded = fresh();
    loaded.stored ??= storedShapes(await readShapes(db));
    return loaded;
  }

  async function reply(endpoint: LocalEndpoint, body: unknown, reading: Reading): Promise<Reply> {
    const deadline = Date.now() + limits.requestMs;
    const head = await store.head(reading.atLeast);
    const program = head.program ?? EMPTY_PROGRAM;
    const facts = await loadedFacts(head.dataVersion, head.db);
    const { dialect, bindings, question } = localParts(endpoint, program, body, clock);
    const plan = await planning.plan({ program, bindings, goal: question.goal }, deadline);
    for (let round = 0; ; round++) {
      const { central, missing } = lookupsOver(facts, round);
      const { sql } = printPlan(plan, bindings, question.params, question.shape, {
        ...clock,
        sources: program.sources,
        dialect,
        central,
        contextFacts: question.contextFacts,
      });
      if (missing.size === 0) return { body: { sql } };
      const found = await matchingFactsOfEach(head.db, [...missing.values()]);
      [...missing.keys()].forEach((key, index) => {
        facts.lookups.set(key, found[index]!);
        facts.rows += found[index]!.length;
      });
    }
  }

  const endpoint =
    (name: LocalEndpoint) =>
    (body: unknown, reading: Reading = {}) =>
      guarded(limits, () => reply(name, body, reading));
  return {
    authorizeQuery: endpoint("authorize_query"),
    actionsQuery: endpoint("actions_query"),
    listQuery: endpoint("list_query"),
    evaluateQueryLocal: endpoint("evaluate_query_local"),
  };
}

/**
 * The loaded facts as central facts for one printing, and the lookups it asked for that were
 * not loaded yet (by key): printing with any missing writes nothing worth running.
 */
function lookupsOver(
  facts: LoadedFacts,
  round: number,
): { central: CentralFacts; missing: Map<string, Lookup> } {
  const missing = new Map<string, Lookup>();
  const central: CentralFacts = {
    facts(predicate, arity, pattern = [], types = []) {
      const byPattern = round < PATTERN_ROUNDS;
      // No stored fact holds a NUL (PostgreSQL text cannot): nothing to look up.
      if (pattern.some((value) => value?.id.includes("\u0000"))) return NO_FACTS;
      // Nor is there anything to read where no stored fact has the shape (rules' heads).
      if (!facts.stored!(predicate, arity, pattern, types)) return NO_FACTS;
      const key = byPattern
        ? lookupKey(predicate, arity, pattern, types)
        : `*${predicate}/${arity}`;
      const known = facts.lookups.get(key);
      if (known) return known;
      missing.set(key, byPattern ? { predicate, arity, pattern, types } : { predicate, arity });
      return NO_FACTS;
    },
    complete: () => missing.size === 0,
  };
  return { central, missing };
}

/** The answer to a lookup with nothing to read (one array: nothing is kept per answer). */
const NO_FACTS: readonly GroundFact[] = Object.freeze([]) as readonly GroundFact[];

/**
 * A lookup by pattern as a key: NUL between parts (no stored id holds one, see above), SOH
 * between a value's type and id (no type name holds one).
 */
function lookupKey(
  predicate: string,
  arity: number,
  pattern: readonly (Value | null)[],
  types: readonly (string | null)[],
): string {
  let key = `${predicate}/${arity}`;
  for (const value of pattern) key += value ? `\u0000${value.type}\u0001${value.id}` : "\u0000";
  key += "\u0000|";
  for (const type of types) key += `\u0000${type ?? ""}`;
  return key;
}

type StoredShapes = (
  predicate: string,
  arity: number,
  pattern: readonly (Value | null)[],
  types: readonly (string | null)[],
) => boolean;

/**
 * A test of a lookup against the shapes of the stored facts (a superset: shapes outlive their
 * facts), so that questions over rules' heads and unstored predicates ask the store nothing.
 */
function storedShapes(shapes: readonly FactShape[]): StoredShapes {
  const byPredicate = new Map<string, (readonly string[])[]>();
  for (const shape of shapes) {
    const list = byPredicate.get(shape.predicate) ?? [];
    list.push(shape.types);
    byPredicate.set(shape.predicate, list);
  }
  return (predicate, arity, pattern, types) =>
    (byPredicate.get(predicate) ?? []).some(
      (shape) =>
        shape.length === arity &&
        shape.every((type, i) => {
          const fixed = pattern[i]?.type ?? types[i];
          return fixed === undefined || fixed === null || fixed === type;
        }),
    );
}
