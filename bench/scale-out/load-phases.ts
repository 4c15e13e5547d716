/**
 * Load spread over several instances, as a load balancer would spread it: each instance gets
 * its share of the keep-alive connections (saturated runs, bench/http/drive.ts) or of the
 * request rate (open loop, bench/http/open-loop.ts, from processes of its own), with the CPU
 * each role used meanwhile (cpu.ts). A connection-level split is what an L4 balancer does with
 * keep-alive clients; a request-level round robin would spread the same load the same way
 * here, since every connection sends the same mix.
 */
import http from "node:http";
import { type DriveSummary, drive } from "../http/drive.js";
import type { BenchRequest } from "../http/fixture.js";
import { type ApartSummary, openLoopApart } from "../http/open-loop-apart.js";
import { type CpuRoles, cpuShares, cpuSnapshot } from "./cpu.js";

export interface Spread {
  readonly requestsPerSecond: number;
  /** One summary per instance, in order. */
  readonly perInstance: readonly DriveSummary[];
  /** Cores used per role while the load ran. */
  readonly cores: ReadonlyMap<string, number>;
}

/** Instance k gets every n-th request starting at k, so no two instances see the same body. */
function share(requests: readonly BenchRequest[], k: number, n: number): BenchRequest[] {
  return requests.filter((_, i) => i % n === k);
}

/**
 * `run`'s summaries with the cores each role used meanwhile. `elsewhere` is the generator's CPU
 * seconds spent in processes of its own (open loops apart), which /proc saw as `other`.
 */
async function measured<Summary extends DriveSummary>(
  roles: CpuRoles,
  run: () => Promise<Summary[]>,
  elsewhere: (summaries: readonly Summary[]) => number = () => 0,
): Promise<Spread> {
  const before = await cpuSnapshot(roles);
  const perInstance = await run();
  const after = await cpuSnapshot(roles);
  const cores = cpuShares(before, after);
  const apart = elsewhere(perInstance) / ((after.at - before.at) / 1000);
  cores.set("generator", (cores.get("generator") ?? 0) + apart);
  cores.set("other", Math.max(0, (cores.get("other") ?? 0) - apart));
  const requestsPerSecond = perInstance.reduce((sum, s) => sum + s.requestsPerSecond, 0);
  return { requestsPerSecond, perInstance, cores };
}

export interface SpreadOptions {
  readonly urls: readonly string[];
  readonly apiKey: string;
  readonly requests: readonly BenchRequest[];
  readonly seconds: number;
  readonly roles: CpuRoles;
}

/** As fast as the instances answer: `connections` in all, split evenly. */
export function saturated(options: SpreadOptions & { readonly connections: number }) {
  const n = options.urls.length;
  return measured(options.roles, () =>
    Promise.all(
      options.urls.map((url, k) =>
        drive({
          url,
          apiKey: options.apiKey,
          requests: share(options.requests, k, n),
          connections: Math.max(1, Math.round(options.connections / n)),
          seconds: options.seconds,
        }),
      ),
    ),
  );
}

/**
 * `rate` requests/s in all on a fixed schedule, each instance its share, each share from a
 * process of its own (bench/http/open-loop-apart.ts: this one's collections would count as the
 * instances' latency).
 */
export function steady(options: SpreadOptions & { readonly rate: number }) {
  const n = options.urls.length;
  const generatorSeconds = (summaries: readonly ApartSummary[]) =>
    summaries.reduce((sum, s) => sum + s.generatorCpuSeconds, 0);
  return measured(
    options.roles,
    () =>
      Promise.all(
        options.urls.map((url, k) =>
          openLoopApart({
            url,
            apiKey: options.apiKey,
            requests: share(options.requests, k, n),
            rate: options.rate / n,
            seconds: options.seconds,
            connections: Math.ceil(50 / n),
          }),
        ),
      ),
    generatorSeconds,
  );
}

/**
 * 500 requests per instance on 4 connections (the first question of each shape plans and
 * prepares its statements), then `amount` more per instance at full concurrency, discarded:
 * the first thousands of requests at full load cost 3–5× the CPU per request of later ones
 * (V8 optimizing the hot paths of the instances and of the generator, the pool opening its
 * connections). Counted in requests, not seconds: on a loaded machine a second holds few.
 */
export async function warmUp(
  urls: readonly string[],
  apiKey: string,
  requests: readonly BenchRequest[],
  amount: number,
): Promise<void> {
  const connections = Math.ceil(50 / urls.length);
  await Promise.all(
    urls.map((url) => drive({ url, apiKey, requests, connections: 4, seconds: 120, amount: 500 })),
  );
  await Promise.all(
    urls.map((url) => drive({ url, apiKey, requests, connections, seconds: 120, amount })),
  );
}

export interface Sequential {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly calls: number;
}

/**
 * `requests` one at a time on one keep-alive connection, timed to the microsecond (autocannon's
 * histogram counts whole milliseconds); throws on a non-2xx answer.
 */
export async function oneAtATime(
  url: string,
  apiKey: string,
  requests: readonly BenchRequest[],
): Promise<Sequential> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (const { path, body } of requests) {
      const started = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          {
            host: target.hostname,
            port: target.port,
            method: "POST",
            path,
            agent,
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
              authorization: `Bearer ${apiKey}`,
            },
          },
          (response) => {
            response.resume();
            response.on("end", () => resolve(response.statusCode ?? 0));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
      if (status < 200 || status >= 300) throw new Error(`${path} answered ${status}`);
      times.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 100) / 100;
  return { p50Ms: at(0.5), p99Ms: at(0.99), calls: times.length };
}

/** `| 2,310 | 9 / 10 | 31 / 35 | 0 |`: the total rate, then p50, p99 and errors per instance. */
export function spreadCells(spread: Spread): string {
  const each = (pick: (s: DriveSummary) => number) => spread.perInstance.map(pick).join(" / ");
  const failures = spread.perInstance.reduce((sum, s) => sum + s.errors + s.non2xx, 0);
  return `${spread.requestsPerSecond.toLocaleString("en")} | ${each((s) => s.p50Ms)} | ${each((s) => s.p99Ms)} | ${failures}`;
}

/**
 * CPU time per answered request of each measured role, `instances 170 · postgres 70 ·
 * generator 60 µs`: unlike requests/s, it hardly depends on what else the machine runs, so it
 * extrapolates to dedicated cores (cores / (µs per request) = requests/s).
 */
export function perRequestCells(spread: Spread): string {
  const roles = [...spread.cores].filter(([role]) => role !== "other");
  const micros = ([, cores]: [string, number]) =>
    Math.round((cores / Math.max(1, spread.requestsPerSecond)) * 1e6);
  return `${roles.map((role) => `${role[0]} ${micros(role)}`).join(" · ")} µs`;
}

/** Cores per role, `generator 0.6 · instances 0.9 · postgres 0.4 · other 0.1`. */
export function coreCells(cores: ReadonlyMap<string, number>): string {
  return [...cores].map(([role, used]) => `${role} ${used.toFixed(2)}`).join(" · ");
}
