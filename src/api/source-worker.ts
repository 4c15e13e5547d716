/**
 * The pool's worker when running from sources (tsx, vitest, benches): `worker.ts` and everything
 * it imports bundled by esbuild (a dev dependency, present in a checkout) into one module, started
 * from a `data:` URL. Loading the sources through tsx's loader inside each worker cost about 1.1 s
 * of CPU per worker start; the bundle loads in about 0.2 s (bench/RESULTS.md, "Test suite time").
 * The bundle is kept per process and made again when one of its input files changes.
 */
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

interface Built {
  readonly url: URL;
  /** The files the bundle was made from, absolute. */
  readonly inputs: readonly string[];
  /** Their newest modification time when it was made. */
  readonly stamp: number;
}

let built: Built | null = null;

/** The newest modification time of `files`; a file that is gone counts as changed. */
function newest(files: readonly string[]): number {
  let stamp = 0;
  for (const file of files) {
    try {
      stamp = Math.max(stamp, statSync(file).mtimeMs);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }
  return stamp;
}

/**
 * A `data:` URL of the bundled worker whose entry is the TypeScript file `entry`.
 *
 * @example
 * new Worker(sourceWorkerUrl(new URL("./worker.ts", import.meta.url)), { resourceLimits });
 */
export function sourceWorkerUrl(entry: URL): URL {
  if (built && newest(built.inputs) === built.stamp) return built.url;
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const root = process.cwd();
  const result = esbuild.buildSync({
    entryPoints: [fileURLToPath(entry)],
    absWorkingDir: root,
    bundle: true,
    platform: "node",
    format: "esm",
    // A `data:` module resolves no package names: every import but Node's own is inlined.
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text;
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(root, input));
  built = {
    url: new URL(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`),
    inputs,
    stamp: newest(inputs),
  };
  return built.url;
}
