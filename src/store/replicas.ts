/**
 * Read replicas: PostgreSQL hot standbys that answer questions while the primary takes writes.
 * A standby's freshness is its data version (src/store/schema.ts `polar_meta`), written in the
 * same transaction as every change, so a standby that shows version n has replayed every
 * commit up to the write that answered `OsoOffset: n`. A question needing at least n reads a
 * standby that shows n, waits for one a bounded time, or reads the primary. A question without
 * an offset reads at what the standby was last seen to have replayed: read again whenever the
 * primary moves, until the standby shows the new version, and by the probe.
 *
 * Health: each standby is probed every PROBE_MS; one that fails, or lags by more than the
 * allowed time, is skipped until a probe finds it well again (docs/operations.md, "Read
 * replicas"). A statement that fails on a standby runs again on the primary.
 */
import { DeadlineExceeded } from "../core/deadline.js";
import { storedHead } from "./active-policy.js";
import type { SqlExecutor } from "./executor.js";
import { openPostgres } from "./postgres-executor.js";

export interface ReplicaOptions {
  /** Connection URLs of hot standbys of the primary. */
  readonly urls: readonly string[];
  /** How long a question waits for a standby to replay its `OsoOffset` (ms); default 100. */
  readonly waitMs?: number;
  /** A standby further behind than this (ms) is skipped; default 5000. */
  readonly maxLagMs?: number;
}

/** What a standby has replayed, read on it. */
interface StandbyHead {
  readonly db: SqlExecutor;
  readonly dataVersion: number;
  /** The newest policy row the standby holds, or null. */
  readonly policyVersion: number | null;
}

export interface Replicas {
  /**
   * A well standby that has replayed `atLeast` (waiting up to `waitMs` for it), with what it
   * has replayed; null when none qualifies and the primary must answer.
   */
  choose(atLeast: number | undefined): Promise<StandbyHead | null>;
  /**
   * The primary has a newer data version: each standby that is up reads what it has replayed
   * (one read at a time per standby), so that questions without an offset soon see the write.
   */
  primaryMoved(version: number): void;
  /** Each standby's state, for metrics and tests. */
  status(): readonly StandbyStatus[];
  close(): Promise<void>;
}

export interface StandbyStatus {
  readonly url: string;
  readonly state: "up" | "down" | "lagging";
  /** Data versions behind the primary at the last probe. */
  readonly lagMs: number;
  /** Statements it answered. */
  readonly served: number;
}

/** How often each standby is probed (ms): a standby that comes back is used within this. */
export const PROBE_MS = 250;
/**
 * How long reading a standby's head, or connecting to it, may take (ms): past it the standby
 * counts as down (a standby cut off by the network answers nothing, not even an error).
 */
const HEAD_TIMEOUT_MS = 1000;
/** How often a waiting question reads a standby's version again (ms). */
const POLL_MS = 5;
/** A standby's connections; questions are short, and the primary keeps its own pool. */
const STANDBY_POOL = 10;

interface Standby {
  readonly url: string;
  /** The standby's own executor (heads are read here, never on the primary). */
  own: SqlExecutor | null;
  /** The executor questions read through: failed statements run again on the primary. */
  reader: SqlExecutor | null;
  state: StandbyStatus["state"];
  lagMs: number;
  served: number;
  opening: Promise<void> | null;
  /**
   * What it had replayed when last read (by the probe or a question): a lower bound, since a
   * standby only moves forward while it stays up. Forgotten when it goes down.
   */
  head: StandbyHead | null;
  /** Aborted when it is marked down: statements still waiting on it run on the primary. */
  gone: AbortController;
  /** Reads of its head after the primary moved: running, up to which version. */
  refresh: { running: boolean; target: number };
}

/**
 * Opens the standbys (one that is down now is tried again by the probe) and starts probing.
 * `primaryVersion` is the primary's data version as this instance knows it.
 */
