import { packageVersion } from "../core/version.js";
import { didYouMean } from "../source/suggest.js";
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

type Command = (args: readonly string[], io: CliIo) => Promise<number>;

// Each command loads its own modules: a client command never loads the store or the planner.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  check: async () => (await import("./check-command.js")).runCheckCommand,
  test: async () => (await import("./test-command.js")).runTestCommand,
  serve: async () => {
    const { runServeCommand } = await import("./serve-command.js");
    return (args, io) => runServeCommand(args, io);
  },
  playground: async () => {
    const { runPlaygroundCommand } = await import("./playground-command.js");
    return (args, io) => runPlaygroundCommand(args, io);
  },
  sql: async () => (await import("./sql-command.js")).runSqlCommand,
  explain: async () => (await import("./explain-command.js")).runExplainCommand,
  preview: async () => (await import("./preview-command.js")).runPreviewCommand,
  bindings: async () => (await import("./bindings-command.js")).runBindingsCommand,
  authorize: async () => (await import("./query-commands.js")).runAuthorizeCommand,
  list: async () => (await import("./query-commands.js")).runListCommand,
  actions: async () => (await import("./query-commands.js")).runActionsCommand,
  facts: async () => (await import("./facts-command.js")).runFactsCommand,
  policy: async () => (await import("./policy-command.js")).runPolicyCommand,
};

/** The commands `polar-sql` knows, for documentation and tests. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

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
    const what = name.startsWith("-") ? "option" : "command";
    const known = name.startsWith("-") ? ["--version", "--help"] : COMMAND_NAMES;
    const hint = didYouMean(name, known);
    io.stderr(
      `error: unknown ${what} \`${name}\`${hint ? `; ${hint}` : ""}\n` +
        "run `polar-sql --help` for the list of commands\n",
    );
    return EXIT_USAGE;
  }
  const command = await load();
  return command(rest, io);
}
