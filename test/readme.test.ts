/**
 * The README's walkthroughs run as written: every ```console block is a sequence of `$ `
 * commands (continued on lines indented by two spaces) each followed by the output it must
 * print. Each block runs in one bash session against a server started like `npm start`, with
 * the placeholders `psk_…` and `http://127.0.0.1:8080` replaced by the real key and address.
 */
import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolarService } from "../src/api/service.js";
import { buildBundle } from "../src/cli/bundle-build.js";
import type { CliIo } from "../src/cli/io.js";
import { PACKAGE_ROOT } from "../src/cli/playground-build.js";
import { runServeCommand } from "../src/cli/serve-command.js";
import { readFacts } from "../src/cli/sql-command.js";
import type { ServerHandle } from "../src/http/server.js";
import { createService } from "../src/service/service.js";

interface Step {
  readonly command: string;
  readonly output: string;
}

/** The steps of each ```console block of a markdown text. */
function consoleBlocks(markdown: string): Step[][] {
  const blocks: Step[][] = [];
  for (const match of markdown.matchAll(/```console\n([\s\S]*?)```/g)) {
    const steps: { command: string[]; output: string[] }[] = [];
    for (const line of match[1]!.split("\n")) {
      const last = steps.at(-1);
      if (line.startsWith("$ ")) steps.push({ command: [line.slice(2)], output: [] });
      else if (last && last.output.length === 0 && line.startsWith("  ")) last.command.push(line);
      else if (last && line !== "") last.output.push(line);
    }
    blocks.push(steps.map((s) => ({ command: s.command.join("\n"), output: s.output.join("\n") })));
  }
  return blocks;
}

const MARK = "@@readme-step@@";
const ROOT = resolve(".");
const KEY = "psk_readme_test_key";
const hasTools = ["curl", "jq", "bash"].every(
  (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0,
);
if (!hasTools)
  console.warn("notice: curl, jq or bash is missing; the README walkthrough is skipped");

interface Quickstart {
  readonly server: ServerHandle;
  /** Back to the state `npm start` leaves: its policy and facts, nothing else. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server as `npm start` does. */
async function startQuickstart(): Promise<Quickstart> {
  const policy = "examples/quickstart/policy.polar";
  const stop = new AbortController();
  const silent: CliIo = { stdout: () => {}, stderr: () => {}, isTTY: false };
  let service: PolarService | undefined;
  let listening: (server: ServerHandle) => void = () => {};
  const started = new Promise<ServerHandle>((done) => {
    listening = done;
  });
  const exit = runServeCommand(
    [
      "--policy",
      policy,
      "--facts",
      "examples/quickstart/facts.json",
      "--port",
      "0",
      "--log-level",
      "silent",
    ],
    silent,
    {
      env: { POLAR_SQL_API_KEYS: KEY },
      stop: stop.signal,
      onListening: listening,
      openService: async (options) => {
        service = await createService(options);
        return service;
      },
    },
  );
  const server = await Promise.race([started, exit.then(() => null)]);
  if (!server || !service) throw new Error("the server did not start");
  const opened = service;
  return {
    server,
    async reset() {
      await opened.postPolicy({ src: readFileSync(policy, "utf8"), filename: policy }, {});
      await opened.clearData();
      await opened.batch([{ inserts: await readFacts("examples/quickstart/facts.json") }]);
    },
    async stop() {
      stop.abort();
      await exit;
    },
  };
}

/**
 * `polar-sql` as `npm run build:bundle` makes it, from this checkout's sources (dist/ may be
 * older), in a folder of its own under dist/ (the bundle finds package.json two levels up) with
 * the entry bin/polar-sql.js gives it. The file's CPU fell from 16 s to 7 s when its commands
 * stopped running the sources through tsx.
 */
async function bundleCli(): Promise<{ command: string; remove(): Promise<void> }> {
  await mkdir(join(PACKAGE_ROOT, "dist"), { recursive: true });
  const dir = await mkdtemp(join(PACKAGE_ROOT, "dist", "readme-cli-"));
  try {
    await buildBundle(dir);
    const bin = readFileSync(join(PACKAGE_ROOT, "bin", "polar-sql.js"), "utf8");
    if (!bin.includes('"../dist/bundle/polar-sql.js"')) {
      throw new Error("bin/polar-sql.js no longer loads ../dist/bundle/polar-sql.js");
    }
    const entry = join(dir, "run.mjs");
    await writeFile(entry, bin.replace('"../dist/bundle/polar-sql.js"', '"./polar-sql.js"'));
    return { command: `node ${JSON.stringify(entry)}`, remove: () => rm(dir, { recursive: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Runs the steps in one bash session; returns what each printed on stdout. Asynchronous: the
 * server answering the commands runs in this process.
 */
async function runSteps(
  steps: readonly Step[],
  server: ServerHandle,
  polarSql: string,
): Promise<string[]> {
  const script = [
    "set -u",
    `cd ${JSON.stringify(ROOT)}`,
    `npx() { if [ "$1" = polar-sql ]; then shift; ${polarSql} "$@"; else command npx "$@"; fi; }`,
    ...steps.flatMap((step) => [
      step.command.replaceAll("psk_…", KEY).replaceAll("http://127.0.0.1:8080", server.url),
      `printf '\\n${MARK}\\n'`,
    ]),
  ].join("\n");
  const stdout = await new Promise<string>((done, fail) => {
    execFile(
      "bash",
      ["-c", script],
      { encoding: "utf8", env: { ...process.env, POLAR_SQL_URL: "", POLAR_SQL_API_KEY: "" } },
      (error, out) => (error ? fail(error) : done(out)),
    );
  });
  return stdout.split(`\n${MARK}\n`).slice(0, steps.length);
}

describe("README.md", () => {
  const blocks = consoleBlocks(readFileSync("README.md", "utf8"));
  let quickstart: Quickstart | undefined;
  let cli: Awaited<ReturnType<typeof bundleCli>> | undefined;
  beforeAll(async () => {
    if (!hasTools) return;
    cli = await bundleCli();
    quickstart = await startQuickstart();
  });
  afterAll(async () => {
    await quickstart?.stop();
    await cli?.remove();
  });

  it("has console walkthroughs with commands and outputs", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks)
      expect(block.filter((s) => s.output !== "").length).toBeGreaterThan(3);
  });

  it.skipIf(!hasTools).each(blocks.map((block, i) => [i + 1, block] as const))(
    "console block %i prints what the README says",
    async (_, steps) => {
      await quickstart!.reset();
      const outputs = await runSteps(steps, quickstart!.server, cli!.command);
      const found = steps.map((step, i) => ({
        command: step.command,
        output: (outputs[i] ?? "").trimEnd(),
      }));
      expect(found).toEqual(steps.map((s) => ({ command: s.command, output: s.output })));
    },
    // Each `npx polar-sql` step starts a Node process; a busy machine needs time for that.
    180_000,
  );

  it("the step parser keeps continuation lines and multi-line outputs", () => {
    const markdown = "```console\n$ a \\\n  b\none\ntwo\n$ c\n```\n";
    expect(consoleBlocks(markdown)).toEqual([
      [
        { command: "a \\\n  b", output: "one\ntwo" },
        { command: "c", output: "" },
      ],
    ]);
  });
});
