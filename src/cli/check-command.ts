import { checkPolicy } from "../check/check.js";
import { formatDiagnostic } from "../source/format.js";
import { type CommandSpec, parseCommandArgs, reportUsage, UsageError, wantsHelp } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

export const CHECK_SPEC: CommandSpec = {
  name: "check",
  usage: "polar-sql check <files...>",
  options: {},
};

export const CHECK_HELP = `usage: polar-sql check <files...>

Parses and checks a policy made of one or more .polar files and prints every
diagnostic (errors and warnings) with a code frame on stderr.

exit codes:
  0  the policy is valid (it may have warnings)
  1  the policy has errors
  2  wrong arguments, or a file cannot be read
`;

/** `polar-sql check a.polar b.polar`: returns the exit code. */
export async function runCheckCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(CHECK_HELP);
    return EXIT_OK;
  }
  let paths: string[];
  try {
    paths = parseCommandArgs(CHECK_SPEC, args).positionals;
    if (paths.length === 0) throw new UsageError("no policy files given");
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, CHECK_SPEC, error);
    throw error;
  }
  const read = await readSources(paths);
  if (!read.ok) {
    io.stderr(`error: ${read.message}\n`);
    return EXIT_USAGE;
  }
  const result = checkPolicy(read.sources);
  for (const diagnostic of result.diagnostics) {
    io.stderr(`${formatDiagnostic(diagnostic, read.sources, { color: io.isTTY })}\n\n`);
  }
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  if (!result.ok) {
    io.stderr(`${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}\n`);
    return EXIT_FAILED;
  }
  const files = plural(read.sources.length, "file");
  io.stdout(`ok: ${files} checked${warnings ? `, ${plural(warnings, "warning")}` : ""}\n`);
  return EXIT_OK;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
