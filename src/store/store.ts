/**
 * The fact store: facts and the active policy in PostgreSQL (embedded PGlite by default, a
 * server for scale). Writes are batches applied atomically and in order; every fact is checked
 * against the active policy before anything is written.
 */
import { checkPolicy } from "../check/check.js";
import { canonicalFact, checkFact, checkFactValue } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { formatFact, type GroundFact } from "../core/value.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { openPglite, openPostgres, type SqlExecutor } from "./executor.js";
import {
  clearFacts,
  deleteFacts,
  type FactPattern,
  insertFacts,
  readFacts,
  type SparseFactPattern,
} from "./facts.js";
import { MAX_FACT_ARITY, META_TABLE, migrate, POLICY_TABLE } from "./schema.js";

export type Changeset =
  | { readonly inserts: readonly GroundFact[] }
  | { readonly deletes: readonly FactPattern[] };

export interface StoredPolicy {
  readonly src: string;
  readonly filename: string | null;
}

/** A request the store refuses; nothing was written. HTTP maps it to 400. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
  ) {
    super(message);
    this.name = "StoreError";
  }
}

export interface StoreOptions {
  /** PostgreSQL connection URL; omitted means embedded PGlite. */
  readonly databaseUrl?: string;
  /** PGlite data directory; omitted means in memory. */
  readonly dataDir?: string;
  /** How long another instance's policy change may go unnoticed (ms); default 1000. */
  readonly policyRefreshMs?: number;
}

interface ActivePolicy {
  readonly version: number;
  readonly policy: StoredPolicy;
  readonly program: Program;
}

export interface FactStore {
  readonly db: SqlExecutor;
  /** Applies changesets in order in one transaction; returns the new data version. */
  applyBatch(changesets: readonly Changeset[]): Promise<number>;
  readFacts(pattern: SparseFactPattern): Promise<GroundFact[]>;
  /** Deletes every fact, keeps the policy; returns the new data version. */
  clear(): Promise<number>;
  /** Checks and stores a policy; an invalid policy is rejected and the active one stays. */
  setPolicy(src: string, filename: string | null): Promise<"updated" | "unchanged">;
  policy(): Promise<StoredPolicy | null>;
  /** The checked active policy, or null when none was ever stored. */
  program(): Promise<Program | null>;
  dataVersion(): Promise<number>;
  close(): Promise<void>;
}

/** Opens (and migrates) a store. */
export async function openStore(options: StoreOptions = {}): Promise<FactStore> {
  const db = options.databaseUrl
    ? await openPostgres({ connectionString: options.databaseUrl })
    : await openPglite(options.dataDir ? { dataDir: options.dataDir } : {});
  await migrate(db);
  return createStore(db, options.policyRefreshMs ?? 1000);
}

function createStore(db: SqlExecutor, refreshMs: number): FactStore {
  let active: ActivePolicy | null = null;
  let checkedAt = -Infinity;

  async function loadActive(): Promise<ActivePolicy | null> {
    if (Date.now() - checkedAt < refreshMs) return active;
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
    const policy = { src: row.src, filename: row.filename };
    const checked = checkPolicy([{ name: policyFileName(policy.filename), text: policy.src }]);
    // A stored policy was valid when stored; it can only fail after an incompatible upgrade.
    if (!checked.ok)
      throw new Error(`stored policy no longer checks: ${checked.diagnostics[0]?.message}`);
    active = { version: Number(row.version), policy, program: checked.program };
    return active;
  }

  async function bumpVersion(tx: SqlExecutor): Promise<number> {
    const rows = await tx.query<{ value: string }>(
      `UPDATE ${META_TABLE} SET value = (value::bigint + 1)::text WHERE key = 'data_version' RETURNING value`,
    );
    return Number(rows[0]!.value);
  }

  function validateInserts(program: Program | null, facts: readonly GroundFact[]): GroundFact[] {
    return facts.map((fact) => {
      if (fact.args.length > MAX_FACT_ARITY) {
        throw new StoreError(
          `facts with more than ${MAX_FACT_ARITY} arguments are not supported: ${tickFact(fact)}`,
        );
      }
      const problem = program
        ? checkFact(program, fact)
        : fact.args.map(checkFactValue).find((d) => d !== null);
      if (problem) throw new StoreError(`${problem.message}: ${tickFact(fact)}`, [problem]);
      return canonicalFact(fact);
    });
  }

  return {
    db,
    async applyBatch(changesets) {
      const program = (await loadActive())?.program ?? null;
      // Validate everything before the transaction so a bad fact costs no write at all.
      const prepared = changesets.map(
        (changeset): Changeset =>
          "inserts" in changeset
            ? { inserts: validateInserts(program, changeset.inserts) }
            : { deletes: changeset.deletes.map(validatePattern) },
      );
      return db.transaction(async (tx) => {
        const version = await bumpVersion(tx);
        for (const changeset of prepared) {
          if ("inserts" in changeset) await insertFacts(tx, changeset.inserts);
          else for (const pattern of changeset.deletes) await deleteFacts(tx, pattern);
        }
        return version;
      });
    },
    readFacts: (pattern) => readFacts(db, pattern),
    clear: () =>
      db.transaction(async (tx) => {
        const version = await bumpVersion(tx);
        await clearFacts(tx);
        return version;
      }),
    async setPolicy(src, filename) {
      const current = await loadActiveFresh();
      if (current && current.policy.src === src) return "unchanged";
      const checked = checkPolicy([{ name: policyFileName(filename), text: src }]);
      if (!checked.ok) {
        const errors = checked.diagnostics.filter((d) => d.severity === "error");
        throw new StoreError(errors[0]?.message ?? "invalid policy", errors);
      }
      await db.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${POLICY_TABLE} (src, filename) VALUES ($1, $2)`, [
          src,
          filename,
        ]);
        await bumpVersion(tx);
      });
      checkedAt = -Infinity;
      await loadActive();
      return "updated";
    },
    async policy() {
      return (await loadActive())?.policy ?? null;
    },
    async program() {
      return (await loadActive())?.program ?? null;
    },
    async dataVersion() {
      const rows = await db.query<{ value: string }>(
        `SELECT value FROM ${META_TABLE} WHERE key = 'data_version'`,
      );
      return Number(rows[0]?.value ?? 0);
    },
    close: () => db.close(),
  };

  async function loadActiveFresh(): Promise<ActivePolicy | null> {
    checkedAt = -Infinity;
    return loadActive();
  }
}

function validatePattern(pattern: FactPattern): FactPattern {
  pattern.args.forEach((arg, i) => {
    if (arg.type === null && arg.id !== null) {
      throw new StoreError(
        `argument ${i + 1} of a \`${pattern.predicate}\` delete pattern has an id but no type`,
      );
    }
  });
  return pattern;
}

function policyFileName(filename: string | null): string {
  return filename || "policy.polar";
}

function tickFact(fact: GroundFact): string {
  return `\`${formatFact(fact)}\``;
}
