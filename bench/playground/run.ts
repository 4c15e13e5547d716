/**
 * The playground's figures (bench/RESULTS.md, issue 19): the page's gzipped size without PGlite,
 * the time from navigation to the first answer in Chromium (each load in a fresh profile), and
 * the time of the first `run-sql` (PGlite loaded then) and of a second one.
 *
 *   npx tsx bench/playground/run.ts [--loads=10]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { buildPlayground } from "../../src/cli/playground-build.js";
import { runPlaygroundCommand } from "../../src/cli/playground-command.js";

const loads = Number(/^--loads=(\d+)$/.exec(process.argv[2] ?? "")?.[1] ?? 10);
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const site = await mkdtemp(join(tmpdir(), "polar-sql-playground-bench-"));
const built = await buildPlayground(site);
let stop!: () => void;
const stopped = new Promise<void>((done) => {
  stop = done;
});
let served!: Promise<number>;
const url = await new Promise<string>((listening) => {
  served = runPlaygroundCommand(
    ["--port", "0", "--dir", site],
    { stdout: () => {}, stderr: () => {}, isTTY: false },
    { stop: stopped, onListening: listening },
  );
});

const firstAnswers: number[] = [];
const firstSql: number[] = [];
const secondSql: number[] = [];
for (let i = 0; i < loads; i++) {
  const profile = await mkdtemp(join(tmpdir(), "polar-sql-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  await page.waitForFunction("document.body.dataset.firstAnswerMs !== undefined");
  // performance.now() at the first answer: milliseconds since navigation started.
  firstAnswers.push(Number(await page.evaluate<string>("document.body.dataset.firstAnswerMs")));
  for (const times of [firstSql, secondSql]) {
    const started = Date.now();
    await page.getByTestId("run-sql").click();
    await page.waitForFunction(
      "document.querySelector('[data-testid=sql-rows]').dataset.answer !== undefined",
    );
    times.push(Date.now() - started);
  }
  await context.close();
  await rm(profile, { recursive: true, force: true });
}
stop();
await served;
await rm(site, { recursive: true, force: true });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(
  `load average ${loadavg()
    .map((v) => v.toFixed(2))
    .join(" ")}`,
);
console.log(`page gzipped at load (HTML, CSS, script; no PGlite): ${kb(built.initialGzipBytes)}`);
console.log(`chunks loaded on the first run-sql, gzipped: ${kb(built.lazyGzipBytes)}`);
for (const [name, values] of [
  ["navigation to first answer", firstAnswers],
  ["first run-sql (loads PGlite)", firstSql],
  ["second run-sql", secondSql],
] as const) {
  console.log(
    `${name}: median ${median(values)} ms, max ${Math.max(...values)} ms over ${values.length} loads`,
  );
}
