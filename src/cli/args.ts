/**
 * Command-line arguments for every command and subcommand: node's `parseArgs` underneath, the
 * commands' declarations (`CommandSpec`, subcommands included) on top. An unknown command,
 * subcommand or option gets one line with a did-you-mean; every missing required option is
 * named in one message; never the whole help.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "../source/suggest.js";
import { type CliIo, EXIT_USAGE } from "./io.js";

interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly multiple?: boolean;
  readonly short?: string;
  readonly default?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** What a command tells the argument layer about itself. */
export interface CommandSpec<Options extends OptionSpecs = OptionSpecs> {
  /** As typed after `polar-sql`: `check`, `facts get`. */
  readonly name: string;
  /** One line: `polar-sql check <files...>`. */
  readonly usage: string;
  readonly options: Options;
  /**
   * The subcommands, named by the first positional argument (`facts get`, `sql list`); each
   * takes its own options and the command's. The command's own code dispatches; this
   * declaration lets the parser name unknown subcommands and options before it runs.
   */
  readonly subcommands?: Readonly<Record<string, CommandSpec>>;
}

/** Every command understands these, whether it declares them or not. */
const HELP_OPTIONS: OptionSpecs = { help: { type: "boolean", short: "h" } };

/**
 * Wrong arguments, exit code 2. `unknown` marks an unknown command, subcommand or option,
 * reported on one line; other usage errors add the command's usage line.
 */
export class UsageError extends Error {
  readonly unknown: boolean;
  /** The command or subcommand whose arguments are wrong, when known: its help is the pointer. */
  readonly command: Pick<CommandSpec, "name" | "usage"> | undefined;
  constructor(
    message: string,
    options: {
      readonly unknown?: boolean;
      readonly command?: Pick<CommandSpec, "name" | "usage">;
    } = {},
  ) {
    super(message);
    this.name = "UsageError";
    this.unknown = options.unknown === true;
    this.command = options.command;
  }
}

/**
 * The error for a name nobody declared: what kind of name, what was typed, what exists.
 *
 * @example
 * unknownName("option", "--polcy", ["--policy"]).message;
 * // "unknown option `--polcy` (did you mean `--policy`?)"
 */
export function unknownName(
  kind: string,
  given: string,
  known: readonly string[],
  command?: Pick<CommandSpec, "name" | "usage">,
): UsageError {
  const hint = didYouMean(given, known);
  return new UsageError(`unknown ${kind} \`${given}\`${hint ? ` (${hint})` : ""}`, {
    unknown: true,
    ...(command && { command }),
  });
}

type Values<Options extends OptionSpecs> = {
  -readonly [K in keyof Options]?: Options[K]["type"] extends "boolean"
    ? boolean
    : Options[K]["multiple"] extends true
      ? string[]
      : string;
};

export interface ParsedArgs<Options extends OptionSpecs> {
  readonly values: Values<Options>;
  readonly positionals: string[];
}

/**
 * Parses a command's arguments or throws a `UsageError` in the house style.
 *
 * @example
 * parseCommandArgs({ name: "test", usage: "…", options: { json: { type: "boolean" } } },
 *   ["--jsn", "a.polar"]); // throws: unknown option `--jsn`; did you mean `--json`?
 */
