/**
 * An open-loop run (open-loop.ts) in a process of its own. The benches' main process holds the
 * whole dataset, so its young-generation collections took 6–17 ms every half second or so
 * during a run (against 2–3.5 ms for the server's), and every request due during one was
 * counted as the server's latency (bench/RESULTS.md, "Whose tail"). The child holds only the
 * requests it sends, and reports its own collection pauses with the summary, so that a tail
 * can be told from the generator's.
 *
 *   const summary = await openLoopApart({ url, apiKey, requests, rate: 1000, seconds: 6 });
 *   summary.generatorPauses; // { count: 2, maxMs: 3.1 } (collections of 2 ms or more)
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type OpenLoopOptions, type OpenLoopSummary, openLoop } from "./open-loop.js";

export interface ApartSummary extends OpenLoopSummary {
  /** The generator's garbage collections of 2 ms or more during the run. */
  readonly generatorPauses: { readonly count: number; readonly maxMs: number };
  /** CPU seconds the generator's process used for the run (user and system). */
  readonly generatorCpuSeconds: number;
}

const CHILD = "--open-loop-child";

export async function openLoopApart(options: OpenLoopOptions): Promise<ApartSummary> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), CHILD],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  child.stdin.end(JSON.stringify(options));
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the open-loop generator exited with ${code}`);
  return JSON.parse(output) as ApartSummary;
}

async function runAsChild(): Promise<void> {
  const { PerformanceObserver } = await import("node:perf_hooks");
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const options = JSON.parse(input) as OpenLoopOptions;
  const pauses = { count: 0, maxMs: 0 };
  let running = false;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!running || entry.duration < 2) continue;
      pauses.count++;
      pauses.maxMs = Math.max(pauses.maxMs, Math.round(entry.duration * 10) / 10);
    }
  }).observe({ entryTypes: ["gc"] });
  running = true;
  const before = process.cpuUsage();
  const summary = await openLoop(options);
  const used = process.cpuUsage(before);
  running = false;
  const generatorCpuSeconds = (used.user + used.system) / 1e6;
  process.stdout.write(
    JSON.stringify({ ...summary, generatorPauses: pauses, generatorCpuSeconds }),
  );
}

if (process.argv.includes(CHILD)) await runAsChild();
