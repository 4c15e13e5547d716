/**
 * Environments and scoped keys over the HTTP adapter, on every store: SQLite and PGlite
 * (embedded, in memory) and the PostgreSQL server at DATABASE_URL. Two environments with
 * distinctive policies, types and ids: nothing of one shows in the other; a read-only key is
 * refused every write route (and nothing changes), and may ask every question.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/http/app.js";
import type { ApiKey } from "../src/http/auth.js";
import { silentLogger } from "../src/http/logger.js";
import { ROUTES } from "../src/http/routes.js";
import { type Environments, openEnvironments } from "../src/service/environments.js";
import type { ServiceOptions } from "../src/service/service.js";
import { environmentSchema } from "../src/store/environment.js";
import { openStore } from "../src/store/store.js";
import { dropSchema, serverSchema, uniqueSchemaName } from "./support/central-services.js";
import {
  type EnvironmentWorld,
  policyOf,
  roleFact,
  routeSamples,
  type Sample,
} from "./support/environment-samples.js";

const databaseUrl = process.env.DATABASE_URL;

const ALPHA: EnvironmentWorld = {
  name: "default",
  type: "AlphaOrg",
  role: "alpha_member",
  actor: "alpha_ada_7q",
  resource: "alpha_acme_7q",
};
const BRAVO_NAME = uniqueSchemaName("bravo").toLowerCase();
const BRAVO: EnvironmentWorld = {
  name: BRAVO_NAME,
  type: "BravoVault",
  role: "bravo_keeper",
  actor: "bravo_bob_9z",
  resource: "bravo_vault_9z",
};
/** Text that belongs to one world only: none of it may show in the other's answers. */
const MARKS = new Map([
  [ALPHA, /alpha|7q/i],
  [BRAVO, /bravo|9z/i],
]);
const other = (world: EnvironmentWorld) => (world === ALPHA ? BRAVO : ALPHA);

const KEYS = {
  alphaWrite: "alpha-rw-key",
  alphaRead: "alpha-ro-key",
  bravoWrite: "bravo-rw-key",
  bravoRead: "bravo-ro-key",
};
const keys: ApiKey[] = [
  { key: KEYS.alphaWrite, environment: ALPHA.name, access: "read-write" },
  { key: KEYS.alphaRead, environment: ALPHA.name, access: "read-only" },
  { key: KEYS.bravoWrite, environment: BRAVO.name, access: "read-write" },
  { key: KEYS.bravoRead, environment: BRAVO.name, access: "read-only" },
];
const writeKey = (world: EnvironmentWorld) => (world === ALPHA ? KEYS.alphaWrite : KEYS.bravoWrite);
const readKey = (world: EnvironmentWorld) => (world === ALPHA ? KEYS.alphaRead : KEYS.bravoRead);

interface Store {
  readonly name: string;
  /** Where the environment `default` lives; `drop` removes every schema made. */
  open(): Promise<{ options: ServiceOptions; drop(): Promise<void> }>;
}

const STORES: Store[] = [
  { name: "sqlite", open: async () => ({ options: { embedded: "sqlite" }, drop: async () => {} }) },
  { name: "pglite", open: async () => ({ options: { embedded: "pglite" }, drop: async () => {} }) },
];
if (databaseUrl) {
  STORES.push({
    name: "postgres",
    async open() {
      const schema = await serverSchema(databaseUrl, "envs");
      return {
        options: { databaseUrl: schema.url },
        async drop() {
          await schema.drop();
          await dropSchema(databaseUrl!, environmentSchema(BRAVO.name));
        },
      };
    },
  });
}

