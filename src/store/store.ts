/**
 * The fact store: facts and the active policy in PostgreSQL (embedded PGlite by default, a
 * server for scale). Writes are batches applied atomically and in order; every fact is checked
 * against the active policy before anything is written.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { checkPolicyInSlices } from "../check/check.js";
import type { Program } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { postgres } from "../dialects/postgres/index.js";
import { sqlite } from "../dialects/sqlite/index.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { policyState } from "./active-policy.js";
import { run } from "./compile.js";
import { DEFAULT_ENVIRONMENT, placeEnvironment } from "./environment.js";
import type { ReadMessages, SqlExecutor } from "./executor.js";
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
import {
  openReplicas,
  type ReplicaOptions,
  type Replicas,
  type StandbyStatus,
} from "./replicas.js";
import { META_TABLE, migrate, POLICY_TABLE } from "./schema.js";
import { openSqliteStore, SQLITE_FILE } from "./sqlite-store.js";
import { planStatistics } from "./statistics.js";
import { policyFileName, type StoredPolicy, toStoredText } from "./stored-text.js";
import { executorOnThread } from "./thread-executor.js";
import { startStoreThread } from "./threads.js";
import {
  canonicalPattern,
  hasNul,
  StoreError,
  validateInserts,
  validatePattern,
} from "./validate.js";

export type { ReplicaOptions, StandbyStatus } from "./replicas.js";
export type { StoredPolicy } from "./stored-text.js";
export { StoreError } from "./validate.js";

export type Changeset =
  | { readonly inserts: readonly GroundFact[] }
  | { readonly deletes: readonly FactPattern[] };

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
  /**
   * Hot standbys of the PostgreSQL server that answer questions (src/store/replicas.ts);
   * writes, policy changes, migrations and LISTEN stay on the primary.
   */
  readonly replicas?: ReplicaOptions;
  /**
   * The environment whose store this is (src/store/environment.ts): `default` (the default)
   * lives where the options say; another one in a schema or directory of its own beside it.
   */
  readonly environment?: string;
}

