/**
 * Per-file and per-test CPU time of the test suite (bench/test-cpu/vitest.config.ts): vitest's
 * durations are wall time, which on a shared machine mostly measures the other processes. Each
 * line appended to $TEST_CPU_LOG is `cpu-seconds <tab> file <tab> test` (the test empty for the
 * file's total). CPU is this worker process's, threads included; child processes (Chromium, CLI
 * runs) and the database servers are not counted.
 *
 * Property tests draw new cases each run, and the cases' sizes can double a file's time:
 * $FC_SEED fixes fast-check's seed, so that two trees compared run the same cases.
 */
import { appendFileSync } from "node:fs";
import { basename } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";

if (process.env.FC_SEED) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

const log = process.env.TEST_CPU_LOG ?? "test-cpu.tsv";
const seconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return ((used.user + used.system) / 1e6).toFixed(2);
};
const file = () => basename(expect.getState().testPath ?? "?");

let fileStart: NodeJS.CpuUsage;
let testStart: NodeJS.CpuUsage;
beforeAll(() => {
  fileStart = process.cpuUsage();
});
beforeEach(() => {
  testStart = process.cpuUsage();
});
afterEach((context) => {
  appendFileSync(log, `${seconds(testStart)}\t${file()}\t${context.task.fullName}\n`);
});
afterAll(() => {
  appendFileSync(log, `${seconds(fileStart)}\t${file()}\t\n`);
});
