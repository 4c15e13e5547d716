/**
 * `polar-sql facts import <file>`: facts from JSON lines or a JSON array, checked first, then
 * sent in batches; a refused fact is found by halving its batch and named by its line.
 */
import { z } from "zod";
import { ClientError, type PolarClient, type WireFact } from "../client/http.js";
import { readRecords } from "../client/records.js";
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

Inserts the facts of a file: JSON lines (one {"predicate", "args"} object per
line, as \`facts export\` prints) or one JSON array of such objects. The whole
file is checked first; a malformed record stops the import before anything is
sent, with an error naming its line. Facts are then sent in batches; if the
server refuses a fact (say, one the policy does not allow), the import stops
there, the error names its line, and the facts before it stay inserted.
Importing a fact that is already stored changes nothing, so an import can be
run again. Progress goes to stderr.

  polar-sql facts import facts.jsonl

options:
  --batch-size <n>   facts per request (1 to 10000, default 1000)

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

const factRecordSchema = z.object({
  predicate: z.string().min(1),
  args: z.array(z.object({ type: z.string().min(1), id: z.string().min(1) })),
});

interface NumberedFact {
  readonly line: number;
  readonly fact: WireFact;
}

/** Bodies stay well below the server's 10 MiB limit whatever the batch size. */
const MAX_BATCH_BYTES = 4 << 20;

export function runImport(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(IMPORT_SPEC, args, io, async ({ client, values, positionals }) => {
    const path = positionals[0]!;
    const batchSize = countOption("batch-size", values["batch-size"], 1000);
    // First pass: every record is well formed, and how many there are.
    let total = 0;
    try {
      for await (const record of numberedFacts(path)) if (record) total++;
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      io.stderr(`error: ${error.message}\n`);
      return EXIT_FAILED;
    }
    const progress = progressPrinter(io, total);
    let imported = 0;
    let batch: NumberedFact[] = [];
    let bytes = 0;
    const send = async () => {
      imported += await sendBatch(client, batch, path, imported);
      batch = [];
      bytes = 0;
      progress(imported);
    };
    try {
      for await (const record of numberedFacts(path)) {
        batch.push(record);
        bytes += JSON.stringify(record.fact).length;
        if (batch.length >= batchSize || bytes >= MAX_BATCH_BYTES) await send();
      }
      if (batch.length > 0) await send();
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      progress.done();
      io.stderr(`error: ${error.message}\n`);
      return EXIT_FAILED;
    }
    progress.done();
    io.stdout(`imported ${plural(total, "fact")} from ${path}\n`);
    return undefined;
  });
}

/** A bad record or a refused fact, named by file and line. */
class ImportError extends Error {}

async function* numberedFacts(path: string): AsyncGenerator<NumberedFact> {
  try {
    for await (const record of readRecords(path)) {
      if ("error" in record) throw new ImportError(`${path} line ${record.line}: ${record.error}`);
      const parsed = factRecordSchema.safeParse(record.value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = issue.path.length > 0 ? `\`${issue.path.join(".")}\`: ` : "";
        throw new ImportError(
          `${path} line ${record.line}: ${where}${issue.message.toLowerCase()}; expected {"predicate": "…", "args": [{"type": "…", "id": "…"}]}`,
        );
      }
      yield { line: record.line, fact: parsed.data };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UsageError(`cannot read \`${path}\`: no such file`);
    if (code === "EISDIR") throw new UsageError(`cannot read \`${path}\`: it is a directory`);
    throw error;
  }
}

/**
 * Sends one batch (atomic on the server). When the server refuses it, finds the first refused
 * fact by halving: the facts before it are sent, and the error names its line.
 * Returns how many facts were sent.
 */
async function sendBatch(
  client: PolarClient,
  batch: readonly NumberedFact[],
  path: string,
  before: number,
): Promise<number> {
  const post = (records: readonly NumberedFact[]) =>
    client.batch([{ inserts: records.map((r) => r.fact) }]);
  try {
    await post(batch);
    return batch.length;
  } catch (error) {
    if (!(error instanceof ClientError) || error.status !== 400) throw error;
  }
  let good = 0; // batch[0, good) are stored; the first refused fact is in [good, bad)
  let bad = batch.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    try {
      await post(batch.slice(good, middle));
      good = middle;
    } catch (error) {
      if (!(error instanceof ClientError) || error.status !== 400) throw error;
      bad = middle;
    }
  }
  const refused = batch[good]!;
  let reason: string;
  try {
    await post([refused]);
    reason = "refused in its batch but accepted alone; run the import again";
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    reason = error.message;
  }
  throw new ImportError(
    `${path} line ${refused.line}: ${reason} (${plural(before + good, "fact")} imported before it)`,
  );
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