export async function openReplicas(
  options: ReplicaOptions,
  primary: SqlExecutor,
  primaryVersion: () => Promise<number>,
): Promise<Replicas> {
  const waitMs = options.waitMs ?? 100;
  const maxLagMs = options.maxLagMs ?? 5000;
  const standbys: Standby[] = options.urls.map((url) => ({
    url,
    own: null,
    reader: null,
    state: "down",
    lagMs: 0,
    served: 0,
    opening: null,
    head: null,
    gone: new AbortController(),
    refresh: { running: false, target: 0 },
  }));
  const clock = versionClock();
  let next = 0;
  let closed = false;

  function markDown(standby: Standby): void {
    standby.state = "down";
    const own = standby.own;
    standby.own = null;
    standby.reader = null;
    standby.head = null;
    standby.gone.abort();
    own?.close().catch(() => {});
  }

  async function open(standby: Standby): Promise<void> {
    try {
      const db = await openPostgres({
        connectionString: standby.url,
        max: STANDBY_POOL,
        connectTimeoutMs: HEAD_TIMEOUT_MS,
      });
      if (closed) return void (await db.close());
      standby.own = db;
      standby.gone = new AbortController();
      standby.reader = onStandby(db, primary, {
        down: () => markDown(standby),
        served: () => standby.served++,
        gone: standby.gone.signal,
      });
    } catch {
      standby.state = "down";
    }
  }

  async function probe(standby: Standby): Promise<void> {
    if (!standby.own) {
      standby.opening ??= open(standby).finally(() => {
        standby.opening = null;
      });
      await standby.opening;
    }
    const own = standby.own;
    if (!own) return;
    try {
      const head = await readHead(own, standby.reader!);
      standby.head = head;
      const newest = await primaryVersion();
      clock.saw(newest);
      standby.lagMs = clock.behind(head.dataVersion, newest);
      standby.state = standby.lagMs > maxLagMs ? "lagging" : "up";
    } catch {
      markDown(standby);
    }
  }

  const probeAll = () => Promise.all(standbys.map(probe));
  await probeAll();
  let probing = false;
  const timer = setInterval(() => {
    if (probing || closed) return;
    probing = true;
    probeAll().finally(() => {
      probing = false;
    });
  }, PROBE_MS);
  timer.unref();

  /**
   * Reads a standby's head until it shows `version` (every POLL_MS, for up to `waitMs`), then
   * stops: the probe carries on from there. One run at a time per standby.
   */
  async function refresh(standby: Standby, version: number): Promise<void> {
    const { refresh: state } = standby;
    state.target = Math.max(state.target, version);
    if (state.running) return;
    state.running = true;
    try {
      await readUntil(standby, () => state.target, Date.now() + waitMs);
    } catch {
      markDown(standby);
    } finally {
      state.running = false;
    }
  }

  return {
    primaryMoved(version) {
      for (const standby of standbys) void refresh(standby, version);
    },
    async choose(atLeast) {
      for (let tried = 0; tried < standbys.length; tried++) {
        const standby = standbys[next++ % standbys.length]!;
        if (standby.state !== "up") continue;
        try {
          const known = standby.head;
          if (known && (atLeast === undefined || known.dataVersion >= atLeast)) return known;
          const head = await readUntil(standby, () => atLeast, Date.now() + waitMs);
          return head && head.dataVersion >= (atLeast ?? 0) ? head : null;
        } catch {
          markDown(standby);
        }
      }
      return null;
    },
    status: () => standbys.map(({ url, state, lagMs, served }) => ({ url, state, lagMs, served })),
    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.all(standbys.map((standby) => standby.opening));
      await Promise.all(standbys.map((standby) => standby.own?.close().catch(() => {})));
    },
  };
}

/**
 * Reads `standby`'s head every POLL_MS until it shows `wanted()` or `until` passes, keeping
 * the newest in `standby.head`; the last head read, or null when the standby went down.
 */
