/**
 * `polar-sql explain`: why one question is allowed or denied, as a tree (or JSON), answered by
 * the reference evaluator over the facts given.
 */
import { parseArgs } from "node:util";
import { DEFAULT_LIMITS, LIMIT_SETTINGS } from "../api/limits.js";
import { checkFact } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { parseValue } from "../client/values.js";
import type { GroundFact, Value } from "../core/value.js";
import { EvaluationError } from "../evaluate/errors.js";
import { explain } from "../evaluate/explain.js";
import { formatExplanation } from "../evaluate/explain-format.js";
import { ExplanationTooLarge, explanationJson } from "../evaluate/explain-json.js";
import type { CommandSpec } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, useColor } from "./io.js";
import { CommandError, loadPolicyFiles, readFacts } from "./sql-command.js";

const EXPLAIN_HELP = `usage: polar-sql explain --policy <files...> --actor <Type:id> --action <action>
                        --resource <Type:id> [--facts <file>] [--context <file>] [--json]
                        [--max-explain-nodes <n>] [--max-explain-bytes <n>]

Explains why a question is allowed (a shortest proof: every rule with its file:line,
every fact with where it came from) or denied (for each rule that could apply, the
first condition that failed), using the reference evaluator.

options:
  --policy <files...>   the policy (.polar files); required
  --actor <Type:id>     who asks, e.g. User:alice; required
  --action <action>     what they want to do, e.g. read; required
  --resource <Type:id>  on what, e.g. Document:d1; required
  --facts <file>        stored facts: a JSON array of {"predicate", "args": [{"type", "id"}]}
  --context <file>      context facts of the question, in the same format
  --json                print {"allowed", "explanation"} as JSON, on one line
  --max-explain-nodes <n>  most nodes of the explanation (default 100000)
  --max-explain-bytes <n>  most bytes of its JSON (default 16777216)
  --help                show this help

Prints a tree: ✓ for what holds, ✗ for what does not, file:line beside rules;
below 40 levels a line starts with its level, [41], instead of more indentation.
Colours only on a terminal, and not when NO_COLOR is set.

exit codes:
  0  an answer, allowed or denied
  1  the policy is invalid, or the explanation is larger than a limit
  2  wrong arguments, unreadable files or facts the policy refuses
`;

const OPTIONS = {
  policy: { type: "string", multiple: true },
  actor: { type: "string" },
  action: { type: "string" },
  resource: { type: "string" },
  facts: { type: "string" },
  context: { type: "string" },
  json: { type: "boolean" },
  "max-explain-nodes": { type: "string" },
  "max-explain-bytes": { type: "string" },
} as const;

/** What the argument parser knows of `explain` (src/cli/args.ts). */
export const EXPLAIN_SPEC = {
  name: "explain",
  usage:
    "polar-sql explain --policy <files...> --actor <Type:id> --action <action> --resource <Type:id> [options]",
  options: OPTIONS,
} as const satisfies CommandSpec;

const usage = (message: string) => new CommandError(message, EXIT_USAGE);

/**
 * `polar-sql explain --policy p.polar --actor User:ada --action read --resource Doc:d1`.
 *
 *   await runExplainCommand(["--policy", "p.polar", "--actor", "User:ada", "--action",
 *     "read", "--resource", "Doc:d1", "--facts", "facts.json"], processIo); // 0
 */
export async function runExplainCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(EXPLAIN_HELP);
    return EXIT_OK;
  }
  try {
    const { values, positionals } = parseOptions(args);
    const actor = typedId("actor", values.actor);
    const action = required("action", values.action);
    const resource = typedId("resource", values.resource);
    const files = [...(values.policy ?? []), ...positionals];
    if (files.length === 0) throw usage("no policy files given (`--policy <files...>`)");
    const { program } = await loadPolicyFiles(files, io);
    const facts = values.facts ? await factsFile(program, "--facts", values.facts) : [];
    const contextFacts = values.context
      ? await factsFile(program, "--context", values.context)
      : [];
    const budget = {
      maxNodes: limit(
        "max-explain-nodes",
        values["max-explain-nodes"],
        DEFAULT_LIMITS.explainNodes,
      ),
      maxBytes: limit(
        "max-explain-bytes",
        values["max-explain-bytes"],
        DEFAULT_LIMITS.explainBytes,
      ),
    };
    const result = explain(program, { actor, action, resource }, facts, { contextFacts });
    // The JSON is written within the budget in both cases: the text is larger than it.
    const json = explanationJson(result, budget);
    io.stdout(
      values.json
        ? `${json}\n`
        : formatExplanation(result.explanation, { color: useColor(io), maxNodes: budget.maxNodes }),
    );
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ExplanationTooLarge) {
      const name = error.bound === "maxNodes" ? "explainNodes" : "explainBytes";
      const { what, flag } = LIMIT_SETTINGS[name];
      io.stderr(
        `error: the explanation is too large: over the limit of ${error.value} ${what} (raise it with \`${flag}\`)\n`,
      );
      return EXIT_FAILED;
    }
    if (error instanceof CommandError) {
      const help = error.exitCode === EXIT_USAGE ? "run `polar-sql explain --help`\n" : "";
      io.stderr(`error: ${error.message}\n${help}`);
      return error.exitCode;
    }
    // A question the evaluator refuses (an `Integer` id that is not an integer, …).
    if (error instanceof EvaluationError) {
      io.stderr(`${error.format({ color: useColor(io) })}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

function parseOptions(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    throw usage(message.charAt(0).toLowerCase() + message.slice(1));
  }
}

/** A positive whole number given with `--<flag>`, or the default. */
function limit(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[1-9][0-9]{0,14}$/.test(text)) {
    throw usage(`\`--${flag}\` must be a positive whole number, got \`${text}\``);
  }
  return Number(text);
}

function required(flag: string, value: string | undefined): string {
  if (value === undefined) throw usage(`\`--${flag}\` is required`);
  return value;
}

/** A value as every command reads it (src/client/values.ts, docs/cli.md "Values"). */
function typedId(flag: string, text: string | undefined): Value {
  const parsed = parseValue(required(flag, text));
  if (!parsed.ok) throw usage(`\`--${flag}\`: ${parsed.message}`);
  return parsed.value;
}

/** A facts file the policy accepts; any problem is the caller's to fix (exit 2). */
async function factsFile(program: Program, flag: string, path: string): Promise<GroundFact[]> {
  let facts: GroundFact[];
  try {
    facts = await readFacts(path);
  } catch (error) {
    if (error instanceof CommandError) throw usage(error.message);
    throw error;
  }
  for (const [index, fact] of facts.entries()) {
    const problem = checkFact(program, fact);
    if (problem) throw usage(`\`${flag}\` fact ${index}: ${problem.message}`);
  }
  return facts;
}
