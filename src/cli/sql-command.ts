/**
 * `polar-sql sql <authorize|actions|list|evaluate>`: compiles one local-authorization question
 * into SQL, from flags or from the JSON body of the matching HTTP endpoint, and prints it.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import {
  actionsQuery,
  authorizeQuery,
  evaluateQueryLocal,
  type LocalOptions,
  listQuery,
} from "../api/local.js";
import { concreteFactSchema } from "../api/wire.js";
import { checkBindings } from "../bindings/check.js";
import { checkPolicy } from "../check/check.js";
import { checkFact } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { parseValue } from "../client/values.js";
import type { GroundFact } from "../core/value.js";
import {
  DEFAULT_DIALECT,
  DIALECT_NAMES,
  DIALECTS,
  type DialectName,
  dialectList,
  isDialectName,
} from "../dialects/registry.js";
import { formatDiagnostic } from "../source/format.js";
import type { SourceFile } from "../source/source.js";
import { StageError } from "../source/stage-error.js";
import { didYouMean } from "../source/suggest.js";
import {
  type CommandSpec,
  parseCommandArgs,
  reportUsage,
  requireOptions,
  UsageError,
  wantsHelp,
} from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

/** One help line per dialect: its name and engines, the default marked. */
function dialectLines(): string {
  return DIALECT_NAMES.map((name) => {
    const mark = name === DEFAULT_DIALECT ? ", the default" : "";
    return `${" ".repeat(24)}${name} (${DIALECTS[name].engines}${mark})`;
  }).join("\n");
}

const SQL_HELP = `usage: polar-sql sql <question> --policy <files...> --bindings <file> [options]

Compiles one local-authorization question into SQL and prints it, as the
/authorize_query, /actions_query, /list_query and /evaluate_query_local endpoints would.

questions and their flags:
  authorize   --actor <Type:id> --action <action> --resource <Type:id>
  actions     --actor <Type:id> --resource <Type:id>
  list        --actor <Type:id> --action <action> --resource-type <Type> --column <sql>
  evaluate    --body <file> only (a Query with a mode)

options:
  --policy <files...>   the policy (.polar files); required
  --bindings <file>     data bindings YAML; required unless the body has \`data_bindings\`
  --body <file>         the endpoint's JSON request body instead of the flags above
  --facts <file>        central facts (JSON array of {"predicate", "args": [{"type","id"}]})
                        that the SQL inlines
  --dialect <name>      the engine the SQL is for (docs/dialects.md):
${dialectLines()}
  --help                show this help

examples:
  polar-sql sql authorize --policy app.polar --bindings app.yaml \\
    --actor User:17 --action view --resource Ticket:101
  polar-sql sql list --policy app.polar --bindings app.yaml \\
    --actor User:17 --action view --resource-type Ticket --column tickets.id
  polar-sql sql evaluate --policy app.polar --bindings app.yaml --body query.json

exit codes:
  0  the SQL was printed on stdout
  1  the policy, the bindings, the facts or the question is invalid
  2  wrong arguments, or a file cannot be read
`;

const QUESTIONS = ["authorize", "actions", "list", "evaluate"] as const;
type Question = (typeof QUESTIONS)[number];

/** A failure to report: message for stderr, exit code. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usage = (message: string) => new UsageError(message);

/**
 * `polar-sql sql authorize --policy p.polar --bindings b.yaml --actor User:1 …`: prints the SQL
 * and returns the exit code.
 *
 *   await runSqlCommand(["list", "--policy", "p.polar", "--bindings", "b.yaml", "--actor",
 *     "User:17", "--action", "view", "--resource-type", "Ticket", "--column", "t.id"], processIo);
 */