export function parseCommandArgs<Options extends OptionSpecs>(
  spec: CommandSpec<Options>,
  args: readonly string[],
): ParsedArgs<Options> {
  const options = { ...HELP_OPTIONS, ...(spec.options as OptionSpecs) };
  const { tokens } = parseArgs({
    args: [...args],
    options: options as ParseArgsConfig["options"],
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens ?? []) {
    if (token.kind !== "option") continue;
    const option = options[token.name];
    if (!option) {
      throw unknownName(
        "option",
        token.rawName,
        Object.keys(options).map((name) => `--${name}`),
      );
    }
    if (option.type === "string" && token.value === undefined) {
      throw new UsageError(`\`--${token.name}\` needs a value`);
    }
    if (option.type === "boolean" && token.value !== undefined) {
      throw new UsageError(`\`--${token.name}\` takes no value`);
    }
  }
  try {
    const parsed = parseArgs({
      args: [...args],
      options: options as ParseArgsConfig["options"],
      allowPositionals: true,
      strict: true,
    });
    const values: Record<string, unknown> = { ...parsed.values };
    delete values.help;
    return { values: values as Values<Options>, positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message;
    throw new UsageError(message.charAt(0).toLowerCase() + message.slice(1));
  }
}

/**
 * Throws one `UsageError` naming every required option that is missing; `who` (a command or
 * question) phrases it as "`who` needs …".
 *
 * @example
 * requireOptions({ actor: "User:1" }, ["actor", "action", "resource"]);
 * // throws: missing required options `--action` and `--resource`
 */
export function requireOptions(
  values: Readonly<Record<string, unknown>>,
  required: readonly string[],
  who?: string,
): void {
  const missing = required.filter((name) => values[name] === undefined);
  if (missing.length === 0) return;
  const names = listOf(missing.map((name) => `\`--${name}\``));
  if (who !== undefined) throw new UsageError(`\`${who}\` needs ${names}`);
  const noun = missing.length === 1 ? "option" : "options";
  throw new UsageError(`missing required ${noun} ${names}`);
}

/** `a`, `a and b`, `a, b and c` */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** True when the arguments ask for help (`--help` or `-h` anywhere). */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}

/**
 * Checks arguments against a command's declarations, subcommands included, before the command
 * runs; throws a `UsageError` naming the first problem and the command or subcommand whose
 * `--help` lists the right names (`facts get` for `facts get --jsno`).
 *
 * @example
 * checkCommandArgs(FACTS_SPEC, ["gte", "has_role"]);
 * // throws: unknown subcommand `facts gte` (did you mean `facts get`?)
 */
export function checkCommandArgs(spec: CommandSpec, args: readonly string[]): void {
  const subcommands = spec.subcommands;
  if (!subcommands) {
    parseNaming(spec, args);
    return;
  }
  const { name, rest } = splitSubcommand(spec, args);
  if (name === undefined) {
    parseNaming({ ...spec, options: everyOption(spec) }, args);
    return;
  }
  const sub = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!sub) {
    const known = Object.keys(subcommands).map((other) => `${spec.name} ${other}`);
    throw unknownName("subcommand", `${spec.name} ${name}`, known, spec);
  }
  checkCommandArgs({ ...sub, options: { ...spec.options, ...sub.options } }, rest);
}

/**
 * The subcommand the arguments name, their first positional, and the other arguments; what
 * the commands with subcommands dispatch on, so that they agree with `checkCommandArgs`.
 *
 * @example
 * splitSubcommand(FACTS_SPEC, ["--url", "u", "get", "has_role"]);
 * // { name: "get", rest: ["--url", "u", "has_role"] }
 */
export function splitSubcommand(
  spec: CommandSpec,
  args: readonly string[],
): { readonly name: string | undefined; readonly rest: readonly string[] } {
  const { tokens } = parseArgs({
    args: [...args],
    options: { ...HELP_OPTIONS, ...everyOption(spec) } as ParseArgsConfig["options"],
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const first = tokens?.find((token) => token.kind === "positional");
  if (!first) return { name: undefined, rest: args };
  return {
    name: first.value,
    rest: [...args.slice(0, first.index), ...args.slice(first.index + 1)],
  };
}

/** Every option a command or any of its subcommands takes (values are not subcommands). */
function everyOption(spec: CommandSpec): OptionSpecs {
  return Object.assign(
    {},
    spec.options,
    ...Object.values(spec.subcommands ?? {}).map((sub) => sub.options),
  );
}

/** `parseCommandArgs`, with the command named in its errors. */
function parseNaming(spec: CommandSpec, args: readonly string[]): void {
  try {
    parseCommandArgs(spec, args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(error.message, { unknown: error.unknown, command: spec });
  }
}

/**
 * Prints a short usage error and returns the usage exit code: an unknown name on one line with
 * where the help is; anything else with the command's usage line too.
 */
export function reportUsage(
  io: CliIo,
  spec: Pick<CommandSpec, "name" | "usage">,
  error: UsageError | string,
): number {
  const command = (typeof error === "string" ? undefined : error.command) ?? spec;
  const help = `\`polar-sql ${command.name} --help\``;
  if (typeof error !== "string" && error.unknown) {
    io.stderr(`error: ${error.message}; run ${help}\n`);
  } else {
    const message = typeof error === "string" ? error : error.message;
    io.stderr(`error: ${message}\nusage: ${command.usage}\nrun ${help} for details\n`);
  }
  return EXIT_USAGE;
}

/**
 * A count option from 1 to `max`, or `fallback` when absent; a `UsageError` otherwise.
 *
 * @example
 * countOption("page-size", "50", 1000); // 50
 */
export function countOption(
  name: string,
  text: string | undefined,
  fallback: number,
  max = 10_000,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < 1 || value > max) {
    throw new UsageError(`\`--${name}\` must be a number from 1 to ${max}, got \`${text}\``);
  }
  return value;
}
