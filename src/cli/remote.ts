/**
 * What every client command shares: the connection (`--url`, `--api-key`, or the
 * `POLAR_SQL_URL` and `POLAR_SQL_API_KEY` environment variables), positional arguments named in
 * the usage line, one message for everything missing, and the reporting of server errors.
 */
import { ClientError, createClient, type PolarClient } from "../client/http.js";
import {
  type CommandSpec,
  listOf,
  type OptionSpecs,
  type ParsedArgs,
  parseCommandArgs,
  reportUsage,
  UsageError,
  wantsHelp,
} from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.js";

const URL_ENV = "POLAR_SQL_URL";
const API_KEY_ENV = "POLAR_SQL_API_KEY";

/** The options of every client command; their specs declare them with their own. */
export const CONNECTION_OPTIONS = {
  url: { type: "string" },
  "api-key": { type: "string" },
} as const satisfies OptionSpecs;

/** The connection part of every client command's help. */
export const CONNECTION_HELP = `connection:
  --url <url>         the server's base URL, e.g. http://127.0.0.1:8080
                      (default: $${URL_ENV})
  --api-key <key>     an API key of that server (default: $${API_KEY_ENV})`;

/** The exit codes of every client command. */
export const CLIENT_EXIT_CODES = `exit codes:
  0  done
  1  the server refused the request or cannot be reached, or an input file has
     a bad record
  2  wrong arguments, or a file cannot be read`;

export interface RemoteSpec<Options extends OptionSpecs> extends CommandSpec<Options> {
  /** Required positional arguments, as shown in the usage line: `<actor>`. */
  readonly positionals: readonly string[];
  /** Whether more positionals may follow the required ones. */
  readonly variadic?: boolean;
  readonly help: string;
}

interface RemoteContext<Options extends OptionSpecs> {
  readonly client: PolarClient;
  readonly values: ParsedArgs<Options>["values"];
  readonly positionals: readonly string[];
  readonly io: CliIo;
}

/**
 * Runs a client command: help, arguments, connection, then `work`; returns the exit code.
 * `work` throws `UsageError` for bad arguments and `ClientError` for refused requests.
 */
export async function runRemote<Options extends OptionSpecs>(
  spec: RemoteSpec<Options>,
  args: readonly string[],
  io: CliIo,
  work: (context: RemoteContext<Options>) => Promise<number | undefined>,
): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(spec.help);
    return EXIT_OK;
  }
  try {
    const { values, positionals } = parseCommandArgs(spec, args);
    const env = io.env ?? process.env;
    const connection = values as { url?: string; "api-key"?: string };
    const url = connection.url ?? env[URL_ENV];
    const apiKey = connection["api-key"] ?? env[API_KEY_ENV];
    const missing = spec.positionals.slice(positionals.length).map((name) => `\`${name}\``);
    if (!url) missing.push(`\`--url\` (or \`${URL_ENV}\`)`);
    if (!apiKey) missing.push(`\`--api-key\` (or \`${API_KEY_ENV}\`)`);
    if (missing.length > 0) throw new UsageError(`\`${spec.name}\` needs ${listOf(missing)}`);
    if (!spec.variadic && positionals.length > spec.positionals.length) {
      const extra = positionals.slice(spec.positionals.length).map((p) => `\`${p}\``);
      throw new UsageError(
        `unexpected ${extra.length === 1 ? "argument" : "arguments"} ${listOf(extra)}`,
      );
    }
    const client = createClient({ url: url as string, apiKey: apiKey as string });
    return (
      (await work({
        client,
        values: values as RemoteContext<Options>["values"],
        positionals,
        io,
      })) ?? EXIT_OK
    );
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, spec, error);
    if (error instanceof ClientError) {
      const id = error.requestId ? ` (request id ${error.requestId})` : "";
      io.stderr(`error: ${error.message}${id}\n`);
      return EXIT_FAILED;
    }
    throw error;
  }
}
