import { checkPolicy } from "../check/check.js";
import { formatTestReport, runTests, testReportJson } from "../evaluate/index.js";
import { formatDiagnostic, formatDiagnosticLine } from "../source/format.js";
import { type CommandSpec, parseCommandArgs, reportUsage, UsageError, wantsHelp } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

export const TEST_SPEC: CommandSpec<{ json: { type: "boolean" } }> = {
  name: "test",
  usage: "polar-sql test [--json] <files...>",
  options: { json: { type: "boolean" } },
};

const TEST_HELP = `usage: polar-sql test [--json] <files...>

Checks a policy made of one or more .polar files and runs its test blocks and
inline queries against the reference evaluator. Prints one line per test.

options:
  --json   print the report as JSON on stdout

exit codes:
  0  every test passes
  1  a test fails, or the policy has errors
  2  wrong arguments, or a file cannot be read
`;

/**
 * `polar-sql test a.polar b.polar`: returns the exit code.
 *
 * @example
 * const code = await runTestCommand(["examples/reference/rbac.polar"], processIo);
 */
export async function runTestCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(TEST_HELP);
    return EXIT_OK;
  }
  let paths: string[];
  let json: boolean;
  try {
    const parsed = parseCommandArgs(TEST_SPEC, args);
    paths = parsed.positionals;
    json = parsed.values.json === true;
    if (paths.length === 0) throw new UsageError("no policy files given");
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, TEST_SPEC, error);
    throw error;
  }
  const read = await readSources(paths);
  if (!read.ok) {
    io.stderr(`error: ${read.message}\n`);
    return EXIT_USAGE;
  }
  const checked = checkPolicy(read.sources);
  for (const diagnostic of checked.diagnostics) {
    io.stderr(`${formatDiagnostic(diagnostic, read.sources, { color: io.isTTY })}\n\n`);
  }
  if (!checked.ok) {
    if (json) {
      const errors = checked.diagnostics
        .filter((diagnostic) => diagnostic.severity === "error")
        .map((diagnostic) => formatDiagnosticLine(diagnostic, read.sources));
      io.stdout(`${JSON.stringify({ passed: false, errors, tests: [] }, null, 2)}\n`);
    } else {
      io.stderr("the policy has errors; no tests were run\n");
    }
    return EXIT_FAILED;
  }
  const report = runTests(checked.program);
  io.stdout(json ? testReportJson(report) : formatTestReport(report, { color: io.isTTY }));
  return report.passed ? EXIT_OK : EXIT_FAILED;
}
