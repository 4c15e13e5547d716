/**
 * `polar-sql preview`: who gains and who loses which access if a candidate policy replaced the
 * current one (docs/policy-preview.md). Offline, over a facts file loaded into an in-memory
 * store; or against a running server's active policy and stored facts (`--url`).
 */

import { basename } from "node:path";
import { checkPolicy } from "../check/check.js";
import type { PreviewReplyBody, PreviewTripleBody } from "../client/http.js";
import { formatValue } from "../client/values.js";
import { PreviewError } from "../preview/errors.js";
import { previewPolicyChange } from "../preview/preview.js";
import { previewStoreOf } from "../preview/store-view.js";
import { formatDiagnostic } from "../source/format.js";
import { StageError } from "../source/stage-error.js";
import { openStore } from "../store/store.js";
import type { CommandSpec } from "./args.js";
import {
  countOption,
  parseCommandArgs,
  reportUsage,
  requireOptions,
  UsageError,
  wantsHelp,
} from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, readSources } from "./io.js";
import { CLIENT_EXIT_CODES, CONNECTION_HELP, type RemoteSpec, runRemote } from "./remote.js";
import { CommandError, loadPolicyFiles, readFacts } from "./sql-command.js";

const USAGE =
  "polar-sql preview --policy <files...> --new-policy <files...> [--facts <file>] [--json] [--page-size <n>]";

const PREVIEW_HELP = `usage: ${USAGE}
       polar-sql preview --new-policy <files...> --url <server> [--json] [--page-size <n>]

Lists who would gain and who would lose which permission on which resource if the
candidate policy (--new-policy) replaced the current one: every actor and resource the
facts name, every permission either policy declares. Also runs each policy's tests.

  polar-sql preview --policy app.polar --new-policy app-next.polar --facts facts.json
  polar-sql preview --new-policy app-next.polar --url http://127.0.0.1:8080

options:
  --policy <files...>      the current policy (offline)
  --new-policy <files...>  the candidate policy; required
  --facts <file>           the facts (offline): a JSON array of {"predicate", "args"}
  --json                   print {"gained", "lost", "counts", "tests"} as the HTTP API does
  --page-size <n>          triples fetched per page (default 1000; every page is printed)
  --help                   show this help

Without --policy, the current policy and the facts are the server's (--url).

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}; the offline form exits 1 when a policy has errors
`;

const OPTIONS = {
  policy: { type: "string", multiple: true },
  "new-policy": { type: "string", multiple: true },
  facts: { type: "string" },
  json: { type: "boolean" },
  "page-size": { type: "string" },
} as const;

/** What the argument parser knows of `preview` (src/cli/args.ts). */
export const PREVIEW_SPEC = {
  name: "preview",
  usage: USAGE,
  options: OPTIONS,
} as const satisfies CommandSpec;
const SPEC = PREVIEW_SPEC;

const REMOTE_SPEC: RemoteSpec<typeof OPTIONS> = { ...SPEC, positionals: [], help: PREVIEW_HELP };

const PAGE_SIZE_MAX = 100_000;

/** `polar-sql preview …`: returns the exit code. */
export async function runPreviewCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(PREVIEW_HELP);
    return EXIT_OK;
  }
  const spread = spreadFileLists(args);
  if (!spread.includes("--policy")) return runAgainstServer(spread, io);
  try {
    return await runOffline(spread, io);
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, SPEC, error.message);
    if (error instanceof CommandError) {
      io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof PreviewError || error instanceof StageError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_FAILED;
    }
    throw error;
  }
}

/** `--policy a.polar b.polar` as `--policy a.polar --policy b.polar`, for either file list. */
function spreadFileLists(args: readonly string[]): string[] {
  const spread: string[] = [];
  let list: string | null = null;
  let filled = false;
  // A list flag without files stays as given: the parser says it needs a value.
  const close = () => {
    if (list !== null && !filled) spread.push(list);
    list = null;
  };
  for (const arg of args) {
    if (arg === "--policy" || arg === "--new-policy") {
      close();
      list = arg;
      filled = false;
    } else if (list !== null && !arg.startsWith("-")) {
      spread.push(list, arg);
      filled = true;
    } else {
      close();
      spread.push(arg);
    }
  }
  close();
  return spread;
}

