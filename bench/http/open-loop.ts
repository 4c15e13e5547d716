/**
 * An open-loop load: requests are sent on a fixed schedule (`rate` per second, evenly spaced)
 * whatever the server's pace, and each latency counts from the request's scheduled time, so
 * time spent queued behind a slow server is not hidden (no coordinated omission). This is
 * what "serves N requests/s with p99 ≤ X" means; a closed loop of C connections instead
 * measures queueing behind its own C requests (autocannon's rate option sends each second's
 * quota in a burst).
 *
 * With `trace`, the summary also holds the slowest requests, each split into where its time
 * went: the wait before it was sent (the bench's own event loop, or every connection busy),
 * the server's own time (its `Server-Timing` header), and the rest (queued in the server's
 * socket, the network, the bench reading the answer).
 *
 *   const summary = await openLoop({ url, apiKey, requests, rate: 2000, seconds: 6 });
 */
import http from "node:http";
import type { DriveSummary } from "./drive.js";
import type { BenchRequest } from "./fixture.js";

export interface OpenLoopOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: readonly BenchRequest[];
  /** Requests per second, evenly spaced. */
  readonly rate: number;
  readonly seconds: number;
  /** Keep-alive connections the requests share; a request waits for a free one. */
  readonly connections?: number;
  /** How many of the slowest requests to report, split (`OpenLoopSummary.slowest`). */
  readonly trace?: number;
}

/** One slow request: when in the run it was due, and where its milliseconds went. */
export interface SlowRequest {
  /** Its scheduled time, from the start of the run. */
  readonly atMs: number;
  readonly latencyMs: number;
  /** From its scheduled time until the socket took it. */
  readonly sendWaitMs: number;
  /** What the server says it spent (`Server-Timing: oso;dur=…`), or null without the header. */
  readonly serverMs: number | null;
  readonly path: string;
}

export interface OpenLoopSummary extends DriveSummary {
  /** The slowest requests, slowest first (only with `trace`). */
  readonly slowest: readonly SlowRequest[];
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopSummary> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 50 });
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  const traced: SlowRequest[] = [];
  let errors = 0;
  let non2xx = 0;
  let firstFailure: string | null = null;
  let sent = 0;
  let finished = 0;
  await openConnections(target, agent, options.connections ?? 50);
  const start = performance.now();

  const send = (index: number) => {
    const scheduled = start + index * interval;
    const chosen = options.requests[index % options.requests.length]!;
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: chosen.path,
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(chosen.body),
          authorization: `Bearer ${options.apiKey}`,
        },
        timeout: 5000,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const failed = status < 200 || status >= 300;
        // A success's body is not kept: the bench's own garbage is the bench's own tail.
        const chunks: Buffer[] = [];
        if (failed) response.on("data", (chunk: Buffer) => chunks.push(chunk));
        else response.resume();
        response.on("end", () => {
          if (failed) {
            non2xx++;
            firstFailure ??= `${status} ${Buffer.concat(chunks).toString().slice(0, 300)}`;
          }
          const latency = performance.now() - scheduled;
          latencies.push(latency);
          finished++;
          if (options.trace) {
            const timing = /dur=([\d.]+)/.exec(String(response.headers["server-timing"] ?? ""));
            traced.push({
              atMs: Math.round(scheduled - start),
              latencyMs: latency,
              sendWaitMs: sentAt - scheduled,
              serverMs: timing ? Number(timing[1]) : null,
              path: chosen.path,
            });
            if (traced.length > 4 * options.trace) keepSlowest(traced, options.trace);
          }
        });
      },
    );
    let sentAt = Number.NaN;
    request.on("socket", (socket) => {
      const taken = () => {
        sentAt = performance.now();
      };
      if (socket.connecting) socket.once("connect", taken);
      else taken();
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", () => {
      errors++;
      finished++;
    });
    request.end(chosen.body);
  };

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) send(sent++);
      if (sent === total && finished === total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  agent.destroy();
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN,
    );
  return {
    requests: latencies.length,
    requestsPerSecond: Math.round(latencies.length / elapsed),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: Math.round(latencies.at(-1) ?? Number.NaN),
    errors,
    non2xx,
    firstFailure,
    slowest: keepSlowest(traced, options.trace ?? 0),
  };
}

/**
 * Opens the agent's connections before the schedule starts (one `GET /health` on each, at
 * once): a steady rate is measured on open connections, not on the first requests of the run
 * waiting for their handshakes (~40 of them at 1,000/s took 10–30 ms, bench/RESULTS.md).
 */
async function openConnections(target: URL, agent: http.Agent, count: number): Promise<void> {
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const request = http.get({
        host: target.hostname,
        port: target.port,
        path: "/health",
        agent,
      });
      request.on("response", (response) => response.resume().on("end", resolve));
      request.on("error", reject);
    });
  await Promise.all(Array.from({ length: count }, one));
}

/** Cuts `traced` to its `count` slowest requests, slowest first. */
function keepSlowest(traced: SlowRequest[], count: number): SlowRequest[] {
  traced.sort((a, b) => b.latencyMs - a.latencyMs);
  traced.length = Math.min(traced.length, count);
  return traced;
}