export async function runSqlCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(SQL_HELP);
    return EXIT_OK;
  }
  try {
    io.stdout(`${await compile(args, io)}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, SQL_SPEC, error.message);
    if (error instanceof CommandError) {
      io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    // The compiler's own refusals (bad bindings, uninferable types) are the user's to fix; a
    // stage's refusal shows its rule as the checker shows its errors.
    if (error instanceof StageError) {
      io.stderr(`${error.format({ color: io.isTTY })}\n`);
      return EXIT_FAILED;
    }
    io.stderr(`error: ${(error as Error).message}\n`);
    return EXIT_FAILED;
  }
}

async function compile(args: readonly string[], io: CliIo): Promise<string> {
  const { values, positionals } = parseCommandArgs(SQL_SPEC, args);
  const [name, ...extraFiles] = positionals;
  if (name === undefined) throw usage(`no question given; expected one of ${questionList()}`);
  if (!(QUESTIONS as readonly string[]).includes(name)) {
    const hint = didYouMean(name, QUESTIONS);
    throw usage(`unknown question \`${name}\`; ${hint ?? `expected one of ${questionList()}`}`);
  }
  const question = name as Question;
  const policyFiles = [...(values.policy ?? []), ...extraFiles];
  if (question === "evaluate" && values.body === undefined) {
    throw usage("`evaluate` takes its question from `--body <file>`");
  }
  // Every missing flag is named at once, before any file is read.
  const present = { ...values, policy: policyFiles.length > 0 ? policyFiles : undefined };
  const required = values.body === undefined ? ["bindings", ...QUESTION_FLAGS[question]] : [];
  requireOptions(present, ["policy", ...required], question);
  dialectOf(values.dialect);
  const { program } = await loadPolicyFiles(policyFiles, io);
  const dialect = dialectOf(values.dialect);
  const options: LocalOptions = values.facts
    ? { dialect, central: centralFacts(program, await readFacts(values.facts)) }
    : { dialect };
  const bindings = values.bindings === undefined ? undefined : await readText(values.bindings);
  // The compiler validates the body (from flags or the file) as the HTTP endpoint does.
  const body = (
    values.body
      ? withBindings(await readJson(values.body), bindings)
      : bodyFromFlags(question, values, bindings)
  ) as never;
  checkBodyBindings(program, body, values.bindings ?? "data_bindings", options, io);
  switch (question) {
    case "authorize":
      return authorizeQuery(program, body, options).sql;
    case "actions":
      return actionsQuery(program, body, options).sql;
    case "list":
      return listQuery(program, body, options).sql;
    case "evaluate":
      return evaluateQueryLocal(program, body, options).sql;
    default: {
      const _never: never = question;
      return _never;
    }
  }
}

export const SQL_SPEC = {
  name: "sql",
  usage:
    "polar-sql sql <authorize|actions|list|evaluate> --policy <files...> --bindings <file> [options]",
  options: {
    policy: { type: "string", multiple: true },
    bindings: { type: "string" },
    body: { type: "string" },
    facts: { type: "string" },
    actor: { type: "string" },
    action: { type: "string" },
    resource: { type: "string" },
    "resource-type": { type: "string" },
    column: { type: "string" },
    dialect: { type: "string" },
  },
  // The questions, for the argument parser (src/cli/args.ts); each takes the options above.
  subcommands: Object.fromEntries(
    QUESTIONS.map((q) => [
      q,
      { name: `sql ${q}`, usage: `polar-sql sql ${q} [options]`, options: {} },
    ]),
  ),
} as const satisfies CommandSpec;

/** The `--dialect` value; an unknown name is a usage error (exit 2) naming the allowed ones. */
function dialectOf(name: string | undefined): DialectName {
  if (name === undefined) return DEFAULT_DIALECT;
  if (!isDialectName(name)) throw usage(`unknown dialect \`${name}\`; use one of ${dialectList()}`);
  return name;
}

/** The flags each question needs when it is not given as `--body`. */
const QUESTION_FLAGS: Readonly<Record<Question, readonly (keyof Values & string)[]>> = {
  authorize: ["actor", "action", "resource"],
  actions: ["actor", "resource"],
  list: ["actor", "action", "resource-type", "column"],
  evaluate: [],
};

type Values = ReturnType<typeof parseCommandArgs<typeof SQL_SPEC.options>>["values"];

function questionList(): string {
  return QUESTIONS.map((q) => `\`${q}\``).join(", ");
}

/** The HTTP body of the question, built from flags. */
function bodyFromFlags(question: Question, values: Values, bindings: string | undefined): unknown {
  if (bindings === undefined) throw usage("`--bindings <file>` is required");
  const need = (flag: keyof Values & string): string => {
    const value = values[flag];
    if (typeof value !== "string") throw usage(`\`${question}\` needs \`--${flag}\``);
    return value;
  };
  // Values as every command reads them (src/client/values.ts, docs/cli.md "Values").
  const typedId = (flag: "actor" | "resource") => {
    const parsed = parseValue(need(flag));
    if (!parsed.ok) throw usage(`\`--${flag}\`: ${parsed.message}`);
    return parsed.value;
  };
  switch (question) {
    case "authorize": {
      const actor = typedId("actor");
      const resource = typedId("resource");
      const query = {
        actor_type: actor.type,
        actor_id: actor.id,
        action: need("action"),
        resource_type: resource.type,
        resource_id: resource.id,
      };
      return { query, data_bindings: bindings };
    }
    case "actions": {
      const actor = typedId("actor");
      const resource = typedId("resource");
      const query = {
        actor_type: actor.type,
        actor_id: actor.id,
        resource_type: resource.type,
        resource_id: resource.id,
      };
      return { query, data_bindings: bindings };
    }
    case "list": {
      const actor = typedId("actor");
      const query = {
        actor_type: actor.type,
        actor_id: actor.id,
        action: need("action"),
        resource_type: need("resource-type"),
      };
      return { query, column: need("column"), data_bindings: bindings };
    }
    case "evaluate":
      throw usage("`evaluate` takes its question from `--body <file>`");
    default: {
      const _never: never = question;
      return _never;
    }
  }
}

