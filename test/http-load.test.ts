/**
 * A short load run against the real service on in-memory PGlite: 320 requests on 50
 * connections mixing authorize, list, actions and authorize_query. Zero errors, zero non-2xx,
 * and the server still answers afterwards. A fixed number of requests, not a duration, so a
 * busy machine makes it slower, never red; speed is measured by bench/http/load.ts.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { drive } from "../bench/http/drive.js";
import { generateFacts, POLICY_FILE, requestMix, type Scale } from "../bench/http/fixture.js";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { type ServerHandle, startServer } from "../src/http/server.js";
import { createService } from "../src/service/service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const KEY = "load-key";
const SCALE: Scale = { users: 40, workspaces: 4, projectsPerWorkspace: 3, ticketsPerProject: 4 };
let service: PolarService;
let server: ServerHandle;

beforeAll(async () => {
  service = await createService({ pool: sharedWorkerPool() });
  await service.postPolicy({ src: readFileSync(POLICY_FILE, "utf8"), filename: "" }, {});
  await service.batch([{ inserts: generateFacts(SCALE) }]);
  const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
  server = await startServer({ app, port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await server?.close();
  await service?.close();
});

it("320 requests on 50 connections: every one answered 2xx, still serving", async () => {
  const mix = requestMix(SCALE, 40);
  const requests = mix.authorize.flatMap((r, i) => [
    r,
    mix.list[i]!,
    mix.actions[i]!,
    mix.authorize_query[i]!,
  ]);
  const summary = await drive({
    url: server.url,
    apiKey: KEY,
    requests,
    connections: 50,
    seconds: 600,
    amount: 320,
    timeoutSeconds: 60,
  });
  expect(summary.firstFailure).toBeNull();
  expect(summary.errors).toBe(0);
  expect(summary.non2xx).toBe(0);
  expect(summary.requests).toBe(320);
  const health = await fetch(`${server.url}/health`);
  expect(health.status).toBe(200);
  const answer = await fetch(`${server.url}${mix.authorize[0]!.path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    body: mix.authorize[0]!.body,
  });
  expect(await answer.json()).toEqual({ allowed: expect.any(Boolean) });
});
