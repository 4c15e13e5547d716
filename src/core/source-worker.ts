/**
 * Worker threads when running from sources (tsx, vitest, benches): the TypeScript entry and
 * everything it imports bundled by esbuild (a dev dependency, present in a checkout) into one
 * module, started from a `data:` URL. Loading the sources through tsx's loader inside each
 * worker cost about 1.1 s of CPU per worker start; the bundle loads in about 0.2 s
 * (bench/RESULTS.md, "Test suite time"). Packages that must load from their own folder (a
 * native addon, WebAssembly files beside the module) stay imports, by absolute file URL, since
 * a `data:` module resolves no package names. Bundles are kept per entry and process, and made
 * again when one of their input files changes.
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

const built = new Map<string, Built>();

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
 * A `data:` URL of the bundled worker whose entry is the TypeScript file `entry`; `external`
 * packages are imported from where this process resolves them.
 *
 * @example
 * new Worker(sourceWorkerUrl(new URL("./worker.ts", import.meta.url)), { resourceLimits });
 */
export function sourceWorkerUrl(entry: URL, external: readonly string[] = []): URL {
  const known = built.get(entry.href);
  if (known && newest(known.inputs) === known.stamp) return known.url;
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const root = process.cwd();
  const result = esbuild.buildSync({
    entryPoints: [fileURLToPath(entry)],
    absWorkingDir: root,
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
    external: [...external],
  });
  let code = result.outputFiles[0]!.text;
  // The externals' imports, by the URL this process resolves each package to.
  for (const name of external) {
    const specifier = new RegExp(`(from |import\\()"${escapeRegExp(name)}"`, "g");
    code = code.replace(
      specifier,
      (_, before: string) => `${before}"${import.meta.resolve(name)}"`,
    );
  }
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(root, input));
  const url = new URL(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
  built.set(entry.href, { url, inputs, stamp: newest(inputs) });
  return url;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