describe.each(STORES)("environments on $name", (store) => {
  let environments: Environments;
  let drop: () => Promise<void> = async () => {};
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    const opened = await store.open();
    drop = opened.drop;
    environments = await openEnvironments([ALPHA.name, BRAVO.name], {
      ...opened.options,
      workers: 2,
    });
    app = createApp({ environments: environments.services, keys, logger: silentLogger });
    for (const world of [ALPHA, BRAVO]) {
      const service = environments.services.get(world.name)!;
      await service.postPolicy({ src: policyOf(world), filename: "app.polar" }, {});
      await service.batch([{ inserts: [roleFact(world)] }]);
    }
  });
  afterAll(async () => {
    await environments?.close();
    await drop();
  });

  const call = (key: string, method: string, sample: Sample) =>
    app.request(`/api${sample.target}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      ...(sample.body !== undefined && { body: JSON.stringify(sample.body) }),
    });

  /** The policy and every fact of an environment, as its read-only key reads them. */
  async function contents(world: EnvironmentWorld): Promise<string> {
    const policy = await call(readKey(world), "GET", { target: "/policy" });
    const facts = await call(readKey(world), "GET", { target: "/export_facts?page_size=1000" });
    return `${await policy.text()}\n${await facts.text()}`;
  }

  it("samples cover every route of the table", () => {
    expect([...routeSamples(ALPHA).keys()].sort()).toEqual(
      ROUTES.map((route) => `${route.method} /api${route.path}`).sort(),
    );
  });

  it.each([ALPHA, BRAVO])(
    "every question of $type's environment answers with its read-only key, showing nothing of the other",
    async (world) => {
      for (const [route, sample] of routeSamples(world)) {
        if (ROUTES.find((r) => `${r.method} /api${r.path}` === route)!.writes) continue;
        const res = await call(readKey(world), route.split(" ")[0]!, sample);
        const text = await res.text();
        expect(res.status, `${route}: ${text}`).toBe(200);
        expect(text, route).not.toMatch(MARKS.get(other(world))!);
      }
      const own = await call(readKey(world), "POST", {
        target: "/authorize",
        body: {
          actor_type: "User",
          actor_id: world.actor,
          action: "read",
          resource_type: world.type,
          resource_id: world.resource,
        },
      });
      expect(await own.json()).toEqual({ allowed: true });
    },
  );

  it.each([ALPHA, BRAVO])(
    "$type's facts, policy, explanation and errors are its own",
    async (world) => {
      const seen = await contents(world);
      expect(seen).toContain(world.resource);
      expect(seen).toContain(world.type);
      expect(seen).not.toMatch(MARKS.get(other(world))!);
      const explained = await call(readKey(world), "POST", {
        target: "/explain",
        body: {
          actor_type: "User",
          actor_id: world.actor,
          action: "read",
          resource_type: world.type,
          resource_id: world.resource,
        },
      });
      const explanation = await explained.text();
      expect(explanation).toContain(world.role);
      expect(explanation).not.toMatch(MARKS.get(other(world))!);
      // The other environment's type is unknown here, and the refusal names nothing of it but
      // what the request said.
      const refused = await call(readKey(world), "POST", {
        target: "/list",
        body: {
          actor_type: "User",
          actor_id: "nobody",
          action: "read",
          resource_type: "Nope",
          page_size: 10,
        },
      });
      expect(refused.status).toBe(400);
      expect(await refused.text()).not.toMatch(MARKS.get(other(world))!);
    },
  );

  it("each environment has its own data version", async () => {
    const write = async (world: EnvironmentWorld, actor: string) => {
      const res = await call(writeKey(world), "POST", {
        target: "/facts",
        body: roleFact(world, actor),
      });
      expect(res.status).toBe(200);
      return Number(res.headers.get("OsoOffset"));
    };
    const before = await write(BRAVO, "bravo_version_1");
    for (const actor of ["alpha_v1", "alpha_v2", "alpha_v3"]) await write(ALPHA, actor);
    expect(await write(BRAVO, "bravo_version_2")).toBe(before + 1);
  });

  it("a key's /metrics show its own environment's requests only", async () => {
    /** How many `GET /api/stats` answered 200 that the key's metrics show. */
    const statsCount = async (key: string) => {
      const res = await app.request("/metrics", { headers: { Authorization: `Bearer ${key}` } });
      const text = await res.text();
      expect(text).toContain("polar_sql_http_requests_total");
      const line = /route="\/api\/stats",method="GET",status="200"} (\d+)/.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const alphaBefore = await statsCount(KEYS.alphaRead);
    const bravoBefore = await statsCount(KEYS.bravoRead);
    for (let i = 0; i < 3; i++) await call(readKey(BRAVO), "GET", { target: "/stats" });
    expect(await statsCount(KEYS.bravoRead)).toBe(bravoBefore + 3);
    expect(await statsCount(KEYS.alphaWrite)).toBe(alphaBefore);
  });

  it("a read-only key is refused every write route, before the body, and nothing changes", async () => {
    for (const world of [ALPHA, BRAVO]) {
      const before = await contents(world);
      for (const route of ROUTES.filter((r) => r.writes)) {
        const name = `${route.method} /api${route.path}`;
        const res = await call(readKey(world), route.method, routeSamples(world).get(name)!);
        expect(res.status, name).toBe(403);
        expect(await res.json()).toEqual({
          message: `this API key is read-only; \`${name}\` writes`,
        });
      }
      // Refused before reading the body: a body that is not JSON is not even looked at.
      const unread = await app.request("/api/batch", {
        method: "POST",
        headers: { Authorization: `Bearer ${readKey(world)}` },
        body: "not json",
      });
      expect(unread.status).toBe(403);
      expect(await contents(world)).toBe(before);
    }
  });

  it("a read-write key may use every write route, in its own environment only", async () => {
    const bravoBefore = await contents(BRAVO);
    const samples = routeSamples(ALPHA);
    for (const route of ROUTES.filter((r) => r.writes)) {
      const name = `${route.method} /api${route.path}`;
      const res = await call(KEYS.alphaWrite, route.method, samples.get(name)!);
      expect([200, 202], `${name}: ${await res.clone().text()}`).toContain(res.status);
    }
    const alpha = await contents(ALPHA);
    expect(alpha).toContain("# again");
    expect(alpha).not.toContain(`"${ALPHA.actor}"`); // `POST /clear_data` ran
    expect(await contents(BRAVO)).toBe(bravoBefore);
  });
});

