/**
 * The playground's figures (bench/RESULTS.md, issues 19 and 32): in Chromium, each load in a
 * fresh profile, the bytes over the wire (CDP `Network.loadingFinished.encodedDataLength`:
 * compressed bodies and headers) of the first visit before any SQL runs, of the first `run-sql`
 * (PGlite) and of a reload; the time from navigation to the first answer; and the time of the
 * first `run-sql` and of a second one.
 *
 *   npx tsx bench/playground/run.ts [--loads=10]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type CDPSession, chromium, type Page } from "playwright-core";
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

/** Bytes received and requests made since the last `take()`, and whether any is pending. */
class WireMeter {
  private bytes = 0;
  private urls: string[] = [];
  private readonly pending = new Set<string>();

  constructor(cdp: CDPSession) {
    cdp.on("Network.requestWillBeSent", (event) => {
      this.pending.add(event.requestId);
      this.urls.push(event.request.url);
    });
    cdp.on("Network.loadingFinished", (event) => {
      this.pending.delete(event.requestId);
      this.bytes += event.encodedDataLength;
    });
    cdp.on("Network.loadingFailed", (event) => this.pending.delete(event.requestId));
  }

  /** Waits until no request is pending, then returns and resets the counts. */
  async take(page: Page): Promise<{ bytes: number; urls: string[] }> {
    while (this.pending.size > 0) await page.waitForTimeout(50);
    const taken = { bytes: this.bytes, urls: this.urls };
    this.bytes = 0;
    this.urls = [];
    return taken;
  }
}

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

const firstVisitBytes: number[] = [];
const runSqlBytes: number[] = [];
const reloadBytes: number[] = [];
const firstAnswers: number[] = [];
const firstSql: number[] = [];
const secondSql: number[] = [];
let pgliteBeforeSql = 0;
const answered = "document.querySelector('[data-testid=sql-rows]').dataset.answer !== undefined";
for (let i = 0; i < loads; i++) {
  const profile = await mkdtemp(join(tmpdir(), "polar-sql-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const meter = new WireMeter(cdp);
  await page.goto(url);
  await page.waitForFunction("document.body.dataset.firstAnswerMs !== undefined");
  // performance.now() at the first answer: milliseconds since navigation started.
  firstAnswers.push(Number(await page.evaluate<string>("document.body.dataset.firstAnswerMs")));
  const visit = await meter.take(page);
  firstVisitBytes.push(visit.bytes);
  pgliteBeforeSql += visit.urls.filter((u) => /pglite|sql-runner|initdb/.test(u)).length;
  for (const times of [firstSql, secondSql]) {
    const started = Date.now();
    await page.getByTestId("run-sql").click();
    await page.waitForFunction(answered);
    times.push(Date.now() - started);
    if (times === firstSql) runSqlBytes.push((await meter.take(page)).bytes);
  }
  await page.reload();
  await page.waitForFunction("document.body.dataset.firstAnswerMs !== undefined");
  reloadBytes.push((await meter.take(page)).bytes);
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
console.log(
  `built: ${kb(built.initialBrotliBytes)} brotli before any SQL (${built.initialFiles.length} files), ` +
    `${kb(built.lazyBrotliBytes)} brotli on the first run-sql (${built.lazyFiles.length} files)`,
);
for (const [name, values] of [
  ["first visit over the wire, before any SQL", firstVisitBytes],
  ["first run-sql over the wire (PGlite)", runSqlBytes],
  ["reload over the wire", reloadBytes],
] as const) {
  console.log(`${name}: median ${kb(median(values))}, max ${kb(Math.max(...values))}`);
}
console.log(`PGlite requests before the first run-sql: ${pgliteBeforeSql}`);
for (const [name, values] of [
  ["navigation to first answer", firstAnswers],
  ["first run-sql (loads PGlite)", firstSql],
  ["second run-sql", secondSql],
] as const) {
  console.log(
    `${name}: median ${median(values)} ms, max ${Math.max(...values)} ms over ${values.length} loads`,
  );
}
