/**
 * `polar-sql facts get | insert | delete | export | import`: the facts of a running server.
 */
import { formatFact, type PatternValue, parsePattern } from "../client/values.js";
import {
  type CommandSpec,
  countOption,
  reportUsage,
  splitSubcommand,
  UsageError,
  unknownName,
  wantsHelp,
} from "./args.js";
import { IMPORT_SPEC, runImport } from "./facts-import.js";
import { FACTS_SYNC_SPEC, runFactsSync } from "./facts-sync-command.js";
import { type CliIo, EXIT_OK, EXIT_USAGE } from "./io.js";
import { typedArg } from "./query-commands.js";
import {
  CLIENT_EXIT_CODES,
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  type RemoteSpec,
  runRemote,
} from "./remote.js";

const VALUES_HELP = `values (as Oso's CLI writes them):
  Type:id        an instance: User:bob, Integer:42
  word           any other word is a String: owner (the same as String:owner)
  "…"            a String as one JSON string: "a:b", "_"
  Type:"…"       a quoted id, one JSON string: Doc:"a, b", Doc:"tab\\there", Doc:"_"
                 (needed when the id starts with \`"\` or \`:\`, or is \`_\`; any other id
                 may also be written as is, spaces and all, as one argument)
  Type:_         any id of the type (get and delete only)
  _              any value (get and delete only)
Ids are never empty. Output writes every value as Type:id, quoting every id that
is not plainly safe, so each printed value can be passed back as one argument.`;

const FACTS_HELP = `usage: polar-sql facts <get|insert|delete|export|import|sync> ...

Reads and writes the facts stored by a running server.

commands:
  get <predicate> [values...]     print matching facts, one per line
  insert <predicate> <values...>  insert one fact
  delete <predicate> <values...>  delete every fact matching (wildcards allowed)
  export                          print every fact once, as JSON lines
  import <file>                   insert the facts of a file (JSON lines or a JSON array)
  sync --config <sync.yaml>       make stored facts match the application's database

Run \`polar-sql facts <command> --help\` for a command's options.

${CLIENT_EXIT_CODES}
`;

const JSON_OPTION = { json: { type: "boolean" }, ...CONNECTION_OPTIONS } as const;

