/**
 * The benches' open loop run in a process of its own (bench/http/open-loop-apart.ts): it sends
 * every request on schedule over connections opened first, and reports failures, its own
 * collections and its CPU time with the summary.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchRequest } from "../bench/http/fixture.js";
import { openLoopApart } from "../bench/http/open-loop-apart.js";

describe("openLoopApart", () => {
  let status = 200;
  const connections = new Set<string>();
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    connections.add(`${request.socket.remotePort}`);
    seen.push(`${request.method} ${request.url}`);
    request.resume().on("end", () => {
      response.writeHead(request.url === "/health" ? 200 : status, {
        "content-type": "application/json",
      });
      response.end(JSON.stringify({ allowed: true }));
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const requests: BenchRequest[] = [
    { name: "authorize", path: "/api/authorize", body: '{"n":1}' },
    { name: "authorize", path: "/api/authorize", body: '{"n":2}' },
  ];

  it("sends the schedule's requests on connections opened before it starts", async () => {
    seen.length = 0;
    connections.clear();
    const summary = await openLoopApart({
      url,
      apiKey: "k",
      requests,
      rate: 200,
      seconds: 0.5,
      connections: 4,
      trace: 3,
    });
    expect(summary.requests).toBe(100);
    expect(summary.errors + summary.non2xx).toBe(0);
    expect(seen.slice(0, 4)).toEqual(Array(4).fill("GET /health"));
    expect(seen.filter((line) => line === "POST /api/authorize")).toHaveLength(100);
    expect(connections.size).toBeLessThanOrEqual(4);
    expect(summary.slowest).toHaveLength(3);
    expect(summary.generatorCpuSeconds).toBeGreaterThan(0);
    expect(summary.generatorPauses.count).toBeGreaterThanOrEqual(0);
  });

  it("counts and shows the failures", async () => {
    status = 503;
    const summary = await openLoopApart({ url, apiKey: "k", requests, rate: 100, seconds: 0.2 });
    status = 200;
    expect(summary.non2xx).toBe(20);
    expect(summary.firstFailure).toMatch(/^503 \{"allowed":true\}/);
  });
});
