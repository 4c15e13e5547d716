/**
 * The fact store: facts and the active policy in PostgreSQL (embedded PGlite by default, a
 * server for scale). Writes are batches applied atomically and in order; every fact is checked
 * against the active policy before anything is written.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { checkPolicyInSlices } from "../check/check.js";
import { canonicalFact, canonicalValue, checkFact, checkFactValue } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { formatFact, type GroundFact } from "../core/value.js";
import type { Dialect } from "../print/dialect.js";
import { postgres } from "../print/postgres.js";
import { sqlite } from "../print/sqlite.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { Problem } from "../source/problems.js";
import { StageError } from "../source/stage-error.js";
import { placeholders, type SqlExecutor } from "./executor.js";
import {
  clearFacts,
  deleteExactFacts,
  deleteFacts,
  exactFact,
  type FactPattern,
  insertFacts,
  readFacts,
  type SparseFactPattern,
  type ValuePattern,
} from "./facts.js";
import { emptyImagePath } from "./pglite-setup.js";
import { openPostgres } from "./postgres-executor.js";
import { FACT_TABLE, MAX_FACT_ARITY, META_TABLE, migrate, POLICY_TABLE } from "./schema.js";
import { openSqliteStore, SQLITE_FILE } from "./sqlite-store.js";
import { executorOnThread } from "./thread-executor.js";
import { startStoreThread } from "./threads.js";

export type Changeset =
  | { readonly inserts: readonly GroundFact[] }
  | { readonly deletes: readonly FactPattern[] };

export interface StoredPolicy {
  readonly src: string;
  readonly filename: string | null;
}

/**
 * A request the store refuses; nothing was written. HTTP maps it to 400. `diagnostics` are
 * the checker's (a policy's errors, a fact's problem).
 */
export class StoreError extends StageError {
  override readonly name = "StoreError";
  constructor(
    problem: Problem,
    readonly diagnostics: readonly Diagnostic[] = [],
    summary?: string,
  ) {
    super(problem, null, summary);
  }
}

/** The databases that can run in this process when no server is named. */
export const EMBEDDED_STORES = ["pglite", "sqlite"] as const;
export type EmbeddedStore = (typeof EMBEDDED_STORES)[number];

export interface StoreOptions {
  /** PostgreSQL connection URL; omitted means an embedded database (`embedded`). */
  readonly databaseUrl?: string;
  /**
   * The embedded database: SQLite (better-sqlite3, the default: about 100 MB resident and a
   * first answer in half a second, bench/RESULTS.md) or PGlite (PostgreSQL in WebAssembly).
   */
  readonly embedded?: EmbeddedStore;
  /** The embedded database's directory; omitted means in memory. */
  readonly dataDir?: string;
  /** PGlite's `postgresql.conf` lines; the embedded settings by default (pglite-setup.ts). */
  readonly pgliteSettings?: readonly string[];
  /** How long another instance's policy change may go unnoticed (ms); default 1000. */
  readonly policyRefreshMs?: number;
  /**
   * Follow other instances' writes by LISTEN/NOTIFY (default true). False, e.g. behind a
   * connection pooler in transaction mode, which cannot LISTEN: every question reads the data
   * version, and the policy is read again after `policyRefreshMs` or when `catchUp` asks.
   */
  readonly follow?: boolean;
}

interface ActivePolicy {
  readonly version: number;
  readonly policy: StoredPolicy;
  readonly program: Program;
}

