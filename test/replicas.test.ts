/**
 * Read replicas on a real streaming hot standby (`.ci/replication up`; CI sets
 * POLAR_SQL_PRIMARY_URL and POLAR_SQL_STANDBY_URL). Two instances read the standby: writes go
 * through one, questions through the other with the write's `OsoOffset`, as the official
 * clients send it back; none may answer stale. The standby is paused (replay stopped) and
 * stopped mid-run: questions wait a bounded time, then go to the primary, and none fails.
 */
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { openEnvironments } from "../src/service/environments.js";
import { createService } from "../src/service/service.js";
import { PROBE_MS } from "../src/store/replicas.js";
import { uniqueSchemaName, withSearchPath } from "./support/central-services.js";

const primaryUrl = process.env.POLAR_SQL_PRIMARY_URL;
const standbyUrl = process.env.POLAR_SQL_STANDBY_URL;
const replication = fileURLToPath(new URL("../.ci/replication", import.meta.url));
const KEY = "replica-key";

const POLICY = `actor User {}
resource Org {
  roles = ["member"];
  permissions = ["read"];
  "read" if "member";
}`;

interface Instance {
  readonly service: PolarService;
  /** `GET /metrics` as text. */
  metrics(): Promise<string>;
  /** Posts through the HTTP adapter; the reply's body and `OsoOffset`. */
  call(
    path: string,
    body: unknown,
    offset?: string,
  ): Promise<{ body: { allowed?: boolean }; offset: string | null }>;
}

function instance(service: PolarService): Instance {
  const app = createApp({ service, apiKeys: [KEY], logger: { info() {}, error() {} } });
  return {
    service,
    async metrics() {
      const response = await app.request("/metrics", {
        headers: { Authorization: `Bearer ${KEY}` },
      });
      return response.text();
    },
    async call(path, body, offset) {
      const response = await app.request(`/api${path}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${KEY}`,
          "Content-Type": "application/json",
          ...(offset && { OsoOffset: offset }),
        },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
      return { body: JSON.parse(text), offset: response.headers.get("OsoOffset") };
    },
  };
}

const member = (user: string) => ({
  predicate: "has_role",
  args: [
    { type: "User", id: user },
    { type: "String", id: "member" },
    { type: "Org", id: "acme" },
  ],
});
const mayRead = (user: string) => ({
  actor_type: "User",
  actor_id: user,
  action: "read",
  resource_type: "Org",
  resource_id: "acme",
});

/** Transactions the standby has counted in database `test` (its own statistics). */
async function standbyTransactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

