/**
 * `polar-sql bindings check` (static checks of data bindings, then the database's) and
 * `polar-sql bindings init` (a first draft of bindings from the database catalog).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { BindingsCheck } from "../bindings/check.js";
import { checkBindings } from "../bindings/check.js";
import { draftBindings } from "../bindings/draft.js";
import { checkBindingsWithDatabase } from "../bindings/verify.js";
import type { Program } from "../check/program.js";
import { dialectOfUrl, openDatabase } from "../database/open.js";
import type { DatabaseSession } from "../database/types.js";
import {
  DEFAULT_DIALECT,
  DIALECT_NAMES,
  DIALECTS,
  type DialectName,
  dialectList,
  isDialectName,
} from "../dialects/registry.js";
import { inMemoryCentralFacts } from "../plan/resolve/central-facts.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { formatDiagnostic } from "../source/format.js";
import { positionOf, type SourceFile } from "../source/source.js";
import type { CommandSpec } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./io.js";
import { loadPolicyFiles, readFacts } from "./sql-command.js";

/** One line per dialect: its name, a URL of the form it opens, its engines. */
function databaseUrls(): string {
  return DIALECT_NAMES.map((name) => {
    const { catalog, engines } = DIALECTS[name];
    return `  ${name.padEnd(9)} ${catalog.urlExample.padEnd(44)} (${engines})`;
  }).join("\n");
}

const BINDINGS_HELP = `usage: polar-sql bindings <check|init> [options]

  bindings check --bindings <file> [--policy <files...>] [--database-url <url>]
                 [--dialect ${DIALECT_NAMES.join("|")}] [--facts <file>] [--json] [--strict]
      Checks data bindings: the YAML, signatures and queries; with --policy, types,
      names the rules do not read (with a did-you-mean) and facts no binding gives;
      with --database-url, each query as the database describes it (columns and
      their types, without reading rows) and each \`keys\` entry (a constraint, or
      a count of duplicates). Only reads: nothing is written to the database.
      Bindings the policy cannot use (undeclared types, facts no rule reads) are
      warnings: they are ignored, as Oso ignores them.
      --facts names central facts (JSON array) that produce what bindings do not.
      --json prints the diagnostics as a JSON array on stdout.
      --strict fails (exit 1) on warnings too.

  bindings init --database-url <url> [--schema <name>] [--policy <files...>]
                [--dialect ${DIALECT_NAMES.join("|")}]
      Reads the catalog and prints a first draft of data bindings YAML: foreign
      keys as relations, join tables as roles or relations, boolean columns as
      attributes, sql_types and keys. With --policy, the draft holds only what the
      policy reads, named with its types and relations (what it does not read is
      commented out), and lists the facts it reads that the schema does not give;
      the draft passes \`bindings check\` against that policy without errors.

examples:
  polar-sql bindings init --database-url postgres://app@localhost/app \\
    --policy app.polar > bindings.yaml
  polar-sql bindings check --policy app.polar --bindings bindings.yaml \\
    --database-url postgres://app@localhost/app

database URLs (without --dialect, the URL's scheme names the dialect):
${databaseUrls()}

exit codes:
  0  the bindings are sound (there may be warnings), or a draft was printed
  1  the bindings have errors (with --strict, errors or warnings)
  2  wrong arguments, unreadable files or an unreachable database
`;

/** A failure to report: message for stderr, exit code. */
class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usage = (message: string) => new CommandError(message, EXIT_USAGE);

const OPTIONS = {
  policy: { type: "string", multiple: true },
  bindings: { type: "string" },
  "database-url": { type: "string" },
  dialect: { type: "string" },
  schema: { type: "string" },
  facts: { type: "string" },
  json: { type: "boolean" },
  strict: { type: "boolean" },
} as const;

/** What the argument parser knows of `bindings` (src/cli/args.ts). */
export const BINDINGS_SPEC = {
  name: "bindings",
  usage: "polar-sql bindings <check|init> [options]",
  options: OPTIONS,
  subcommands: {
    check: { name: "bindings check", usage: "polar-sql bindings check [options]", options: {} },
    init: { name: "bindings init", usage: "polar-sql bindings init [options]", options: {} },
  },
} as const satisfies CommandSpec;

type Values = ReturnType<typeof parseOptions>["values"];

function parseOptions(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    throw usage(message.charAt(0).toLowerCase() + message.slice(1));
  }
}

/**
 * `polar-sql bindings check|init …`: returns the exit code.
 *
 *   await runBindingsCommand(["check", "--policy", "app.polar", "--bindings", "b.yaml"], processIo);
 */
export async function runBindingsCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(BINDINGS_HELP);
    return EXIT_OK;
  }
  try {
    const [command, ...rest] = args;
    const { values, positionals } = parseOptions(rest);
    const policyFiles = [...(values.policy ?? []), ...positionals];
    if (command === "check") return await check(values, policyFiles, io);
    if (command === "init") return await init(values, policyFiles, io);
    throw usage(
      command === undefined
        ? "no subcommand given; expected `check` or `init`"
        : `unknown subcommand \`${command}\`; expected \`check\` or \`init\``,
    );
  } catch (error) {
    // Also the errors of `loadPolicyFiles` and `readFacts`, which carry an exit code.
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    if (typeof exitCode !== "number") throw error;
    const help =
      error instanceof CommandError && exitCode === EXIT_USAGE
        ? "run `polar-sql bindings --help`\n"
        : "";
    io.stderr(`error: ${(error as Error).message}\n${help}`);
    return exitCode;
  }
}

