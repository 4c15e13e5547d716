/**
 * Command-line arguments for every command: node's `parseArgs` underneath, with the project's
 * messages on top (unknown options get a did-you-mean, every missing required option is named
 * in one message) and a short usage error instead of the whole help.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "../source/suggest.js";
import { type CliIo, EXIT_USAGE } from "./io.js";

export interface OptionSpec {
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
}

/** Wrong arguments: reported with the command's usage line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
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
  const options = spec.options as OptionSpecs;
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
      const known = Object.keys(options).map((name) => `--${name}`);
      const hint = didYouMean(token.rawName, known);
      throw new UsageError(`unknown option \`${token.rawName}\`${hint ? `; ${hint}` : ""}`);
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
    return { values: parsed.values as Values<Options>, positionals: parsed.positionals };
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
 * Prints a short usage error: the message, the usage line and where the full help is.
 * Returns the usage exit code.
 */
export function reportUsage(
  io: CliIo,
  spec: Pick<CommandSpec, "name" | "usage">,
  message: string,
): number {
  io.stderr(
    `error: ${message}\nusage: ${spec.usage}\nrun \`polar-sql ${spec.name} --help\` for details\n`,
  );
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
