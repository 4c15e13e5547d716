/**
 * An open-loop load: requests are sent on a fixed schedule (`rate` per second, evenly spaced)
 * whatever the server's pace, and each latency counts from the request's scheduled time, so
 * time spent queued behind a slow server is not hidden (no coordinated omission). This is
 * what "serves N requests/s with p99 ≤ X" means; a closed loop of C connections instead
 * measures queueing behind its own C requests (autocannon's rate option sends each second's
 * quota in a burst).
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
}

export async function openLoop(options: OpenLoopOptions): Promise<DriveSummary> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 50 });
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let firstFailure: string | null = null;
  let sent = 0;
  let finished = 0;
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
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            non2xx++;
            firstFailure ??= `${status} ${Buffer.concat(chunks).toString().slice(0, 300)}`;
          }
          latencies.push(performance.now() - scheduled);
          finished++;
        });
      },
    );
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
  };
}
