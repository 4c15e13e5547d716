import { checkPolicy } from "../check/check.js";
import { formatDiagnostic } from "../source/format.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

export const CHECK_HELP = `usage: polar-sql check <files...>

Parses and checks a policy made of one or more .polar files and prints every
diagnostic with a code frame. Exits 0 when the policy is valid, 1 when it has
errors, 2 when a file cannot be read.
`;

/** `polar-sql check a.polar b.polar`: returns the exit code. */
export async function runCheckCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(CHECK_HELP);
    return EXIT_OK;
  }
  const unknown = args.find((arg) => arg.startsWith("-"));
  if (unknown) {
    io.stderr(`error: unknown option \`${unknown}\`\n\n${CHECK_HELP}`);
    return EXIT_USAGE;
  }
  if (args.length === 0) {
    io.stderr(`error: no policy files given\n\n${CHECK_HELP}`);
    return EXIT_USAGE;
  }
  const read = await readSources(args);
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