const GET_SPEC: RemoteSpec<typeof JSON_OPTION> = {
  name: "facts get",
  usage: "polar-sql facts get <predicate> [values...] [--json]",
  positionals: ["<predicate>"],
  variadic: true,
  options: JSON_OPTION,
  help: `usage: polar-sql facts get <predicate> [values...] [--json]

Prints the stored facts of the predicate that match the values, one per line
(with --json: one JSON object per line, the format \`facts import\` reads). With
values, only facts with exactly that many arguments match; without, facts of
every arity.

  polar-sql facts get has_role User:bob _ _
  polar-sql facts get has_role User:_ owner _
  polar-sql facts get has_relation Repository:_ organization Organization:acme

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

const INSERT_SPEC: RemoteSpec<typeof CONNECTION_OPTIONS> = {
  name: "facts insert",
  usage: "polar-sql facts insert <predicate> <values...>",
  positionals: ["<predicate>"],
  variadic: true,
  options: CONNECTION_OPTIONS,
  help: `usage: polar-sql facts insert <predicate> <values...>

Inserts one fact. Inserting a fact that is already stored changes nothing.

  polar-sql facts insert has_role User:bob member Organization:acme

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

const DELETE_SPEC: RemoteSpec<typeof CONNECTION_OPTIONS> = {
  name: "facts delete",
  usage: "polar-sql facts delete <predicate> <values...>",
  positionals: ["<predicate>"],
  variadic: true,
  options: CONNECTION_OPTIONS,
  help: `usage: polar-sql facts delete <predicate> <values...>

Deletes every stored fact of the predicate with exactly that many arguments
that matches the values; wildcards match anything. Deleting nothing is not an
error.

  polar-sql facts delete has_role User:bob _ _     # every role of bob

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

const PAGE_OPTION = { "page-size": { type: "string" }, ...CONNECTION_OPTIONS } as const;

const EXPORT_SPEC: RemoteSpec<typeof PAGE_OPTION> = {
  name: "facts export",
  usage: "polar-sql facts export [--page-size <n>]",
  positionals: [],
  options: PAGE_OPTION,
  help: `usage: polar-sql facts export [--page-size <n>]

Prints every stored fact exactly once, one JSON object per line:
  {"predicate":"has_role","args":[{"type":"User","id":"bob"},...]}
Facts are read a page at a time (--page-size, 1 to 10000, default 1000) and
printed as they arrive. Facts written during an export may or may not appear.

  polar-sql facts export > facts.jsonl

options:
  --page-size <n>   facts per request (default 1000)

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

/** What the argument parser knows of `facts` (src/cli/args.ts). */
export const FACTS_SPEC = {
  name: "facts",
  usage: "polar-sql facts <get|insert|delete|export|import|sync> ...",
  options: {},
  subcommands: {
    get: GET_SPEC,
    insert: INSERT_SPEC,
    delete: DELETE_SPEC,
    export: EXPORT_SPEC,
    import: IMPORT_SPEC,
    sync: FACTS_SYNC_SPEC,
  },
} as const satisfies CommandSpec;

type Subcommand = (args: readonly string[], io: CliIo) => Promise<number>;

const SUBCOMMANDS: Readonly<Record<keyof typeof FACTS_SPEC.subcommands, Subcommand>> = {
  get: runGet,
  insert: (args, io) => runWrite(INSERT_SPEC, "inserts", args, io),
  delete: (args, io) => runWrite(DELETE_SPEC, "deletes", args, io),
  export: runExport,
  import: runImport,
  sync: (args, io) => runFactsSync(args, io),
};

/** `polar-sql facts <command> ...`: returns the exit code. */
export async function runFactsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { name, rest } = splitSubcommand(FACTS_SPEC, args);
  if (name === undefined) {
    io.stdout(FACTS_HELP);
    return wantsHelp(args) ? EXIT_OK : EXIT_USAGE;
  }
  if (!Object.hasOwn(SUBCOMMANDS, name)) {
    const known = Object.keys(SUBCOMMANDS).map((sub) => `facts ${sub}`);
    return reportUsage(io, FACTS_SPEC, unknownName("subcommand", `facts ${name}`, known));
  }
  return SUBCOMMANDS[name as keyof typeof SUBCOMMANDS](rest, io);
}

function runGet(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(GET_SPEC, args, io, async ({ client, values, positionals }) => {
    const [predicate, ...texts] = positionals as [string, ...string[]];
    const patterns = texts.map(patternArg);
    const found = await client.getFacts(predicate, patterns);
    const facts =
      patterns.length === 0 ? found : found.filter((f) => f.args.length === patterns.length);
    io.stdout(
      facts.map((fact) => `${values.json ? JSON.stringify(fact) : formatFact(fact)}\n`).join(""),
    );
    return undefined;
  });
}

function runWrite(
  spec: RemoteSpec<typeof CONNECTION_OPTIONS>,
  kind: "inserts" | "deletes",
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  return runRemote(spec, args, io, async ({ client, positionals }) => {
    const [predicate, ...texts] = positionals as [string, ...string[]];
    const shown = [predicate, ...texts].join(" ");
    if (kind === "inserts") {
      const fact = { predicate, args: texts.map((text, i) => typedArg(`value ${i + 1}`, text)) };
      await client.batch([{ inserts: [fact] }]);
      io.stdout(`inserted ${formatFact(fact)}\n`);
    } else {
      await client.batch([{ deletes: [{ predicate, args: texts.map(patternArg) }] }]);
      io.stdout(`deleted every fact matching ${shown}\n`);
    }
    return undefined;
  });
}

function runExport(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(EXPORT_SPEC, args, io, async ({ client, values }) => {
    const pageSize = countOption("page-size", values["page-size"], 1000);
    for await (const page of client.exportFacts(pageSize)) {
      io.stdout(page.map((fact) => `${JSON.stringify(fact)}\n`).join(""));
      await io.flush?.();
    }
    return undefined;
  });
}

function patternArg(text: string, index: number): PatternValue {
  const parsed = parsePattern(text);
  if (!parsed.ok) throw new UsageError(`value ${index + 1}: ${parsed.message}`);
  return parsed.value;
}
