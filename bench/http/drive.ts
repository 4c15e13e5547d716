/**
 * One autocannon run over a rotating list of requests; used by the load benchmark and by the
 * short load test in the suite.
 */
import autocannon from "autocannon";
import type { BenchRequest } from "./fixture.js";

export interface DriveOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: readonly BenchRequest[];
  readonly connections: number;
  /** How long to send for; with `amount`, an upper bound only. */
  readonly seconds: number;
  /** Send exactly this many requests instead of sending until `seconds` pass. */
  readonly amount?: number;
  /** A request slower than this counts as an error (a timeout); 5 s by default. */
  readonly timeoutSeconds?: number;
}

export interface DriveSummary {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Socket errors and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  /** The first non-2xx answer, to explain a failure. */
  readonly firstFailure: string | null;
}

/**
 * Sends `requests` round-robin on `connections` keep-alive connections for `seconds`.
 *
 *   const summary = await drive({ url, apiKey, requests, connections: 50, seconds: 10 });
 */
export async function drive(options: DriveOptions): Promise<DriveSummary> {
  let next = 0;
  let firstFailure: string | null = null;
  const all = options.requests;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    ...(options.amount !== undefined && { amount: options.amount }),
    timeout: options.timeoutSeconds ?? 5,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${options.apiKey}`,
    },
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const chosen = all[next++ % all.length]!;
          return { ...request, path: chosen.path, body: chosen.body };
        },
        onResponse: (status, body) => {
          if ((status < 200 || status >= 300) && firstFailure === null) {
            firstFailure = `${status} ${body.slice(0, 300)}`;
          }
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.total / options.seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    firstFailure,
  };
}