export interface FactStore {
  readonly db: SqlExecutor;
  /** The dialect the store's questions are printed in (PostgreSQL or SQLite). */
  readonly dialect: Dialect;
  /** Applies changesets in order in one transaction; returns the new data version. */
  applyBatch(changesets: readonly Changeset[]): Promise<number>;
  readFacts(pattern: SparseFactPattern): Promise<GroundFact[]>;
  /** Deletes every fact, keeps the policy; returns the new data version. */
  clear(): Promise<number>;
  /**
   * Checks and stores a policy; an invalid policy is rejected and the active one stays. The
   * check gives the event loop back every few milliseconds. `prepare`, when given, is awaited
   * with the checked program before it becomes active (the service plans the questions in
   * use with it, so that none waits for planning after the switch).
   */
  setPolicy(
    src: string,
    filename: string | null,
    prepare?: (program: Program) => Promise<void>,
  ): Promise<"updated" | "unchanged">;
  policy(): Promise<StoredPolicy | null>;
  /** The checked active policy, or null when none was ever stored. */
  program(): Promise<Program | null>;
  dataVersion(): Promise<number>;
  /**
   * Makes sure a write that another instance acknowledged with this data version (the
   * `OsoOffset` a client sends back) is seen here: reads the version, and the policy with it,
   * when this instance has not yet heard of it. Read-your-writes across instances.
   */
  catchUp(version: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens (and migrates) a store. */
export async function openStore(options: StoreOptions = {}): Promise<FactStore> {
  const db = await openExecutor(options);
  await migrate(db);
  const store = createStore(db, options.policyRefreshMs ?? 1000);
  // SQLite has no notifications: each question reads the data version (a point read).
  if (options.follow !== false && db.engine === "postgres") await store.follow();
  return store;
}

async function openExecutor(options: StoreOptions): Promise<SqlExecutor> {
  if (options.databaseUrl) return openPostgres({ connectionString: options.databaseUrl });
  const embedded = options.embedded ?? "sqlite";
  if (options.dataDir) refuseOtherStore(options.dataDir, embedded);
  const dataDir = options.dataDir ? { dataDir: options.dataDir } : {};
  if (embedded === "sqlite") return openSqliteStore(dataDir);
  // PGlite runs a statement on the thread that calls it: one thread of its own.
  const thread = await startStoreThread({
    engine: "pglite",
    ...dataDir,
    ...(options.pgliteSettings && { settings: options.pgliteSettings }),
    imagePath: await emptyImagePath(),
  });
  return executorOnThread(thread, "postgres");
}

/**
 * Every write notifies this channel with `<schema>:<new data version>` for the other
 * instances. Channels are per database, and one database may hold several stores in several
 * schemas: each store follows only its own schema's notices.
 */
const CHANGES_CHANNEL = "polar_sql_changes";

function createStore(db: SqlExecutor, refreshMs: number): FactStore & { follow(): Promise<void> } {
  let active: ActivePolicy | null = null;
  let checkedAt = -Infinity;
  // While notifications are followed, the data version is known without asking, and the
  // policy is re-read only after a change; otherwise both are read as before (policy: TTL).
  let following = false;
  let knownVersion: number | null = null;
  let policyStale = true;
  // The data version when the policy was last read (for `catchUp` when not following).
  let policyReadAt = -1;

  function learnVersion(version: number): void {
    if (knownVersion !== null && version <= knownVersion) return;
    knownVersion = version;
    policyStale = true;
  }

  async function loadActive(): Promise<ActivePolicy | null> {
    if (db.engine === "sqlite") {
      // Reads are local: every question asks for the newest policy's version (its primary
      // key's last entry), so another process's policy is seen at once.
      const [newest] = await db.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${POLICY_TABLE}`,
      );
      if ((newest?.version ?? null) === (active?.version ?? null) && policyReadAt >= 0)
        return active;
    } else {
      const fresh = following ? !policyStale : Date.now() - checkedAt < refreshMs;
      if (fresh) return active;
    }
    policyStale = false; // before reading: a change noticed meanwhile reads again
    policyReadAt = await storedVersion();
    const rows = await db.query<{ version: string; src: string; filename: string | null }>(
      `SELECT version, src, filename FROM ${POLICY_TABLE} ORDER BY version DESC LIMIT 1`,
    );
    checkedAt = Date.now();
    const row = rows[0];
    if (!row) {
      active = null;
      return null;
    }
    if (active && active.version === Number(row.version)) return active;
    const policy = {
      src: fromStoredText(row.src),
      filename: row.filename === null ? null : fromStoredText(row.filename),
    };
    const checked = await checkPolicyInSlices([
      { name: policyFileName(policy.filename), text: policy.src },
    ]);
    // A stored policy was valid when stored; it can only fail after an incompatible upgrade.
    if (!checked.ok)
      throw new Error(`stored policy no longer checks: ${checked.diagnostics[0]?.message}`);
    active = { version: Number(row.version), policy, program: checked.program };
    return active;
  }

  /** The next data version, announced to the other instances when the transaction commits. */
  async function bumpVersion(tx: SqlExecutor): Promise<number> {
    if (tx.engine === "sqlite") {
      const [row] = await tx.query<{ value: string }>(
        `UPDATE ${META_TABLE} SET value = CAST(CAST(value AS integer) + 1 AS text)
         WHERE key = 'data_version' RETURNING value`,
      );
      return Number(row!.value);
    }
    const rows = await tx.query<{ value: string }>(
      `WITH bumped AS (
         UPDATE ${META_TABLE} SET value = (value::bigint + 1)::text WHERE key = 'data_version'
         RETURNING value)
       SELECT value, pg_notify('${CHANGES_CHANNEL}', current_schema() || ':' || value) FROM bumped`,
    );
    return Number(rows[0]!.value);
  }

  /** After this instance's own commit: known at once, without waiting for the notification. */
  function committed(version: number): number {
    if (following && knownVersion !== null && version > knownVersion) knownVersion = version;
    return version;
  }

  function validateInserts(program: Program | null, facts: readonly GroundFact[]): GroundFact[] {
    return facts.map((fact) => {
      // PostgreSQL text cannot hold NUL: refuse it here rather than fail inside the transaction.
      if (hasNul(fact.predicate) || fact.args.some((a) => hasNul(a.type) || hasNul(a.id))) {
        throw new StoreError({ code: "P507", kind: "fact-nul", fact: formatFact(fact) });
      }
      if (fact.args.length > MAX_FACT_ARITY) {
        throw new StoreError({
          code: "P508",
          kind: "fact-arity",
          fact: formatFact(fact),
          limit: MAX_FACT_ARITY,
        });
      }
      const problem = program
        ? checkFact(program, fact)
        : fact.args.map(checkFactValue).find((d) => d !== null);
      if (problem) {
        const { code, message: reason } = problem;
        const invalid = { code, kind: "invalid-fact", reason, fact: formatFact(fact) } as const;
        throw new StoreError(invalid, [problem]);
      }
      return canonicalFact(fact);
    });
  }

  const statistics = planStatistics(db);

  return {
    db,
    dialect: db.engine === "sqlite" ? sqlite : postgres,
    async follow() {
      const [{ schema } = { schema: "" }] = await db.query<{ schema: string }>(
        "SELECT current_schema() AS schema",
      );
      const ours = `${schema}:`;
      await db.listen(CHANGES_CHANNEL, {
        notice: (payload) => {
          if (!payload.startsWith(ours)) return;
          const version = Number(payload.slice(ours.length));
          if (Number.isSafeInteger(version)) learnVersion(version);
        },
        lost: () => {
          following = false;
          knownVersion = null;
        },
        listening: () => {
          following = true;
          policyStale = true;
        },
      });
      following = true;
    },
    async applyBatch(changesets) {
      const program = (await loadActive())?.program ?? null;
      // Validate everything before the transaction so a bad fact costs no write at all.
      const prepared = changesets.map(
        (changeset): Changeset =>
          "inserts" in changeset
            ? { inserts: validateInserts(program, changeset.inserts) }
            : { deletes: changeset.deletes.map(validatePattern).filter((p) => p !== null) },
      );
      let changed = 0;
      const version = await db.transaction(async (tx) => {
        changed = 0;
        const version = await bumpVersion(tx);
        for (const changeset of prepared) {
          if ("inserts" in changeset) {
            await insertFacts(tx, changeset.inserts);
            changed += changeset.inserts.length;
          } else {
            // Exact facts go in one statement by key; patterns with wildcards one by one.
            const exact = changeset.deletes.map(exactFact);
            changed += await deleteExactFacts(
              tx,
              exact.filter((fact) => fact !== null),
            );
            for (const [i, pattern] of changeset.deletes.entries())
              if (!exact[i]) changed += await deleteFacts(tx, pattern);
          }
        }
        return version;
      });
      committed(version);
      await statistics.changed(changed);
      return version;
    },
    async readFacts(pattern) {
      if (hasNul(pattern.predicate)) return [];
      const positions = new Map<number, Partial<ValuePattern>>();
      for (const [index, arg] of pattern.positions) {
        if (hasNul(arg.type) || hasNul(arg.id)) return [];
        positions.set(index, canonicalPattern(arg));
      }
      return readFacts(db, { predicate: pattern.predicate, positions });
    },
    async clear() {
      const version = await db.transaction(async (tx) => {
        const version = await bumpVersion(tx);
        await clearFacts(tx);
        return version;
      });
      committed(version);
      await statistics.cleared();
      return version;
    },
    async setPolicy(src, filename, prepare) {
      const current = await loadActiveFresh();
      if (current && current.policy.src === src) return "unchanged";
      const checked = await checkPolicyInSlices([{ name: policyFileName(filename), text: src }]);
      if (!checked.ok) {
        const errors = checked.diagnostics.filter((d) => d.severity === "error");
        const first = errors[0];
        // The first error's message alone, as `POST /api/policy` has always answered.
        throw new StoreError(
          {
            code: first?.code ?? "P001",
            kind: "invalid-policy",
            first: first?.message ?? null,
            errors: errors.length,
          },
          errors,
          first?.message ?? "invalid policy",
        );
      }
      await prepare?.(checked.program);
      const { version, row } = await db.transaction(async (tx) => {
        const [inserted] = await tx.query<{ version: string }>(
          `INSERT INTO ${POLICY_TABLE} (src, filename) VALUES (${placeholders(db.engine, 2).join(", ")}) RETURNING version`,
          [toStoredText(src), filename === null ? null : toStoredText(filename)],
        );
        return { row: Number(inserted!.version), version: await bumpVersion(tx) };
      });
      committed(version);
      // The program just checked is the active one: reading it back does not check it again.
      active = { version: row, policy: { src, filename }, program: checked.program };
      await loadActiveFresh();
      return "updated";
    },
    async policy() {
      return (await loadActive())?.policy ?? null;
    },
    async program() {
      return (await loadActive())?.program ?? null;
    },
    async dataVersion() {
      if (following && knownVersion !== null) return knownVersion;
      return readVersion();
    },
    async catchUp(version) {
      if (following) {
        // Learning the version refreshes the policy and every cache keyed by the version.
        if (knownVersion === null || version > knownVersion) await readVersion();
        return;
      }
      // Not following, each question reads the data version already; only the policy lags.
      if (version > policyReadAt) checkedAt = -Infinity;
    },
    close: () => db.close(),
  };

  async function storedVersion(): Promise<number> {
    const rows = await db.query<{ value: string }>(
      `SELECT value FROM ${META_TABLE} WHERE key = 'data_version'`,
    );
    return Number(rows[0]?.value ?? 0);
  }

  /** The data version as stored, learned when following. */
  async function readVersion(): Promise<number> {
    const version = await storedVersion();
    if (following) learnVersion(version);
    return version;
  }

  async function loadActiveFresh(): Promise<ActivePolicy | null> {
    checkedAt = -Infinity;
    policyStale = true;
    return loadActive();
  }
}

/**
 * A directory holding the other embedded store's data is refused: opened as it is, it would
 * look empty (before SQLite became the default, `--data` meant a PGlite directory).
 */
function refuseOtherStore(dir: string, embedded: EmbeddedStore): void {
  const pglite = existsSync(join(dir, "PG_VERSION"));
  const sqlite = existsSync(join(dir, SQLITE_FILE));
  if (embedded === "sqlite" && pglite && !sqlite) {
    throw new Error(
      `${dir} holds a PGlite store; open it with \`--store pglite\` (library: \`embedded: "pglite"\`), or give another directory`,
    );
  }
  if (embedded === "pglite" && sqlite && !pglite) {
    throw new Error(
      `${dir} holds a SQLite store; open it with \`--store sqlite\` (the default), or give another directory`,
    );
  }
}

/** Rows changed since the last ANALYZE that make statistics stale: 1000 plus half the table. */
const ANALYZE_MIN_CHANGES = 1000;
const ANALYZE_FRACTION = 0.5;

/**
 * Keeps the fact table's planner statistics fresh. PGlite runs no autovacuum, so without this
 * the table is never analyzed and PostgreSQL plans questions with default estimates, picking the
 * index of a constant argument (`i1 = 'folder'`) over the bound id: 100× slower questions on
 * 100k facts. Runs after the write committed; a failure only leaves statistics stale.
 */
function planStatistics(db: SqlExecutor) {
  let changedSince = 0;
  let rowsAtAnalyze: number | null = null;
  async function rowEstimate(): Promise<number> {
    if (db.engine === "sqlite") {
      const [row] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${FACT_TABLE}`);
      return Number(row?.n ?? 0);
    }
    const [row] = await db.query<{ n: number }>(
      `SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = to_regclass('${FACT_TABLE}')`,
    );
    return Number(row?.n ?? 0);
  }
  async function changed(rows: number): Promise<void> {
    changedSince += rows;
    if (changedSince < ANALYZE_MIN_CHANGES) return;
    try {
      rowsAtAnalyze ??= await rowEstimate();
      if (changedSince < ANALYZE_MIN_CHANGES + ANALYZE_FRACTION * rowsAtAnalyze) return;
      await db.query(`ANALYZE ${FACT_TABLE}`);
      rowsAtAnalyze = await rowEstimate();
      changedSince = 0;
    } catch {
      // Statistics are an optimization; the write itself has committed.
    }
  }
  return {
    changed,
    /** Every row is gone: as many changes as the table had. */
    cleared: () => changed(rowsAtAnalyze ?? 0),
  };
}

/** The pattern with canonical Integer ids; null when it cannot match a stored fact (NUL). */
function validatePattern(pattern: FactPattern): FactPattern | null {
  pattern.args.forEach((arg, i) => {
    if (arg.type === null && arg.id !== null) {
      throw new StoreError({
        code: "P509",
        kind: "pattern-id-without-type",
        predicate: pattern.predicate,
        position: i + 1,
      });
    }
  });
  if (hasNul(pattern.predicate) || pattern.args.some((a) => hasNul(a.type) || hasNul(a.id)))
    return null;
  return { predicate: pattern.predicate, args: pattern.args.map(canonicalPattern) };
}

/** `{Integer, "007"}` matches the stored `{Integer, "7"}`. */
function canonicalPattern<P extends Partial<ValuePattern>>(arg: P): P {
  if (arg.type == null || arg.id == null) return arg;
  return { ...arg, id: canonicalValue({ type: arg.type, id: arg.id }).id };
}

function hasNul(text: string | null | undefined): boolean {
  return text?.includes("\u0000") ?? false;
}

function policyFileName(filename: string | null): string {
  return filename || "policy.polar";
}

/**
 * PostgreSQL text holds no NUL, yet a policy's comments and filename may: such a text (or one
 * with U+0001, the escape character) is stored as `\u0001!` followed by the text with U+0001
 * written `\u0001a` and NUL `\u0001z`. Other texts are stored as they are; none of them
 * holds U+0001, so none is mistaken for an escaped one.
 */
const ESCAPED = "\u0001!";

function toStoredText(text: string): string {
  if (!/[\u0000\u0001]/.test(text)) return text;
  return ESCAPED + text.replace(/[\u0000\u0001]/g, (c) => (c === "\u0000" ? "\u0001z" : "\u0001a"));
}

function fromStoredText(stored: string): string {
  if (!stored.startsWith(ESCAPED)) return stored;
  return stored
    .slice(ESCAPED.length)
    .replace(/\u0001([az])/g, (_, code: string) => (code === "z" ? "\u0000" : "\u0001"));
}
