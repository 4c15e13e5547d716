import { packageVersion } from "../core/version.js";
import {
  type CommandSpec,
  checkCommandArgs,
  reportUsage,
  UsageError,
  unknownName,
} from "./args.js";
import { type CliIo, EXIT_OK, EXIT_USAGE, processIo } from "./io.js";

const HELP = `usage: polar-sql <command> [options]

policies:
  check <files...>        check a policy and print diagnostics with code frames
  test <files...>         run the policy's test blocks against the reference evaluator
  sql <question>          compile one local question to SQL and print it
  explain                 why a question is allowed or denied, as a proof tree
  preview                 who gains and who loses access under a new policy
  bindings <check|init>   check data bindings (against the database with --database-url),
                          or draft them from the database catalog

the service:
  serve                   serve the Oso Cloud compatible HTTP API (--policy <files...>)
  playground              serve the playground page (policy, facts, questions, SQL in the browser)

a running server (--url and --api-key, or POLAR_SQL_URL and POLAR_SQL_API_KEY):
  authorize <actor> <action> <resource>   may the actor do the action?
  list <actor> <action> <Type>            which resources of the type?
  actions <actor> <resource>              which actions on the resource?
  facts <get|insert|delete|export|import> read and write stored facts
  facts sync --config <sync.yaml>         sync stored facts from the application's database
  policy <get|push>                       read or replace the policy

options:
  --version               print the version
  --help                  print this help

Run \`polar-sql <command> --help\` for a command's options and exit codes.

exit codes:
  0  success
  1  the command failed (see its --help)
  2  wrong arguments
`;

type Run = (args: readonly string[], io: CliIo) => Promise<number>;

/** A command: what the argument parser knows of it, and what runs it. */
interface Command {
  readonly spec: CommandSpec;
  readonly run: Run;
}

// Each command loads its own modules: a client command never loads the store or the planner.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  check: async () => {
    const { CHECK_SPEC, runCheckCommand } = await import("./check-command.js");
    return { spec: CHECK_SPEC, run: runCheckCommand };
  },
  test: async () => {
    const { TEST_SPEC, runTestCommand } = await import("./test-command.js");
    return { spec: TEST_SPEC, run: runTestCommand };
  },
  serve: async () => {
    const { SERVE_SPEC, runServeCommand } = await import("./serve-command.js");
    return { spec: SERVE_SPEC, run: (args, io) => runServeCommand(args, io) };
  },
  playground: async () => {
    const { PLAYGROUND_SPEC, runPlaygroundCommand } = await import("./playground-command.js");
    return { spec: PLAYGROUND_SPEC, run: (args, io) => runPlaygroundCommand(args, io) };
  },
  sql: async () => {
    const { SQL_SPEC, runSqlCommand } = await import("./sql-command.js");
    return { spec: SQL_SPEC, run: runSqlCommand };
  },
  explain: async () => {
    const { EXPLAIN_SPEC, runExplainCommand } = await import("./explain-command.js");
    return { spec: EXPLAIN_SPEC, run: runExplainCommand };
  },
  bindings: async () => {
    const { BINDINGS_SPEC, runBindingsCommand } = await import("./bindings-command.js");
    return { spec: BINDINGS_SPEC, run: runBindingsCommand };
  },
  authorize: async () => {
    const { AUTHORIZE_SPEC, runAuthorizeCommand } = await import("./query-commands.js");
    return { spec: AUTHORIZE_SPEC, run: runAuthorizeCommand };
  },
  list: async () => {
    const { LIST_SPEC, runListCommand } = await import("./query-commands.js");
    return { spec: LIST_SPEC, run: runListCommand };
  },
  actions: async () => {
    const { ACTIONS_SPEC, runActionsCommand } = await import("./query-commands.js");
    return { spec: ACTIONS_SPEC, run: runActionsCommand };
  },
  facts: async () => {
    const { FACTS_SPEC, runFactsCommand } = await import("./facts-command.js");
    return { spec: FACTS_SPEC, run: runFactsCommand };
  },
  policy: async () => {
    const { POLICY_SPEC, runPolicyCommand } = await import("./policy-command.js");
    return { spec: POLICY_SPEC, run: runPolicyCommand };
  },
  preview: async () => {
    const { PREVIEW_SPEC, runPreviewCommand } = await import("./preview-command.js");
    return { spec: PREVIEW_SPEC, run: runPreviewCommand };
  },
};

/** The commands `polar-sql` knows, for documentation and tests. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** The declaration of a command, subcommands and options included (tests enumerate them). */
export async function commandSpec(name: string): Promise<CommandSpec> {
  const load = COMMANDS[name];
  if (!load) throw new Error(`no command \`${name}\``);
  return (await load()).spec;
}

/** Entry point of the `polar-sql` binary; returns the process exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(HELP);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.stdout(`polar-sql ${packageVersion()}\n`);
    return EXIT_OK;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    const error = name.startsWith("-")
      ? unknownName("option", name, ["--version", "--help"])
      : unknownName("command", name, COMMAND_NAMES);
    io.stderr(`error: ${error.message}; run \`polar-sql --help\`\n`);
    return EXIT_USAGE;
  }
  const command = await load();
  // Every command's arguments meet its declarations before it runs, so that all of them
  // report unknown names alike.
  try {
    checkCommandArgs(command.spec, rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsage(io, error.command ?? command.spec, error);
  }
  return command.run(rest, io);
}
