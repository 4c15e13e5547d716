import { describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { startServer } from "../src/http/server.js";
import { fakeService } from "./http-fake-service.js";

const KEY = "server-key";
const headers = { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` };

function slowService(ms: number): PolarService {
  const service = fakeService();
  return {
    ...service,
    authorize: async (body) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { body: { allowed: true, body } };
    },
  };
}

describe("startServer", () => {
  it("listens on an ephemeral port and reports its URL", async () => {
    const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });
    const server = await startServer({ app, port: 0, host: "127.0.0.1" });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.port).toBeGreaterThan(0);
      const res = await fetch(`${server.url}/api/policy`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Request-ID")).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  it("close() lets in-flight requests finish and then refuses connections", async () => {
    const app = createApp({ service: slowService(300), apiKeys: [KEY], logger: silentLogger });
    const server = await startServer({ app, port: 0, host: "127.0.0.1" });
    // A keep-alive connection left idle must not hold the shutdown.
    await fetch(`${server.url}/health`);
    const inFlight = fetch(`${server.url}/api/authorize`, {
      method: "POST",
      headers,
      body: '{"n":1}',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await server.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ allowed: true, body: { n: 1 } });
    // An idle keep-alive connection would hold close() until Node's 5 s keep-alive timeout;
    // anything well under that shows it was closed at once (the margin absorbs a busy machine).
    expect(Date.now() - started).toBeLessThan(4500);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it("a second close() is harmless", async () => {
    const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });
    const server = await startServer({ app, port: 0, host: "127.0.0.1" });
    await Promise.all([server.close(), server.close()]);
  });

  it("rejects when the port is taken", async () => {
    const app = createApp({ service: fakeService(), apiKeys: [KEY], logger: silentLogger });
    const first = await startServer({ app, port: 0, host: "127.0.0.1" });
    try {
      await expect(startServer({ app, port: first.port, host: "127.0.0.1" })).rejects.toThrow(
        /EADDRINUSE/,
      );
    } finally {
      await first.close();
    }
  });
});
