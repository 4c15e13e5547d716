/**
 * `polar-sql serve`: the Oso Cloud–compatible HTTP service on an embedded store (PGlite or
 * SQLite, in memory or in a directory) or a PostgreSQL server, with a policy and optional facts
 * loaded.
 */

import { LIMIT_SETTINGS, type LimitName, type Limits } from "../api/limits.js";
import { ApiError, type PolarService } from "../api/service.js";
import { createApp } from "../http/app.js";
import { API_KEYS_ENV, type ApiKey, defaultEnvironmentKeys, generateApiKey } from "../http/auth.js";
import { createLogger, type LogLevel } from "../http/logger.js";
import { type ServerHandle, startServer } from "../http/server.js";
import { type Environments, openEnvironments } from "../service/environments.js";
import type { ServiceOptions } from "../service/service.js";
import type { SourceFile } from "../source/source.js";
import { EMBEDDED_STORES, type EmbeddedStore, type ReplicaOptions } from "../store/store.js";
import { type CommandSpec, parseCommandArgs, reportUsage, UsageError, wantsHelp } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./io.js";
import { loadServeKeys, seedEnvironments, servedEnvironments } from "./serve-environments.js";
import { loadPolicyFiles, readFacts } from "./sql-command.js";

export const SERVE_HELP = `usage: polar-sql serve --policy <files...> [options]

Serves the Oso Cloud HTTP API (under /api) with the given policy. Without a storage
option the facts live in memory and are lost on exit.

options:
  --policy <files...>     the policy (.polar files, loaded as one policy); required
  --port <n>              port to listen on (default 8080; 0 picks a free one)
  --host <addr>           address to bind (default 127.0.0.1)
  --store <engine>        the embedded store: sqlite (default) or pglite
  --data <dir>            keep facts and policy in a directory (the embedded store's files)
  --database-url <url>    keep facts and policy on a PostgreSQL server
  --replica-url <url>     a hot standby of that server answering questions; repeatable
                          (docs/operations.md#read-replicas)
  --replica-wait-ms <n>   how long a question carrying an OsoOffset waits for a standby to
                          replay it before the primary answers (default 100)
  --replica-max-lag-ms <n>
                          a standby further behind is skipped until it catches up
                          (default 5000)
  --facts <file>          insert facts from a JSON array of {"predicate", "args": [{"type","id"}]}
  --api-key-file <path>   accepted API keys, one per line (read-write keys of the
                          environment \`default\`)
  --keys <file>           a YAML keys file: each key (or its key_sha256) with its
                          environment and access (read-write or read-only); each
                          environment has its own policy and facts, and --policy (and
                          --facts) start every environment that has no policy yet
                          (docs/operations.md#environments-and-scoped-keys)
  --log-level <level>     info (default), debug, warn, error or silent
  --allow-unpaged-list    answer /list without page_size with every result at once,
                          as the 1.x clients expect (refused by default)
  --no-answer-cache       keep no answers of central questions (by default answers are
                          kept until the next write: docs/operations.md#answer-cache)
  --workers <n>           worker threads for checking policies and planning (default:
                          cores less one, 2 to 4; 0 does that work on the event loop)
  --max-body-bytes <n>, --max-ids <n>, --max-calls <n>, --max-policy-bytes <n>,
  --max-rules-per-head <n>, --max-rule-depth <n>, --max-branches <n>,
  --max-plan-steps <n>, --max-evaluation-steps <n>, --request-timeout-ms <n>,
  --max-explain-nodes <n>, --max-explain-bytes <n>
                          raise or lower a limit (defaults and meaning: docs/limits.md)
  --help                  show this help

API keys come from --keys, ${API_KEYS_ENV} (comma-separated) and --api-key-file. With
none configured, a random key is generated and printed once; requests always need a key.
A read-only key may ask every question and read the policy and facts; a write answers 403.
SIGTERM or SIGINT finishes in-flight requests and closes the store; a second signal,
or 30 s without the in-flight work finishing, exits at once.

exit codes:
  0  clean shutdown after SIGTERM or SIGINT
  1  the policy, the facts or the store fail, or shutdown missed its deadline
  2  wrong arguments, or a file cannot be read
`;