async function readUntil(
  standby: Standby,
  wanted: () => number | undefined,
  until: number,
): Promise<StandbyHead | null> {
  for (;;) {
    const { own, reader } = standby;
    if (standby.state !== "up" || !own || !reader) return null;
    const head = await readHead(own, reader);
    if (head.dataVersion > (standby.head?.dataVersion ?? -1)) standby.head = head;
    if (head.dataVersion >= (wanted() ?? 0) || Date.now() >= until) return head;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** What `own` has replayed; questions at that head read through `reader`. */
async function readHead(own: SqlExecutor, reader: SqlExecutor): Promise<StandbyHead> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("standby did not answer")), HEAD_TIMEOUT_MS);
  });
  try {
    return await Promise.race([headOf(own, reader), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function headOf(own: SqlExecutor, reader: SqlExecutor): Promise<StandbyHead> {
  return { db: reader, ...(await storedHead(own)) };
}

/**
 * When the primary's data versions were first seen, to tell how long ago a standby's version
 * was superseded. Bounded: versions seen long ago are forgotten, their time kept as the oldest.
 */
function versionClock() {
  const seen: { version: number; at: number }[] = [];
  return {
    saw(version: number): void {
      const last = seen.at(-1);
      if (last && last.version >= version) return;
      seen.push({ version, at: Date.now() });
      if (seen.length > 1000) seen.splice(0, seen.length - 1000);
    },
    /** How long the primary has held a version newer than `replayed` (ms). */
    behind(replayed: number, newest: number): number {
      if (replayed >= newest) return 0;
      const superseded = seen.find((entry) => entry.version > replayed);
      return superseded ? Date.now() - superseded.at : 0;
    },
  };
}

/**
 * A standby's executor whose failed statements run again on the primary, which has replayed
 * at least as much: a question never fails because a standby went away. Connection failures
 * mark the standby down; so does the probe when the standby stops answering, and statements
 * still waiting on it then run on the primary too. Only the deadline's refusal stands.
 */
function onStandby(
  standby: SqlExecutor,
  primary: SqlExecutor,
  events: { down(): void; served(): void; readonly gone: AbortSignal },
): SqlExecutor {
  type Outcome<R> =
    | { kind: "rows"; rows: R }
    | { kind: "failed"; cause: unknown }
    | { kind: "gone" };
  /** The statement's outcome on the standby, or `gone` as soon as the standby is given up. */
  const onStandbyUnlessGone = <R>(work: () => Promise<R>) =>
    new Promise<Outcome<R>>((resolve) => {
      const gone = () => resolve({ kind: "gone" });
      if (events.gone.aborted) return gone();
      events.gone.addEventListener("abort", gone, { once: true });
      work()
        .then(
          (rows) => resolve({ kind: "rows", rows }),
          (cause: unknown) => resolve({ kind: "failed", cause }),
        )
        .finally(() => events.gone.removeEventListener("abort", gone));
    });
  const retried =
    <A extends unknown[], R>(run: (db: SqlExecutor, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const outcome = await onStandbyUnlessGone(() => run(standby, ...args));
      if (outcome.kind === "rows") {
        events.served();
        return outcome.rows;
      }
      if (outcome.kind === "failed") {
        if (outcome.cause instanceof DeadlineExceeded) throw outcome.cause;
        if (isConnectionFailure(outcome.cause)) events.down();
      }
      return run(primary, ...args);
    };
  return {
    engine: "postgres",
    query: retried((db, sql: string, params?: readonly unknown[], hints?) =>
      db.query(sql, params, hints),
    ) as SqlExecutor["query"],
    prepared: retried((db, sql: string, params: readonly string[], hints?) =>
      db.prepared(sql, params, hints),
    ) as SqlExecutor["prepared"],
    listen: () => Promise.reject(new Error("internal: a standby does not LISTEN")),
    transaction: () => Promise.reject(new Error("internal: a standby does not write")),
    close: () => standby.close(),
  };
}

/**
 * Errors of the connection rather than the statement: class 08 (connection exception), 57P0x
 * (the server shutting down or starting), and socket errors without an SQLSTATE.
 */
function isConnectionFailure(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return true;
  return code.startsWith("08") || /^57P0[1-4]$/.test(code) || code.startsWith("E");
}