/**
 * Checks the body's data bindings against the policy and prints every diagnostic with a code
 * frame (warnings too); throws a `CommandError` (exit 1) when there are errors.
 */
function checkBodyBindings(
  program: Program,
  body: unknown,
  fileName: string,
  options: LocalOptions,
  io: CliIo,
): void {
  const text = (body as { data_bindings?: unknown } | null)?.data_bindings;
  if (typeof text !== "string") return; // the endpoint's own validation reports it
  const checked = checkBindings(program, text, {
    fileName,
    // The binding queries are written in the SQL of the engine the statement is for.
    syntax: options.dialect ?? DEFAULT_DIALECT,
    ...(options.central && { central: options.central }),
  });
  const sources = [checked.source, ...program.sources];
  for (const diagnostic of checked.diagnostics) {
    io.stderr(`${formatDiagnostic(diagnostic, sources, { color: io.isTTY })}\n\n`);
  }
  const errors = checked.diagnostics.filter((d) => d.severity === "error").length;
  if (errors > 0) {
    throw new CommandError(
      `the data bindings have ${errors} ${errors === 1 ? "error" : "errors"}`,
      EXIT_FAILED,
    );
  }
}

/** `--bindings` fills in (or replaces) the body's `data_bindings`. */
function withBindings(body: unknown, bindings: string | undefined): unknown {
  if (bindings === undefined) return body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new CommandError("the `--body` file must hold a JSON object", EXIT_FAILED);
  }
  return { ...body, data_bindings: bindings };
}

/**
 * Reads and checks policy files, printing diagnostics with code frames; throws a
 * `CommandError` (exit 1) when the policy is invalid, exit 2 when a file cannot be read.
 */
export async function loadPolicyFiles(
  paths: readonly string[],
  io: CliIo,
): Promise<{ program: Program; sources: readonly SourceFile[] }> {
  const read = await readSources(paths);
  if (!read.ok) throw new CommandError(read.message, EXIT_USAGE);
  const checked = checkPolicy(read.sources);
  for (const diagnostic of checked.diagnostics) {
    io.stderr(`${formatDiagnostic(diagnostic, read.sources, { color: io.isTTY })}\n\n`);
  }
  if (!checked.ok) {
    const errors = checked.diagnostics.filter((d) => d.severity === "error").length;
    throw new CommandError(
      `the policy has ${errors} ${errors === 1 ? "error" : "errors"}`,
      EXIT_FAILED,
    );
  }
  return { program: checked.program, sources: read.sources };
}

const factsSchema = z.array(concreteFactSchema);

/** Reads a facts file: a JSON array of wire facts. */
export async function readFacts(path: string): Promise<GroundFact[]> {
  const parsed = factsSchema.safeParse(await readJson(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? ` at \`${issue.path.join(".")}\`` : "";
    throw new CommandError(
      `\`${path}\` must be a JSON array of facts {"predicate", "args": [{"type", "id"}]}${where}: ${issue.message.toLowerCase()}`,
      EXIT_FAILED,
    );
  }
  return parsed.data;
}

function centralFacts(program: Program, facts: readonly GroundFact[]) {
  for (const [index, fact] of facts.entries()) {
    const problem = checkFact(program, fact);
    if (problem) throw new CommandError(`fact ${index}: ${problem.message}`, EXIT_FAILED);
  }
  return {
    facts: (predicate: string, arity: number) =>
      facts.filter((f) => f.predicate === predicate && f.args.length === arity),
  };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : (cause as Error).message;
    throw new CommandError(`cannot read \`${path}\`: ${reason}`, EXIT_USAGE);
  }
}

async function readJson(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new CommandError(
      `\`${path}\` is not valid JSON: ${lowerFirst((cause as Error).message)}`,
      EXIT_FAILED,
    );
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