describe("where environments live", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "polar-sql-envs-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(["sqlite", "pglite"] as const)(
    "%s: `default` in the data directory, others under environments/, kept across restarts",
    async (embedded) => {
      const dataDir = join(dir, embedded);
      const open = () =>
        openEnvironments(["default", "staging"], { embedded, dataDir, workers: 0 });
      const first = await open();
      for (const [name, service] of first.services) {
        await service.postPolicy(
          { src: policyOf({ ...ALPHA, type: `T_${name}` }), filename: null },
          {},
        );
      }
      await first.close();
      expect(existsSync(join(dataDir, "environments", "staging"))).toBe(true);
      const again = await open();
      try {
        for (const [name, service] of again.services) {
          const { policy } = (await service.getPolicy({})).body as { policy: { src: string } };
          expect(policy.src).toContain(`T_${name} `);
        }
      } finally {
        await again.close();
      }
    },
  );

  it("refuses an invalid environment name, naming it", async () => {
    await expect(openStore({ environment: "Prod-1" })).rejects.toThrow(
      /invalid environment name "Prod-1": expected a lowercase letter/,
    );
    await expect(openEnvironments(["default", "x".repeat(41)], { workers: 0 })).rejects.toThrow(
      /invalid environment name/,
    );
  });

  it.skipIf(!databaseUrl)(
    "postgres: a schema polar_env_<name> per environment, created when missing",
    async () => {
      const name = uniqueSchemaName("placed").toLowerCase();
      const schema = await serverSchema(databaseUrl!, "placed_default");
      const store = await openStore({ databaseUrl: schema.url, environment: name });
      try {
        const [row] = await store.db.query<{ schema: string }>("SELECT current_schema() AS schema");
        expect(row!.schema).toBe(environmentSchema(name));
        const tables = await store.db.query(
          "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'polar_fact'",
          [environmentSchema(name)],
        );
        expect(tables).toHaveLength(1);
      } finally {
        await store.close();
        await dropSchema(databaseUrl!, environmentSchema(name));
        await schema.drop();
      }
    },
  );
});