/** Where one question reads, and what it sees there. */
export interface ReadHead {
  /** The checked policy there, or null when none was ever stored. */
  readonly program: Program | null;
  /** The data version the reader has (at least) replayed: its answers are at least this fresh. */
  readonly dataVersion: number;
  /** Where the question's statements run: the primary or a standby. */
  readonly db: SqlExecutor;
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
   * Where a question reads, with the policy and data version it sees there: a standby that has
   * replayed `atLeast` (the `OsoOffset` the request carries), else the primary caught up to it.
   */
  head(atLeast?: number): Promise<ReadHead>;
  /** The standbys and their state (none without replicas). */
  standbys(): readonly StandbyStatus[];
  /** How the primary's recurring reads went in messages; null where they go one by one. */
  readMessages(): ReadMessages | null;
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
  if (options.replicas && options.replicas.urls.length > 0 && !options.databaseUrl)
    throw new Error("read replicas need a PostgreSQL server (databaseUrl)");
  const placed = await placeEnvironment(options, options.environment ?? DEFAULT_ENVIRONMENT);
  const db = await openExecutor(placed);
  await migrate(db);
  const store = createStore(db, options.policyRefreshMs ?? 1000);
  // SQLite has no notifications: each question reads the data version (a point read),
  // unless the file is the store's own (temporary): then only its commits move it.
  if (options.follow !== false && db.engine === "postgres") await store.follow();
  if (db.engine === "sqlite" && !placed.dataDir) await store.alone();
  if (placed.replicas && placed.replicas.urls.length > 0) await store.readFrom(placed.replicas);
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

type OpeningStore = FactStore & {
  follow(): Promise<void>;
  alone(): Promise<void>;
  readFrom(replicas: ReplicaOptions): Promise<void>;
};

function createStore(db: SqlExecutor, refreshMs: number): OpeningStore {
  let replicas: Replicas | null = null;
  // The standbys read their heads again when the primary moves (never trusting the notice).
  const state = policyState(db, refreshMs, (version) => replicas?.primaryMoved(version));
  const statistics = planStatistics(db);

  /** The next data version, announced to the other instances when the transaction commits. */
  async function bumpVersion(tx: SqlExecutor): Promise<number> {
    if (tx.engine === "sqlite") {
      const [row] = await run(
        tx,
        sql<{ value: string }>`UPDATE ${sql.table(META_TABLE)}
          SET value = CAST(CAST(value AS integer) + 1 AS text)
          WHERE key = 'data_version' RETURNING value`,
      );
      return Number(row!.value);
    }
    const rows = await run(
      tx,
      sql<{ value: string }>`WITH bumped AS (
         UPDATE ${sql.table(META_TABLE)} SET value = (value::bigint + 1)::text
         WHERE key = 'data_version' RETURNING value)
       SELECT value, pg_notify(${CHANGES_CHANNEL}, current_schema() || ':' || value) FROM bumped`,
    );
    return Number(rows[0]!.value);
  }

  /** Applies validated changesets in one transaction; the number of facts they changed. */
  async function write(tx: SqlExecutor, changesets: readonly Changeset[]): Promise<number> {
    let changed = 0;
    for (const changeset of changesets) {
      if ("inserts" in changeset) {
        await insertFacts(tx, changeset.inserts);
        changed += changeset.inserts.length;
        continue;
      }
      // Exact facts go in one statement by key; patterns with wildcards one by one.
      const exact = changeset.deletes.map(exactFact);
      changed += await deleteExactFacts(
        tx,
        exact.filter((fact) => fact !== null),
      );
      for (const [i, pattern] of changeset.deletes.entries())
        if (!exact[i]) changed += await deleteFacts(tx, pattern);
    }
    return changed;
  }

  return {
    db,
    dialect: db.engine === "sqlite" ? sqlite : postgres,
    follow: () => state.follow(CHANGES_CHANNEL),
    alone: () => state.alone(),
    async readFrom(options) {
      replicas = await openReplicas(options, db, () => state.dataVersion());
    },
    async applyBatch(changesets) {
      const program = (await state.load())?.program ?? null;
      // Validate everything before the transaction so a bad fact costs no write at all.
      const prepared = changesets.map(
        (changeset): Changeset =>
          "inserts" in changeset
            ? { inserts: validateInserts(program, changeset.inserts) }
            : { deletes: changeset.deletes.map(validatePattern).filter((p) => p !== null) },
      );
      let changed = 0;
      const version = await db.transaction(async (tx) => {
        const version = await bumpVersion(tx);
        changed = await write(tx, prepared);
        return version;
      });
      state.committed(version);
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
      state.committed(version);
      await statistics.cleared();
      return version;
    },
    async setPolicy(src, filename, prepare) {
      const current = await state.loadFresh();
      if (current && current.policy.src === src) return "unchanged";
      const checked = await checkPolicyInSlices([{ name: policyFileName(filename), text: src }]);
      if (!checked.ok) throw invalidPolicy(checked.diagnostics);
      await prepare?.(checked.program);
      const { version, row } = await db.transaction(async (tx) => {
        const stored = filename === null ? null : toStoredText(filename);
        const [inserted] = await run(
          tx,
          sql<{ version: string }>`INSERT INTO ${sql.table(POLICY_TABLE)} (src, filename)
            VALUES (${toStoredText(src)}, ${stored}) RETURNING version`,
        );
        return { row: Number(inserted!.version), version: await bumpVersion(tx) };
      });
      state.committed(version);
      // The program just checked is the active one: reading it back does not check it again.
      state.setActive({ version: row, policy: { src, filename }, program: checked.program });
      await state.loadFresh();
      return "updated";
    },
    async policy() {
      return (await state.load())?.policy ?? null;
    },
    async program() {
      return (await state.load())?.program ?? null;
    },
    dataVersion: () => state.dataVersion(),
    async head(atLeast) {
      const standby = await replicas?.choose(atLeast);
      if (standby) {
        const { policyVersion, dataVersion, db: on } = standby;
        const active = policyVersion === null ? null : await state.atVersion(on, policyVersion);
        return { program: active?.program ?? null, dataVersion, db: on };
      }
      if (atLeast !== undefined) await state.catchUp(atLeast);
      const { active, version } = await state.head();
      return { program: active?.program ?? null, dataVersion: version, db };
    },
    standbys: () => replicas?.status() ?? [],
    readMessages: () => db.readMessages?.() ?? null,
    catchUp: (version) => state.catchUp(version),
    async close() {
      await replicas?.close();
      await db.close();
    },
  };
}

/** The first error's message alone, as `POST /api/policy` has always answered. */
function invalidPolicy(diagnostics: readonly Diagnostic[]): StoreError {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const first = errors[0];
  return new StoreError(
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
