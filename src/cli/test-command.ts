import { checkPolicy } from "../check/check.js";
import { formatTestReport, runTests, testReportJson } from "../evaluate/index.js";
import { formatDiagnostic, formatDiagnosticLine } from "../source/format.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, readSources } from "./io.js";

export const TEST_HELP = `usage: polar-sql test [--json] <files...>

Checks a policy made of one or more .polar files and runs its test blocks and
inline queries against the reference evaluator. Prints one line per test.

options:
  --json   print the report as JSON on stdout

Exits 0 when every test passes, 1 on a failing test or an invalid policy,
2 when a file cannot be read or the arguments are wrong.
`;

/**
 * `polar-sql test a.polar b.polar`: returns the exit code.
 *
 * @example
 * const code = await runTestCommand(["examples/reference/rbac.polar"], processIo);
 */
export async function runTestCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(TEST_HELP);
    return EXIT_OK;
  }
  const json = args.includes("--json");
  const unknown = args.find((arg) => arg.startsWith("-") && arg !== "--json");
  if (unknown) {
    io.stderr(`error: unknown option \`${unknown}\`\n\n${TEST_HELP}`);
    return EXIT_USAGE;
  }
  const paths = args.filter((arg) => arg !== "--json");
  if (paths.length === 0) {
    io.stderr(`error: no policy files given\n\n${TEST_HELP}`);
    return EXIT_USAGE;
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