async function runOffline(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(SPEC, args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
  requireOptions(values, ["policy", "new-policy"], "preview");
  const pageSize = countOption("page-size", values["page-size"], 1000, PAGE_SIZE_MAX);
  const active = (await loadPolicyFiles(values.policy!, io)).program;
  const candidate = (await loadPolicyFiles(values["new-policy"]!, io)).program;
  const facts = values.facts ? await readFacts(values.facts) : [];
  const store = await openStore();
  try {
    if (facts.length > 0) await store.applyBatch([{ inserts: facts }]);
    const view = await previewStoreOf(store);
    const reply = await allPages((pageToken) =>
      previewPolicyChange(view, {
        active,
        candidate,
        pageSize,
        ...(pageToken !== undefined && { pageToken }),
      }),
    );
    io.stdout(values.json ? `${JSON.stringify(reply, null, 2)}\n` : formatPreview(reply));
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

function runAgainstServer(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(REMOTE_SPEC, args, io, async ({ client, values }) => {
    if (values.facts) throw new UsageError("`--facts` needs `--policy` (offline preview)");
    requireOptions(values, ["new-policy"], "preview");
    const pageSize = countOption("page-size", values["page-size"], 1000, PAGE_SIZE_MAX);
    const read = await readSources(values["new-policy"]!);
    if (!read.ok) throw new UsageError(read.message);
    const checked = checkPolicy(read.sources);
    for (const diagnostic of checked.diagnostics) {
      io.stderr(`${formatDiagnostic(diagnostic, read.sources, { color: io.isTTY })}\n\n`);
    }
    if (!checked.ok) {
      io.stderr("error: the candidate policy has errors; nothing was sent\n");
      return EXIT_FAILED;
    }
    const src = read.sources.map((source) => source.text).join("\n");
    const filename = read.sources.length === 1 ? basename(read.sources[0]!.name) : null;
    const reply = await allPages((pageToken) =>
      client.previewPolicy({
        src,
        filename,
        page_size: pageSize,
        ...(pageToken !== undefined && { page_token: pageToken }),
      }),
    );
    io.stdout(values.json ? `${JSON.stringify(reply, null, 2)}\n` : formatPreview(reply));
    return undefined;
  });
}

/** Every page, as one reply without a page token. */
async function allPages(
  page: (token: string | undefined) => Promise<PreviewReplyBody>,
): Promise<PreviewReplyBody> {
  const first = await page(undefined);
  const gained = [...first.gained];
  const lost = [...first.lost];
  let token = first.next_page_token;
  while (token !== undefined) {
    const next = await page(token);
    gained.push(...next.gained);
    lost.push(...next.lost);
    token = next.next_page_token;
  }
  return { gained, lost, counts: first.counts, tests: first.tests };
}

/**
 * The readable form: one section per resource type and permission that changes, `+` for a
 * gain and `-` for a loss, then the totals and the tests.
 */
function formatPreview(reply: PreviewReplyBody): string {
  const lines: string[] = [];
  let gained = 0;
  let lost = 0;
  for (const [resourceType, actions] of Object.entries(reply.counts)) {
    for (const [action, count] of Object.entries(actions)) {
      gained += count.gained;
      lost += count.lost;
      if (count.gained + count.lost === 0) continue;
      const matches = (t: PreviewTripleBody) =>
        t.resource.type === resourceType && t.action === action;
      lines.push(
        `${resourceType} ${JSON.stringify(action)}: ${count.gained} gained, ${count.lost} lost`,
      );
      for (const t of reply.gained.filter(matches)) lines.push(`  + ${tripleText(t)}`);
      for (const t of reply.lost.filter(matches)) lines.push(`  - ${tripleText(t)}`);
      lines.push("");
    }
  }
  if (gained + lost === 0) lines.push("no access changes", "");
  else lines.push(`${gained} gained, ${lost} lost in total`, "");
  lines.push(`tests of the current policy: ${testLine(reply.tests.active)}`);
  lines.push(`tests of the new policy: ${testLine(reply.tests.candidate)}`);
  return `${lines.join("\n")}\n`;
}

function tripleText(t: PreviewTripleBody): string {
  return `${formatValue(t.actor)} on ${formatValue(t.resource)}`;
}

function testLine(summary: { passed: readonly string[]; failed: readonly string[] }): string {
  const failed = summary.failed.map((name) => `\`${name}\``).join(", ");
  return `${summary.passed.length} passed, ${summary.failed.length} failed${failed ? ` (${failed})` : ""}`;
}
