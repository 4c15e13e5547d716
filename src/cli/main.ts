import { runBindingsCommand } from "./bindings-command.js";
import { runCheckCommand } from "./check-command.js";
import { runExplainCommand } from "./explain-command.js";
import { runFactsCommand } from "./facts-command.js";
import { type CliIo, EXIT_OK, EXIT_USAGE, processIo } from "./io.js";
import { runServeCommand } from "./serve-command.js";
import { runSqlCommand } from "./sql-command.js";
import { runTestCommand } from "./test-command.js";

const HELP = `usage: polar-sql <command> [options]

commands:
  check <files...>   check a policy and print diagnostics with code frames
  test <files...>    run the policy's test blocks against the reference evaluator
  explain            why a question is allowed or denied, as a proof tree
  serve              serve the Oso Cloud compatible HTTP API (--policy <files...>)
  sql <question>     compile one local question to SQL and print it
  bindings check     check data bindings (with --database-url, against the database)
  bindings init      draft data bindings from the database catalog
  facts sync         sync stored facts from the application's database (--config <sync.yaml>)

Run \`polar-sql <command> --help\` for a command's options.
`;

type Command = (args: readonly string[], io: CliIo) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
  bindings: runBindingsCommand,
  check: runCheckCommand,
  test: (args, io) => runTestCommand([...args], io),
  serve: (args, io) => runServeCommand([...args], io),
  sql: runSqlCommand,
  explain: runExplainCommand,
  facts: (args, io) => runFactsCommand(args, io),
};

/** Entry point of the `polar-sql` binary; returns the process exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(HELP);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`error: unknown command \`${name}\`\n\n${HELP}`);
    return EXIT_USAGE;
  }
  return command(rest, io);
}
