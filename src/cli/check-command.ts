import { checkPolicy } from "../check/check.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { formatDiagnostic } from "../source/format.js";
import { positionOf, type SourceFile } from "../source/source.js";
import { type CommandSpec, parseCommandArgs, reportUsage, UsageError, wantsHelp } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

export const CHECK_SPEC: CommandSpec<{ json: { type: "boolean" } }> = {
  name: "check",
  usage: "polar-sql check [--json] <files...>",
  options: { json: { type: "boolean" } },
};

const CHECK_HELP = `usage: polar-sql check [--json] <files...>

Parses and checks a policy made of one or more .polar files and prints every
diagnostic (errors and warnings) with a code frame on stderr.

options:
  --json   print {"ok", "diagnostics": [{code, severity, message, file, line,
           column, help}]} on stdout instead

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
  let json: boolean;
  try {
    const parsed = parseCommandArgs(CHECK_SPEC, args);
    paths = parsed.positionals;
    json = parsed.values.json === true;
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
  if (json) {
    const diagnostics = result.diagnostics.map((d) => diagnosticJson(d, read.sources));
    io.stdout(`${JSON.stringify({ ok: result.ok, diagnostics }, null, 2)}\n`);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  }
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

/** A diagnostic as JSON, with the file, line and column (1-based) where it starts. */
function diagnosticJson(diagnostic: Diagnostic, sources: readonly SourceFile[]) {
  const { span, ...fields } = diagnostic;
  const source = span && sources.find((s) => s.name === span.file);
  if (!span || !source) return fields;
  const { line, column } = positionOf(source, span.start);
  return { ...fields, file: span.file, line, column };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
