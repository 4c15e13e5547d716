/**
 * Which policy is active and which data version this instance has seen. While the store
 * follows other instances' writes (LISTEN on PostgreSQL), the data version is known without
 * asking and the policy is read again only after a change; otherwise the version is read for
 * every question and the policy after `refreshMs` (SQLite: whenever a newer one was stored).
 */

import { sql } from "kysely";
import { checkPolicyInSlices } from "../check/check.js";
import type { Program } from "../check/program.js";
import { run } from "./compile.js";
import type { SqlExecutor } from "./executor.js";
import { META_TABLE, POLICY_TABLE } from "./schema.js";
import { fromStoredText, policyFileName, type StoredPolicy } from "./stored-text.js";

const policyTable = sql.table(POLICY_TABLE);
const metaTable = sql.table(META_TABLE);

interface ActivePolicy {
  readonly version: number;
  readonly policy: StoredPolicy;
  readonly program: Program;
}

/** What the store asks of the active policy and the data version. */
export interface PolicyState {
  /** The active policy, read again when it may have changed. */
  load(): Promise<ActivePolicy | null>;
  /** The active policy, read again now. */
  loadFresh(): Promise<ActivePolicy | null>;
  /** A policy this instance just stored and checked. */
  setActive(active: ActivePolicy): void;
  dataVersion(): Promise<number>;
  /** The active policy and the data version together (on SQLite, read in one statement). */
  head(): Promise<{ active: ActivePolicy | null; version: number }>;
  /**
   * The policy stored as row `version`, read on `db` (a standby) unless it is the active one;
   * the last one read is kept.
   */
  atVersion(db: SqlExecutor, version: number): Promise<ActivePolicy>;
  /** After this instance's own commit: known at once, without waiting for the notification. */
  committed(version: number): number;
  catchUp(version: number): Promise<void>;
  /** Follows notices of `channel` whose payload is `<this schema>:<version>`. */
  follow(channel: string): Promise<void>;
  /**
   * No other process writes this store (a temporary file): the versions this instance
   * commits are the only ones, so they are known without reading them back.
   */
  alone(): Promise<void>;
}

/** The data version as stored. */
async function storedVersion(db: SqlExecutor): Promise<number> {
  const rows = await run(
    db,
    sql<{ value: string }>`SELECT value FROM ${metaTable} WHERE key = 'data_version'`,
  );
  return Number(rows[0]?.value ?? 0);
}

/** The newest policy's version (null: none stored) and the data version, in one statement. */
export async function storedHead(
  db: SqlExecutor,
): Promise<{ policyVersion: number | null; dataVersion: number }> {
  const [row] = await run(
    db,
    sql<{ policy: number | string | null; data: string | null }>`SELECT
      (SELECT max(version) FROM ${policyTable}) AS policy,
      (SELECT value FROM ${metaTable} WHERE key = 'data_version') AS data`,
  );
  return {
    policyVersion: row?.policy == null ? null : Number(row.policy),
    dataVersion: Number(row?.data ?? 0),
  };
}

/** A stored policy checked again (it was valid when stored). */
async function checkedPolicy(
  version: number,
  row: { src: string; filename: string | null },
): Promise<ActivePolicy> {
  const policy = {
    src: fromStoredText(row.src),
    filename: row.filename === null ? null : fromStoredText(row.filename),
  };
  const checked = await checkPolicyInSlices([
    { name: policyFileName(policy.filename), text: policy.src },
  ]);
  // It can only fail after an incompatible upgrade.
  if (!checked.ok)
    throw new Error(`stored policy no longer checks: ${checked.diagnostics[0]?.message}`);
  return { version, policy, program: checked.program };
}

/**
 * `moved`, when given, hears of every newer data version this instance learns of (its own
 * commits and other instances' notices).
 */
export function policyState(
  db: SqlExecutor,
  refreshMs: number,
  moved: (version: number) => void = () => {},
): PolicyState {
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
    moved(version);
  }

  async function loadActive(): Promise<ActivePolicy | null> {
    if (db.engine === "sqlite" && !following) {
      // Reads are local: every question asks for the newest policy's version (its primary
      // key's last entry), so another process's policy is seen at once.
      const [newest] = await run(
        db,
        sql<{ version: number | null }>`SELECT max(version) AS version FROM ${policyTable}`,
      );
      if ((newest?.version ?? null) === (active?.version ?? null) && policyReadAt >= 0)
        return active;
    } else {
      const fresh = following ? !policyStale : Date.now() - checkedAt < refreshMs;
      if (fresh) return active;
    }
    policyStale = false; // before reading: a change noticed meanwhile reads again
    policyReadAt = await storedVersion(db);
    const rows = await run(
      db,
      sql<{ version: string; src: string; filename: string | null }>`SELECT version, src, filename
        FROM ${policyTable} ORDER BY version DESC LIMIT 1`,
    );
    checkedAt = Date.now();
    const row = rows[0];
    if (!row) {
      active = null;
      return null;
    }
    if (active && active.version === Number(row.version)) return active;
    active =
      other?.version === Number(row.version)
        ? other
        : await checkedPolicy(Number(row.version), row);
    return active;
  }

  let other: ActivePolicy | null = null;
  async function atVersion(on: SqlExecutor, version: number): Promise<ActivePolicy> {
    if (active?.version === version) return active;
    if (other?.version === version) return other;
    const [row] = await run(
      on,
      sql<{ src: string; filename: string | null }>`SELECT src, filename
        FROM ${policyTable} WHERE version = ${version}`,
    );
    if (!row) throw new Error(`internal: no policy version ${version}`);
    other = await checkedPolicy(version, row);
    return other;
  }

  /** The data version as stored, learned when following. */
  async function readVersion(): Promise<number> {
    const version = await storedVersion(db);
    if (following) learnVersion(version);
    return version;
  }

  async function loadActiveFresh(): Promise<ActivePolicy | null> {
    checkedAt = -Infinity;
    policyStale = true;
    return loadActive();
  }

  async function dataVersion(): Promise<number> {
    if (following && knownVersion !== null) return knownVersion;
    return readVersion();
  }

  return {
    load: loadActive,
    loadFresh: loadActiveFresh,
    setActive(next) {
      active = next;
    },
    dataVersion,
    atVersion,
    async head() {
      if (db.engine !== "sqlite" || following)
        return { active: await loadActive(), version: await dataVersion() };
      const stored = await storedHead(db);
      const same = stored.policyVersion === (active?.version ?? null) && policyReadAt >= 0;
      return { active: same ? active : await loadActive(), version: stored.dataVersion };
    },
    committed(version) {
      if (following && knownVersion !== null && version > knownVersion) knownVersion = version;
      moved(version);
      return version;
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
    async alone() {
      knownVersion = await storedVersion(db);
      policyStale = true;
      following = true;
    },
    async follow(channel) {
      const [{ schema } = { schema: "" }] = await db.query<{ schema: string }>(
        "SELECT current_schema() AS schema",
      );
      const ours = `${schema}:`;
      await db.listen(channel, {
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
  };
}
