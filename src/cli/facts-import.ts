/**
 * `polar-sql facts import <file>`: facts from JSON lines or a JSON array, all or nothing. Every
 * record is checked first, as the server will check it (src/client/fact-records.ts); then the
 * facts are sent in batches, and a batch the server refuses undoes the import
 * (src/client/import.ts).
 */
import { factChecker, factRecords, type NumberedRecord } from "../client/fact-records.js";
import { ImportFailure, type NumberedFact, sendFacts } from "../client/import.js";
import { countOption, UsageError } from "./args.js";
import { type CliIo, EXIT_FAILED } from "./io.js";
import {
  CLIENT_EXIT_CODES,
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  type RemoteSpec,
  runRemote,
} from "./remote.js";

const BATCH_OPTION = { "batch-size": { type: "string" }, ...CONNECTION_OPTIONS } as const;

export const IMPORT_SPEC: RemoteSpec<typeof BATCH_OPTION> = {
  name: "facts import",
  usage: "polar-sql facts import <file> [--batch-size <n>]",
  positionals: ["<file>"],
  options: BATCH_OPTION,
  help: `usage: polar-sql facts import <file> [--batch-size <n>]

Inserts the facts of a file, all or nothing: JSON lines (one {"predicate",
"args"} object per line, as \`facts export\` prints) or one JSON array of such
objects, read a record at a time (at most 1 MiB each). Every record is checked
first as the server will check it (its shape, NUL characters, sizes, and the
server's policy: predicate, arity, types); any bad record stops the import
before anything is sent, and the errors name their lines. Facts are then sent
in batches; if the server refuses one anyway (say, the policy changed), the
import deletes again what it had stored, leaving the facts as they were, and
names the refused line. Importing a fact that is already stored changes
nothing. Progress goes to stderr.

  polar-sql facts import facts.jsonl

options:
  --batch-size <n>   facts per request (1 to 10000, default 10000; at most 4 MiB)

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

/** Problems shown before the rest are counted. */
const SHOWN_PROBLEMS = 10;

export function runImport(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(IMPORT_SPEC, args, io, async ({ client, values, positionals }) => {
    const path = positionals[0]!;
    // One request holds most files whole: atomic, with no lookups (src/client/import.ts).
    const batchSize = countOption("batch-size", values["batch-size"], 10_000);
    const check = factChecker(await client.getPolicy());
    // First pass: every record, checked as the server will check it.
    const problems: string[] = [];
    let total = 0;
    let refused = 0;
    for await (const record of readable(path, factRecords(path, check))) {
      if ("fact" in record) total++;
      else if (++refused <= SHOWN_PROBLEMS)
        problems.push(`${path} line ${record.line}: ${record.problem}`);
    }
    if (refused > 0) {
      const more =
        refused > SHOWN_PROBLEMS ? `\n${refused - SHOWN_PROBLEMS} more records are refused` : "";
      io.stderr(`${problems.map((p) => `error: ${p}`).join("\n")}${more}\nnothing was imported\n`);
      return EXIT_FAILED;
    }
    // Second pass: the same records, sent.
    const progress = progressPrinter(io, total);
    try {
      await sendFacts(client, facts(readable(path, factRecords(path, check))), {
        batchSize,
        total,
        progress,
      });
    } catch (error) {
      if (!(error instanceof ImportFailure)) throw error;
      progress.done();
      io.stderr(`error: ${failureMessage(path, error)}\n`);
      return EXIT_FAILED;
    }
    progress.done();
    io.stdout(`imported ${plural(total, "fact")} from ${path}\n`);
    return undefined;
  });
}

function failureMessage(path: string, failure: ImportFailure): string {
  const where = failure.line === null ? "" : `${path} line ${failure.line}: `;
  const undone =
    failure.remaining > 0
      ? `${plural(failure.remaining, "fact")} of the file stayed stored and could not be deleted again`
      : failure.undone > 0
        ? `nothing was imported (the ${plural(failure.undone, "fact")} stored before it were deleted again)`
        : "nothing was imported";
  return `${where}${failure.reason}; ${undone}`;
}

/** The facts of records the first pass accepted (the file may have changed since). */
async function* facts(records: AsyncIterable<NumberedRecord>): AsyncGenerator<NumberedFact> {
  for await (const record of records) {
    if (!("fact" in record)) throw new ImportFailure(record.problem, record.line, 0, 0);
    yield record;
  }
}

/** Records of a file; a file that cannot be opened is a usage error. */
async function* readable<T>(path: string, records: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* records;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UsageError(`cannot read \`${path}\`: no such file`);
    if (code === "EISDIR") throw new UsageError(`cannot read \`${path}\`: it is a directory`);
    if (code === "EACCES") throw new UsageError(`cannot read \`${path}\`: permission denied`);
    throw error;
  }
}

function progressPrinter(io: CliIo, total: number) {
  let shown = false;
  const print = (done: number) => {
    const text = `imported ${done} of ${plural(total, "fact")}`;
    if (io.stderrIsTTY) {
      io.stderr(`\r${text}`);
      shown = true;
    } else {
      io.stderr(`${text}\n`);
    }
  };
  return Object.assign(print, {
    done: () => {
      if (shown) io.stderr("\n");
      shown = false;
    },
  });
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