export interface ServeOptions {
  /** Environment for API keys; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Stops the server when aborted; defaults to SIGTERM/SIGINT. */
  readonly stop?: AbortSignal;
  /** Called once the server listens (tests read the URL from here). */
  readonly onListening?: (server: ServerHandle) => void;
  /** Opens the service; defaults to `createService` (tests inject their own). */
  readonly openService?: (options: ServiceOptions) => Promise<PolarService>;
  /** How long shutdown may wait for in-flight work; default 30 s. */
  readonly shutdownMs?: number;
  /** Where request logs go; defaults to stdout. */
  readonly logDestination?: { write(line: string): void };
}

export const SERVE_SPEC = {
  name: "serve",
  usage: "polar-sql serve --policy <files...> [options]",
  options: {
    policy: { type: "string", multiple: true },
    port: { type: "string", default: "8080" },
    host: { type: "string", default: "127.0.0.1" },
    store: { type: "string" },
    data: { type: "string" },
    "database-url": { type: "string" },
    "replica-url": { type: "string", multiple: true },
    "replica-wait-ms": { type: "string" },
    "replica-max-lag-ms": { type: "string" },
    facts: { type: "string" },
    "api-key-file": { type: "string" },
    keys: { type: "string" },
    "log-level": { type: "string", default: "info" },
    "allow-unpaged-list": { type: "boolean" },
    "no-answer-cache": { type: "boolean" },
    workers: { type: "string" },
    "max-body-bytes": { type: "string" },
    "max-ids": { type: "string" },
    "max-calls": { type: "string" },
    "max-policy-bytes": { type: "string" },
    "max-rules-per-head": { type: "string" },
    "max-rule-depth": { type: "string" },
    "max-branches": { type: "string" },
    "max-plan-steps": { type: "string" },
    "max-evaluation-steps": { type: "string" },
    "request-timeout-ms": { type: "string" },
    "max-explain-nodes": { type: "string" },
    "max-explain-bytes": { type: "string" },
  },
} as const satisfies CommandSpec;

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/**
 * Runs the server until SIGTERM/SIGINT (or `options.stop`); returns the exit code.
 *
 *   await runServeCommand(["--policy", "app.polar", "--port", "0"], processIo);
 */
export async function runServeCommand(
  args: readonly string[],
  io: CliIo,
  options: ServeOptions = {},
): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(SERVE_HELP);
    return EXIT_OK;
  }
  const parsed = parseServeArgs(args);
  if (parsed.kind === "usage") return reportUsage(io, SERVE_SPEC, parsed.message);
  const { settings } = parsed;

  let keys: ApiKey[];
  try {
    keys = await loadServeKeys({
      env: options.env ?? process.env,
      ...(settings.apiKeyFile !== undefined && { apiKeyFile: settings.apiKeyFile }),
      ...(settings.keysFile !== undefined && { keysFile: settings.keysFile }),
    });
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  let sources: readonly SourceFile[];
  try {
    ({ sources } = await loadPolicyFiles(settings.policyFiles, io));
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return (error as { exitCode?: number }).exitCode ?? EXIT_FAILED;
  }
  const facts =
    settings.factsFile === undefined ? [] : await readFactsOrReport(settings.factsFile, io);
  if (facts === null) return EXIT_FAILED;

  let environments: Environments;
  try {
    const names = servedEnvironments(keys, settings.keysFile !== undefined);
    environments = await openEnvironments(names, {
      ...(options.openService && { openService: options.openService }),
      ...(settings.databaseUrl !== undefined && { databaseUrl: settings.databaseUrl }),
      ...(settings.replicas && { replicas: settings.replicas }),
      ...(settings.embedded !== undefined && { embedded: settings.embedded }),
      ...(settings.dataDir !== undefined && { dataDir: settings.dataDir }),
      ...(settings.allowUnpagedList && { allowUnpagedList: true }),
      ...(settings.noAnswerCache && { answerCache: false }),
      limits: settings.limits,
      ...(settings.workers !== undefined && { workers: settings.workers }),
    });
  } catch (error) {
    io.stderr(`error: cannot open the fact store: ${(error as Error).message}\n`);
    return EXIT_FAILED;
  }

  let server: ServerHandle | undefined;
  let generated: string | null = null;
  const stop = stopRequest(options.stop, io);
  try {
    const src = sources.map((source) => source.text).join("\n");
    const filename = sources.length === 1 ? sources[0]!.name : null;
    await seedEnvironments(
      environments.services,
      { src, filename },
      facts,
      settings.keysFile !== undefined,
    );

    if (keys.length === 0) {
      generated = generateApiKey();
      keys = defaultEnvironmentKeys([generated]);
    }
    const logger = createLogger(settings.logLevel, options.logDestination);
    const app = createApp({
      environments: environments.services,
      keys,
      logger,
      processMetrics: true,
      ...(settings.limits.bodyBytes !== undefined && { maxBodyBytes: settings.limits.bodyBytes }),
    });
    server = await startServer({ app, port: settings.port, host: settings.host });
  } catch (error) {
    io.stderr(`error: ${describeStartupError(error)}\n`);
    await server?.close();
    await environments.close();
    stop.release();
    return EXIT_FAILED;
  }
  io.stdout(`polar-sql listening on ${server.url}\n`);
  if (generated) {
    io.stdout(
      `API key (generated, shown once): ${generated}\n` +
        `try: curl -s -H "Authorization: Bearer ${generated}" ${server.url}/api/policy_metadata\n`,
    );
  }
  options.onListening?.(server);
  await stop.requested;
  io.stdout("shutting down: finishing in-flight requests\n");
  const deadlineMs = options.shutdownMs ?? SHUTDOWN_MS;
  const clean = await shutDown(server, environments, deadlineMs);
  stop.release();
  if (clean) return EXIT_OK;
  io.stderr(
    `error: in-flight work did not finish within ${deadlineMs / 1000} s; exiting without closing the store cleanly\n`,
  );
  // Abandoned work would keep the process alive; only the signal-driven CLI exits by itself.
  if (!options.stop) process.exit(EXIT_FAILED);
  return EXIT_FAILED;
}

