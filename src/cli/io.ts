import { once } from "node:events";
import { readFile } from "node:fs/promises";
import type { SourceFile } from "../source/source.js";

/** Where a command writes; injectable so tests can capture output. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Colour output only on a terminal. */
  readonly isTTY: boolean;
  /** Progress lines that redraw themselves only when stderr is a terminal; default false. */
  readonly stderrIsTTY?: boolean;
  /** Where `POLAR_SQL_URL` and `POLAR_SQL_API_KEY` are read; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Resolves once stdout can take more (long outputs wait for slow readers); optional. */
  readonly flush?: () => Promise<void>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  flush: () =>
    process.stdout.writableNeedDrain
      ? once(process.stdout, "drain").then(() => {})
      : Promise.resolve(),
};

/** Exit codes shared by every command. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

type ReadResult =
  | { readonly ok: true; readonly sources: SourceFile[] }
  | { readonly ok: false; readonly message: string };

/** Reads policy files; the message names the first file that cannot be read and why. */
export async function readSources(paths: readonly string[]): Promise<ReadResult> {
  const sources: SourceFile[] = [];
  for (const path of paths) {
    try {
      sources.push({ name: path, text: await readFile(path, "utf8") });
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      const reason =
        code === "ENOENT"
          ? "no such file"
          : code === "EISDIR"
            ? "it is a directory"
            : code === "EACCES"
              ? "permission denied"
              : String((cause as Error).message);
      return { ok: false, message: `cannot read \`${path}\`: ${reason}` };
    }
  }
  return { ok: true, sources };
}

/** Colours only on a terminal, and never when `NO_COLOR` is set (https://no-color.org). */
export function useColor(io: CliIo, env: NodeJS.ProcessEnv = process.env): boolean {
  return io.isTTY && !env.NO_COLOR;
}
