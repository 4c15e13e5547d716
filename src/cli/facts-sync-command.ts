/**
 * `polar-sql facts sync`: keeps stored facts in step with the application's database, from a
 * sync file in the format of Oso's (src/sync/config.ts).
 */
import { readFile } from "node:fs/promises";
import { formatSignature, parseSignature } from "../bindings/signature.js";
import { parseSyncConfig, SyncConfigError } from "../sync/config.js";
import { openSources, type SourceConnections, SyncSourceError } from "../sync/source.js";
import {
  applySync,
  planSync,
  SyncFactError,
  type SyncStep,
  selectSignatures,
} from "../sync/sync.js";
import { type FactTarget, httpTarget, SyncTargetError, storeTarget } from "../sync/target.js";
import {
  type CommandSpec,
  type ParsedArgs,
  parseCommandArgs,
  reportUsage,
  UsageError,
  wantsHelp,
} from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./io.js";

export const FACTS_SYNC_HELP = `usage: polar-sql facts sync --config <sync.yaml> (--url <url> | --database-url <url>) [options]

Makes the stored facts of each signature in the sync file equal to what its query returns
from the application's PostgreSQL database: inserts what is missing, deletes what is stale.
Every query runs and every fact is checked before anything is written; a second run
changes nothing.

options:
  --config <file>         the sync file: \`facts:\` signature -> { db, query },
                          \`dbs:\` name -> { connection_string } ($NAME reads the environment)
  --url <url>             a polar-sql server (or POLAR_SQL_URL, OSO_URL)
  --api-key <key>         its API key (or POLAR_SQL_API_KEY, OSO_AUTH)
  --database-url <url>    write to a store database directly instead of a server
  --dry-run               print what would be inserted and deleted per signature; write nothing
  --only <signature>      sync only this signature (repeatable)
  --help                  show this help

exit codes:
  0  synced (or the dry run printed)
  1  a query, a fact or the target failed
  2  wrong arguments or an unreadable sync file
`;

/** What the argument parser knows of `facts sync` (src/cli/args.ts). */
export const FACTS_SYNC_SPEC = {
  name: "facts sync",
  usage: "polar-sql facts sync --config <sync.yaml> (--url <url> | --database-url <url>) [options]",
  options: {
    config: { type: "string" },
    url: { type: "string" },
    "api-key": { type: "string" },
    "database-url": { type: "string" },
    "dry-run": { type: "boolean" },
    only: { type: "string", multiple: true },
  },
} as const satisfies CommandSpec;

interface FactsOptions {
  /** The environment for `$NAME` and the key variables; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs `polar-sql facts sync` (its arguments after `sync`); returns the exit code.
 *
 *   await runFactsSync(["--config", "sync.yaml", "--dry-run", "--url", url], io);
 */
export async function runFactsSync(
  rest: readonly string[],
  io: CliIo,
  options: FactsOptions = {},
): Promise<number> {
  if (wantsHelp(rest)) {
    io.stdout(FACTS_SYNC_HELP);
    return EXIT_OK;
  }
  const env = options.env ?? process.env;
  const usage = (message: string | UsageError) => reportUsage(io, FACTS_SYNC_SPEC, message);
  let values: ParsedArgs<typeof FACTS_SYNC_SPEC.options>["values"];
  try {
    const parsed = parseCommandArgs(FACTS_SYNC_SPEC, rest);
    values = parsed.values;
    if (parsed.positionals.length > 0) {
      return usage(`unexpected argument \`${parsed.positionals[0]}\``);
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(error);
    throw error;
  }
  if (!values.config) return usage("no sync file given (`--config <sync.yaml>`)");
  const url = values.url ?? env.POLAR_SQL_URL ?? env.OSO_URL;
  const databaseUrl = values["database-url"];
  if (values.url !== undefined && databaseUrl !== undefined)
    return usage("give either `--url` or `--database-url`, not both");
  if (databaseUrl === undefined && url === undefined)
    return usage("say where the facts are stored: `--url <server>` or `--database-url <store>`");
  const apiKey = values["api-key"] ?? env.POLAR_SQL_API_KEY ?? env.OSO_AUTH;
  if (databaseUrl === undefined && !apiKey)
    return usage("`--url` needs an API key (`--api-key`, or POLAR_SQL_API_KEY)");

  let text: string;
  try {
    text = await readFile(values.config, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : (cause as Error).message;
    io.stderr(`error: cannot read \`${values.config}\`: ${reason}\n`);
    return EXIT_USAGE;
  }
  let target: FactTarget | undefined;
  let sources: SourceConnections | undefined;
  try {
    const config = parseSyncConfig(text, values.config, env);
    const signatures = selectSignatures(config, values.only ?? [], canonicalSignature);
    target = databaseUrl !== undefined ? await storeTarget(databaseUrl) : httpTarget(url!, apiKey!);
    sources = openSources(config.dbs);
    const steps = await planSync(signatures, sources, target);
    if (values["dry-run"]) {
      for (const step of steps) io.stdout(`${step.signature.signature}: ${counts([step], true)}\n`);
      io.stdout(`dry run: ${counts(steps, true)}; nothing written\n`);
      return EXIT_OK;
    }
    await applySync(steps, target, (signature, done, total) => {
      if (io.isTTY && total > 0) io.stdout(`\r${signature.signature}: ${done}/${total}`);
    });
    if (io.isTTY) io.stdout("\r\x1b[K");
    for (const step of steps) io.stdout(`${step.signature.signature}: ${counts([step], false)}\n`);
    io.stdout(`synced: ${counts(steps, false)}\n`);
    return EXIT_OK;
  } catch (error) {
    if (
      error instanceof SyncConfigError ||
      error instanceof SyncSourceError ||
      error instanceof SyncFactError ||
      error instanceof SyncTargetError
    ) {
      if (io.isTTY) io.stdout("\r\x1b[K");
      io.stderr(`error: ${error.message}\n`);
      return EXIT_FAILED;
    }
    throw error;
  } finally {
    await sources?.close();
    await target?.close();
  }
}

function canonicalSignature(text: string): string | null {
  const parsed = parseSignature(text);
  return parsed.kind === "signature" ? formatSignature(parsed.predicate, parsed.slots) : null;
}

/** `3 inserted, 1 deleted, 40 unchanged`, summed over the steps. */
function counts(steps: readonly SyncStep[], dry: boolean): string {
  const sum = (pick: (s: SyncStep) => number) => steps.reduce((n, s) => n + pick(s), 0);
  const [inserted, deleted] = dry ? ["to insert", "to delete"] : ["inserted", "deleted"];
  return `${sum((s) => s.inserts.length)} ${inserted}, ${sum((s) => s.deletes.length)} ${deleted}, ${sum((s) => s.unchanged)} unchanged`;
}