/** Closes the server (in-flight requests finish), then the store; false past the deadline. */
async function shutDown(
  server: ServerHandle,
  service: { close(): Promise<void> },
  deadlineMs: number,
): Promise<boolean> {
  const closed = (async () => {
    await server.close();
    await service.close();
    return true;
  })();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  try {
    return await Promise.race([closed, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a shutdown may take before the process exits anyway. */
const SHUTDOWN_MS = 30_000;

interface Settings {
  readonly policyFiles: readonly string[];
  readonly port: number;
  readonly host: string;
  readonly embedded?: EmbeddedStore;
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly replicas?: ReplicaOptions;
  readonly factsFile?: string;
  readonly apiKeyFile?: string;
  readonly keysFile?: string;
  readonly logLevel: LogLevel;
  readonly allowUnpagedList: boolean;
  readonly noAnswerCache: boolean;
  readonly limits: Partial<Limits>;
  readonly workers?: number;
}

type Parsed =
  | { readonly kind: "ok"; readonly settings: Settings }
  | { readonly kind: "usage"; readonly message: string | UsageError };

function parseServeArgs(args: readonly string[]): Parsed {
  let parsed: ReturnType<typeof parseCommandArgs<typeof SERVE_SPEC.options>>;
  try {
    parsed = parseCommandArgs(SERVE_SPEC, args);
  } catch (error) {
    if (error instanceof UsageError) return { kind: "usage", message: error };
    throw error;
  }
  const { positionals } = parsed;
  const values = { ...parsed.values, port: parsed.values.port ?? "8080" };
  // `--policy a.polar b.polar`: files after the first are positionals.
  const policyFiles = [...(values.policy ?? []), ...positionals];
  if (policyFiles.length === 0) {
    return { kind: "usage", message: "no policy files given (`--policy <files...>`)" };
  }
  const port = Number(values.port);
  if (!/^[0-9]+$/.test(values.port) || port > 65535) {
    return {
      kind: "usage",
      message: `\`--port\` must be a number from 0 to 65535, got \`${values.port}\``,
    };
  }
  if (values.data !== undefined && values["database-url"] !== undefined) {
    return { kind: "usage", message: "give either `--data` or `--database-url`, not both" };
  }
  const store = values.store;
  if (store !== undefined && !EMBEDDED_STORES.includes(store as EmbeddedStore)) {
    return {
      kind: "usage",
      message: `\`--store\` must be one of ${EMBEDDED_STORES.map((s) => `\`${s}\``).join(", ")}, got \`${store}\``,
    };
  }
  if (store !== undefined && values["database-url"] !== undefined) {
    return {
      kind: "usage",
      message: "`--store` names an embedded store; `--database-url` is a server",
    };
  }
  const replicas = replicaOptions(values);
  if (replicas.kind === "usage") return replicas;
  const limits: Partial<Record<LimitName, number>> = {};
  for (const [name, { flag }] of Object.entries(LIMIT_SETTINGS) as [
    LimitName,
    { flag: string },
  ][]) {
    const text = values[flag.slice(2) as keyof typeof values] as string | undefined;
    if (text === undefined) continue;
    if (!/^[1-9][0-9]{0,14}$/.test(text)) {
      return {
        kind: "usage",
        message: `\`${flag}\` must be a positive whole number, got \`${text}\``,
      };
    }
    limits[name] = Number(text);
  }
  if (values.workers !== undefined && !/^[0-9]{1,2}$/.test(values.workers)) {
    return {
      kind: "usage",
      message: `\`--workers\` must be a number from 0 to 99, got \`${values.workers}\``,
    };
  }
  const logLevel = (values["log-level"] ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    return {
      kind: "usage",
      message: `\`--log-level\` must be one of ${LOG_LEVELS.map((l) => `\`${l}\``).join(", ")}`,
    };
  }
  return {
    kind: "ok",
    settings: {
      policyFiles,
      port,
      host: values.host ?? "127.0.0.1",
      logLevel,
      allowUnpagedList: values["allow-unpaged-list"] === true,
      noAnswerCache: values["no-answer-cache"] === true,
      limits,
      ...(values.workers !== undefined && { workers: Number(values.workers) }),
      ...(store !== undefined && { embedded: store as EmbeddedStore }),
      ...(values.data !== undefined && { dataDir: values.data }),
      ...(values["database-url"] !== undefined && { databaseUrl: values["database-url"] }),
      ...(replicas.options && { replicas: replicas.options }),
      ...(values.facts !== undefined && { factsFile: values.facts }),
      ...(values["api-key-file"] !== undefined && { apiKeyFile: values["api-key-file"] }),
      ...(values.keys !== undefined && { keysFile: values.keys }),
    },
  };
}

/** `--replica-url` (repeatable) and its two settings; they need `--database-url`. */
function replicaOptions(values: {
  readonly "database-url"?: string;
  readonly "replica-url"?: readonly string[];
  readonly "replica-wait-ms"?: string;
  readonly "replica-max-lag-ms"?: string;
}): { kind: "ok"; options?: ReplicaOptions } | { kind: "usage"; message: string } {
  const urls = values["replica-url"] ?? [];
  const wait = values["replica-wait-ms"];
  const lag = values["replica-max-lag-ms"];
  if (urls.length === 0) {
    const stray =
      wait !== undefined ? "--replica-wait-ms" : lag !== undefined ? "--replica-max-lag-ms" : null;
    return stray
      ? { kind: "usage", message: `\`${stray}\` needs \`--replica-url\`` }
      : { kind: "ok" };
  }
  if (values["database-url"] === undefined)
    return { kind: "usage", message: "`--replica-url` needs `--database-url` (the primary)" };
  for (const [flag, text] of [
    ["--replica-wait-ms", wait],
    ["--replica-max-lag-ms", lag],
  ] as const) {
    if (text !== undefined && !/^[0-9]{1,9}$/.test(text))
      return {
        kind: "usage",
        message: `\`${flag}\` must be a whole number of ms, got \`${text}\``,
      };
  }
  return {
    kind: "ok",
    options: {
      urls,
      ...(wait !== undefined && { waitMs: Number(wait) }),
      ...(lag !== undefined && { maxLagMs: Number(lag) }),
    },
  };
}

async function readFactsOrReport(path: string, io: CliIo) {
  try {
    return await readFacts(path);
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return null;
  }
}

function describeStartupError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return "the port is already in use";
  if (code === "EACCES") return "permission denied to listen on that port";
  if (code === "EADDRNOTAVAIL") return "the host address is not available on this machine";
  return (error as Error).message;
}

/**
 * Resolves on the first SIGTERM/SIGINT, or when `stop` aborts. A second signal exits at once.
 * The signal listeners stay attached until `release()` so that a runner that exits once no
 * listener is left (tsx does) cannot cut the graceful shutdown short.
 */
function stopRequest(
  stop: AbortSignal | undefined,
  io: CliIo,
): { readonly requested: Promise<void>; readonly release: () => void } {
  if (stop) {
    const requested: Promise<void> = stop.aborted
      ? Promise.resolve()
      : new Promise((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
    return { requested, release: () => {} };
  }
  let signals = 0;
  let onSignal = () => {};
  const requested = new Promise<void>((resolve) => {
    onSignal = () => {
      signals++;
      if (signals === 1) return resolve();
      io.stderr("second signal: exiting without waiting for in-flight requests\n");
      process.exit(EXIT_FAILED);
    };
  });
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return {
    requested,
    release: () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