async function onStandby(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(primaryUrl && standbyUrl)("read replicas on a streaming hot standby", () => {
  const schema = uniqueSchemaName("replica");
  // The suite's body is collected even when it is skipped: no URL to read then.
  const primary = primaryUrl ? withSearchPath(primaryUrl, schema) : "";
  const standby = standbyUrl ? withSearchPath(standbyUrl, schema) : "";
  let writer: Instance;
  let reader: Instance;

  beforeAll(async () => {
    execFileSync(replication, ["start-standby"]);
    await onStandby(primaryUrl!, `CREATE SCHEMA ${schema}`);
    const open = async () =>
      instance(
        await createService({
          databaseUrl: primary,
          replicas: { urls: [standby], waitMs: 1000, maxLagMs: 2000 },
          workers: 0,
        }),
      );
    writer = await open();
    reader = await open();
    await writer.service.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
  }, 60_000);

  afterAll(async () => {
    execFileSync(replication, ["thaw-standby"]);
    execFileSync(replication, ["start-standby"]);
    await writer?.service.close();
    await reader?.service.close();
    await onStandby(primaryUrl!, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it("answers 1,000 write → question pairs with the write's offset, none stale, from the standby", async () => {
    const before = await standbyTransactions(standbyUrl!);
    const servedBefore = reader.service.standbys?.()[0]?.served ?? 0;
    let stale = 0;
    for (let i = 0; i < 1000; i++) {
      const user = `u${i % 50}`;
      // Users come in and go out: a stale answer shows both ways.
      const granted = Math.floor(i / 50) % 2 === 0;
      const change = granted ? { inserts: [member(user)] } : { deletes: [member(user)] };
      const { offset } = await writer.call("/batch", [change]);
      const { body } = await reader.call("/authorize", mayRead(user), offset!);
      if (body.allowed !== granted) stale++;
    }
    expect(stale).toBe(0);
    const served = (reader.service.standbys?.()[0]?.served ?? 0) - servedBefore;
    expect(served).toBeGreaterThanOrEqual(900);
    // The standby's own statistics count the questions (flushed within a second or so): read
    // until they do, for up to 10 s.
    let counted = 0;
    for (const end = Date.now() + 10_000; Date.now() < end; ) {
      counted = (await standbyTransactions(standbyUrl!)) - before;
      if (counted >= 900) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(counted).toBeGreaterThanOrEqual(900);
  }, 120_000);

  it("waits for a paused standby a bounded time, then answers from the primary, and skips it while it lags", async () => {
    await onStandby(standbyUrl!, "SELECT pg_wal_replay_pause()");
    try {
      const { offset } = await writer.call("/batch", [{ inserts: [member("paused")] }]);
      const started = Date.now();
      const { body } = await reader.call("/authorize", mayRead("paused"), offset!);
      expect(body.allowed).toBe(true);
      // It waited `waitMs` for the standby first, then asked the primary.
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(2000);
      // Past `maxLagMs` the probe marks it lagging: questions go to the primary at once.
      await until(() => reader.service.standbys?.()[0]?.state === "lagging", 5000);
      const metrics = await reader.metrics();
      expect(metrics).toMatch(/polar_sql_standby_up\{standby="127\.0\.0\.1:\d+\/test"\} 0/);
      const lag = /polar_sql_standby_lag_seconds\{standby="[^"]+"\} ([\d.]+)/.exec(metrics);
      expect(Number(lag?.[1])).toBeGreaterThan(2);
      const again = Date.now();
      const next = await reader.call("/authorize", mayRead("paused"), offset!);
      expect(next.body.allowed).toBe(true);
      expect(Date.now() - again).toBeLessThan(800);
    } finally {
      await onStandby(standbyUrl!, "SELECT pg_wal_replay_resume()");
    }
    await until(() => reader.service.standbys?.()[0]?.state === "up", 5000);
    expect(await reader.metrics()).toMatch(/polar_sql_standby_up\{standby="[^"]+"\} 1/);
  }, 60_000);

  it("loses no question while the standby stops and starts again, and uses it again within seconds", async () => {
    let failed = 0;
    let stale = 0;
    let stopped: Promise<unknown> | null = null;
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const user = `s${i % 20}`;
        const granted = Math.floor(i / 20) % 2 === 0;
        const change = granted ? { inserts: [member(user)] } : { deletes: [member(user)] };
        try {
          const { offset } = await writer.call("/batch", [change]);
          const { body } = await reader.call("/authorize", mayRead(user), offset!);
          if (body.allowed !== granted) stale++;
        } catch {
          failed++;
        }
        // Stopping takes a moment; questions keep coming meanwhile.
        if (i === Math.floor(count / 3) && !stopped)
          stopped = promisify(execFile)(replication, ["stop-standby"]);
      }
    };
    await run(300);
    await stopped;
    expect(reader.service.standbys?.()[0]?.state).toBe("down");
    execFileSync(replication, ["start-standby"]);
    await until(() => reader.service.standbys?.()[0]?.state === "up", 10 * PROBE_MS + 10_000);
    const served = reader.service.standbys?.()[0]?.served ?? 0;
    await run(100);
    expect({ failed, stale }).toEqual({ failed: 0, stale: 0 });
    expect(reader.service.standbys?.()[0]?.served ?? 0).toBeGreaterThan(served + 50);
  }, 120_000);

  it("answers every question while the standby answers nothing at all (frozen), within the probe's timeout", async () => {
    await until(() => reader.service.standbys?.()[0]?.state === "up", 10_000);
    execFileSync(replication, ["freeze-standby"]);
    try {
      const started = Date.now();
      // Without an offset the standby's last known head serves: the statement waits on the
      // frozen standby until the probe gives it up, then runs on the primary.
      expect((await reader.call("/authorize", mayRead("paused"))).body.allowed).toBe(true);
      for (let i = 0; i < 20; i++) {
        const user = `f${i}`;
        const { offset } = await writer.call("/batch", [{ inserts: [member(user)] }]);
        // With the offset, and without (at the standby's last known head).
        expect((await reader.call("/authorize", mayRead(user), offset!)).body.allowed).toBe(true);
        await reader.call("/authorize", mayRead(user));
      }
      expect(reader.service.standbys?.()[0]?.state).toBe("down");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      execFileSync(replication, ["thaw-standby"]);
    }
    await until(() => reader.service.standbys?.()[0]?.state === "up", 10_000);
  }, 60_000);

  it("reads each environment's own schema on the standby", async () => {
    const name = schema.replace(/^replica_/, "env_");
    const environments = await openEnvironments(["default", name], {
      databaseUrl: primary,
      replicas: { urls: [standby], waitMs: 1000 },
      workers: 0,
    });
    try {
      const other = instance(environments.services.get(name)!);
      const home = instance(environments.services.get("default")!);
      await other.service.postPolicy({ src: POLICY, filename: "policy.polar" }, {});
      const served = other.service.standbys?.()[0]?.served ?? 0;
      const { offset } = await other.call("/batch", [{ inserts: [member("only-there")] }]);
      expect((await other.call("/authorize", mayRead("only-there"), offset!)).body.allowed).toBe(
        true,
      );
      expect(other.service.standbys?.()[0]?.served).toBeGreaterThan(served);
      // The default environment's policy is the same, its facts are not.
      const [ownOffset] = [(await home.call("/batch", [{ inserts: [member("home")] }])).offset];
      expect((await home.call("/authorize", mayRead("only-there"), ownOffset!)).body.allowed).toBe(
        false,
      );
    } finally {
      await environments.close();
      await onStandby(primaryUrl!, `DROP SCHEMA IF EXISTS polar_env_${name} CASCADE`);
    }
  }, 60_000);
});
