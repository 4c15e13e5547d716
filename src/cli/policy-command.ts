/**
 * `polar-sql policy get | push`: the policy of a running server.
 */
import { basename } from "node:path";
import { checkPolicy } from "../check/check.js";
import { formatDiagnostic } from "../source/format.js";
import {
  type CommandSpec,
  reportUsage,
  splitSubcommand,
  UsageError,
  unknownName,
  wantsHelp,
} from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";
import {
  CLIENT_EXIT_CODES,
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  type RemoteSpec,
  runRemote,
} from "./remote.js";

const POLICY_HELP = `usage: polar-sql policy <get|push> ...

Reads or replaces the policy of a running server.

commands:
  get                  print the active policy
  push <files...>      check the policy files here, then make them the server's policy

Run \`polar-sql policy <command> --help\` for a command's options.

${CLIENT_EXIT_CODES}
`;

const JSON_OPTION = { json: { type: "boolean" }, ...CONNECTION_OPTIONS } as const;

const GET_SPEC: RemoteSpec<typeof JSON_OPTION> = {
  name: "policy get",
  usage: "polar-sql policy get [--json]",
  positionals: [],
  options: JSON_OPTION,
  help: `usage: polar-sql policy get [--json]

Prints the server's active policy as it was pushed (with --json:
{"filename", "src"}, or null when no policy was ever pushed).

${CONNECTION_HELP}

${CLIENT_EXIT_CODES} (a server without a policy prints nothing and exits 1)
`,
};

const PUSH_SPEC: RemoteSpec<typeof CONNECTION_OPTIONS> = {
  name: "policy push",
  usage: "polar-sql policy push <files...>",
  positionals: ["<files...>"],
  variadic: true,
  options: CONNECTION_OPTIONS,
  help: `usage: polar-sql policy push <files...>

Checks the .polar files here (errors are printed with code frames and nothing
is sent), then sends them to the server as one policy. The server checks it
again and runs its tests; a policy with failing tests is refused and the old
one stays. Facts are not touched.

  polar-sql policy push app.polar

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

/** What the argument parser knows of `policy` (src/cli/args.ts). */
export const POLICY_SPEC = {
  name: "policy",
  usage: "polar-sql policy <get|push> ...",
  options: {},
  subcommands: { get: GET_SPEC, push: PUSH_SPEC },
} as const satisfies CommandSpec;

const SUBCOMMANDS: Readonly<
  Record<
    keyof typeof POLICY_SPEC.subcommands,
    (args: readonly string[], io: CliIo) => Promise<number>
  >
> = {
  get: runGet,
  push: runPush,
};

/** `polar-sql policy <command> ...`: returns the exit code. */
export async function runPolicyCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { name, rest } = splitSubcommand(POLICY_SPEC, args);
  if (name === undefined) {
    io.stdout(POLICY_HELP);
    return wantsHelp(args) ? EXIT_OK : EXIT_USAGE;
  }
  if (!Object.hasOwn(SUBCOMMANDS, name)) {
    const known = Object.keys(SUBCOMMANDS).map((sub) => `policy ${sub}`);
    return reportUsage(io, POLICY_SPEC, unknownName("subcommand", `policy ${name}`, known));
  }
  return SUBCOMMANDS[name as keyof typeof SUBCOMMANDS](rest, io);
}

function runGet(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(GET_SPEC, args, io, async ({ client, values }) => {
    const policy = await client.getPolicy();
    if (values.json) {
      io.stdout(`${JSON.stringify(policy)}\n`);
      return undefined;
    }
    if (!policy) {
      io.stderr("error: the server has no policy\n");
      return EXIT_FAILED;
    }
    io.stdout(policy.src.endsWith("\n") || policy.src === "" ? policy.src : `${policy.src}\n`);
    return undefined;
  });
}

function runPush(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(PUSH_SPEC, args, io, async ({ client, positionals }) => {
    const read = await readSources(positionals);
    if (!read.ok) throw new UsageError(read.message);
    const checked = checkPolicy(read.sources);
    for (const diagnostic of checked.diagnostics) {
      io.stderr(`${formatDiagnostic(diagnostic, read.sources, { color: io.isTTY })}\n\n`);
    }
    if (!checked.ok) {
      io.stderr("error: the policy has errors; nothing was sent\n");
      return EXIT_FAILED;
    }
    const src = read.sources.map((source) => source.text).join("\n");
    const filename = read.sources.length === 1 ? basename(read.sources[0]!.name) : null;
    io.stdout(`${await client.pushPolicy(src, filename)}\n`);
    return undefined;
  });
}