/** Runs database work, reporting a failure of the database itself as exit 2. */
async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    if (cause instanceof CommandError) throw cause;
    throw new CommandError(`the database failed: ${(cause as Error).message}`, EXIT_USAGE);
  }
}

function dialectOf(values: Values): DialectName {
  // Without `--dialect`, the URL's scheme says (docs/bindings.md, "Dialects").
  const url = values["database-url"];
  const dialect = values.dialect ?? (url === undefined ? DEFAULT_DIALECT : dialectOfUrl(url));
  if (isDialectName(dialect)) return dialect;
  throw usage(`unknown dialect \`${dialect}\`; use one of ${dialectList()}`);
}

async function connect(url: string, dialect: DialectName): Promise<DatabaseSession> {
  try {
    return await openDatabase(url, { dialect });
  } catch (cause) {
    throw new CommandError(
      `cannot connect to the database: ${(cause as Error).message}`,
      EXIT_USAGE,
    );
  }
}

async function loadProgram(files: readonly string[], io: CliIo): Promise<Program | null> {
  return files.length === 0 ? null : (await loadPolicyFiles(files, io)).program;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : (cause as Error).message;
    throw usage(`cannot read \`${path}\`: ${reason}`);
  }
}

/** A diagnostic as JSON: its fields plus the file, line and column where it starts and ends. */
function diagnosticJson(diagnostic: Diagnostic, sources: readonly SourceFile[]) {
  const span = diagnostic.span;
  const source = span && sources.find((s) => s.name === span.file);
  if (!span || !source) return diagnostic;
  const start = positionOf(source, span.start);
  const end = positionOf(source, span.end);
  return {
    ...diagnostic,
    file: span.file,
    line: start.line,
    column: start.column,
    end_line: end.line,
    end_column: end.column,
  };
}

async function check(values: Values, policyFiles: readonly string[], io: CliIo): Promise<number> {
  if (values.bindings === undefined) throw usage("`--bindings <file>` is required");
  if (values.schema !== undefined) throw usage("`--schema` is an option of `bindings init`");
  const dialect = dialectOf(values);
  const text = await readText(values.bindings);
  const program = await loadProgram(policyFiles, io);
  const facts = values.facts === undefined ? undefined : await readFacts(values.facts);
  const options = {
    fileName: values.bindings,
    // The binding queries are written in the application's SQL (docs/dialects.md).
    syntax: dialect,
    ...(facts && { central: inMemoryCentralFacts(facts) }),
  };
  let result: BindingsCheck;
  const url = values["database-url"];
  if (url === undefined) result = checkBindings(program, text, options);
  else {
    const session = await connect(url, dialect);
    try {
      result = await withDatabase(() => checkBindingsWithDatabase(program, text, session, options));
    } finally {
      await session.close().catch(() => {});
    }
  }
  const sources = [result.source, ...(program?.sources ?? [])];
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  if (values.json) {
    io.stdout(
      `${JSON.stringify(
        result.diagnostics.map((d) => diagnosticJson(d, sources)),
        null,
        2,
      )}\n`,
    );
  } else {
    for (const diagnostic of result.diagnostics) {
      io.stderr(`${formatDiagnostic(diagnostic, sources, { color: io.isTTY })}\n\n`);
    }
    const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const against = url === undefined ? "" : " against the database";
    const tail = warnings ? `, ${count(warnings, "warning")}` : "";
    if (errors > 0) io.stderr(`${count(errors, "error")}${tail}\n`);
    else if (values.strict && warnings > 0) io.stderr(`${count(warnings, "warning")} (--strict)\n`);
    else io.stdout(`ok: \`${values.bindings}\` checked${against}${tail}\n`);
  }
  return errors > 0 || (values.strict && warnings > 0) ? EXIT_FAILED : EXIT_OK;
}

async function init(values: Values, policyFiles: readonly string[], io: CliIo): Promise<number> {
  const url = values["database-url"];
  if (url === undefined) throw usage("`--database-url <url>` is required");
  for (const flag of ["bindings", "facts", "json", "strict"] as const) {
    if (values[flag] !== undefined) throw usage(`\`--${flag}\` is an option of \`bindings check\``);
  }
  const dialect = dialectOf(values);
  const program = await loadProgram(policyFiles, io);
  const session = await connect(url, dialect);
  try {
    const catalog = await withDatabase(() => session.catalog(values.schema));
    if (catalog.tables.length === 0) {
      io.stderr(`warning: schema \`${catalog.schema}\` has no tables or views\n`);
    }
    io.stdout(
      draftBindings(catalog, {
        identifier: session.identifier,
        family: session.family,
        program,
        qualify: values.schema !== undefined,
      }),
    );
    return EXIT_OK;
  } finally {
    await session.close().catch(() => {});
  }
}
