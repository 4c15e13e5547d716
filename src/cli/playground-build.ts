/**
 * Builds the playground (docs/playground.md) as a static site: the page, its stylesheet, the
 * bundled script (esbuild, a dev dependency) and PGlite's WebAssembly files beside the chunk
 * that loads them, so that the page requests nothing from another origin.
 *
 * Every file under `assets/` has its content's hash in its name (esbuild's `[hash]` for the
 * chunks, `hashedName` for the stylesheet and PGlite's files), so a server may let browsers
 * keep them for good; `index.html`, which names them, is the one file to revalidate. Each file
 * also gets a brotli copy (`.br`) for servers that hand out precompressed files
 * (src/cli/playground-server.ts does, and gzips on the fly for browsers without brotli). No
 * `.gz` copies: they would add 6 MB to the package for browsers that rarely need them.
 *
 *   npm run build:playground            # writes dist/playground
 *   tsx src/cli/playground-build.ts out # writes out/
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants as zlibConstants } from "node:zlib";

/** The package root (two levels up from src/cli and dist/cli). */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where `npm run build:playground` writes the site and `polar-sql playground` serves it from. */
export const DEFAULT_SITE_DIR = join(PACKAGE_ROOT, "dist", "playground");

const STATIC_DIR = join(PACKAGE_ROOT, "playground", "static");
/** PGlite's files, by the key `playground/src/sql-runner.ts` reads them under. */
const PGLITE_FILES = { wasm: "pglite.wasm", data: "pglite.data", initdb: "initdb.wasm" } as const;
/** Extensions worth compressing: every file the site has but images. */
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".wasm", ".data", ".json"]);

/**
 * The page must not need Node: a `node:` import fails the build, except PGlite's, which it
 * makes only when it runs under Node (the page never does) and which stays an unused import.
 */
const nodeBuiltinsGuard: import("esbuild").Plugin = {
  name: "node-builtins-guard",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => {
      if (args.importer.includes(`${join("node_modules", "@electric-sql", "pglite")}`)) {
        return { path: args.path, external: true };
      }
      return {
        errors: [
          {
            text: `the playground must run in a browser, but ${relative(PACKAGE_ROOT, args.importer)} imports ${args.path} (docs/playground.md)`,
          },
        ],
      };
    });
  },
};

/**
 * The page prints SQL and opens no database session: each dialect's catalog module (its
 * `catalog.open` imports it, with the driver, only when called; src/dialects/dialect.ts) is
 * left out, and importing it in the page would fail.
 */
const noCatalogSessions: import("esbuild").Plugin = {
  name: "no-catalog-sessions",
  setup(build) {
    const dialects = join(PACKAGE_ROOT, "src", "dialects");
    build.onResolve({ filter: /^\.\/catalog\.js$/ }, (args) =>
      dirname(args.importer) !== dialects && dirname(dirname(args.importer)) === dialects
        ? { path: args.importer, namespace: "no-catalog-sessions" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "no-catalog-sessions" }, () => ({
      contents: 'throw new Error("the playground opens no database session");',
    }));
  },
};

export interface PlaygroundBuild {
  readonly dir: string;
  /** The files (relative to `dir`) the page loads before any SQL runs: HTML, CSS, script chunks. */
  readonly initialFiles: readonly string[];
  /** The files loaded on the first `run-sql`: PGlite's chunks and its WebAssembly files. */
  readonly lazyFiles: readonly string[];
  /** Brotli bytes of `initialFiles` (what a browser downloads from `polar-sql playground`). */
  readonly initialBrotliBytes: number;
  /** Brotli bytes of `lazyFiles`. */
  readonly lazyBrotliBytes: number;
}

/** `style.css` → `style-1A2B3C4D.css`: the first 8 hex digits of the content's SHA-256. */
export function hashedName(name: string, content: Uint8Array): string {
  const hash = createHash("sha256").update(content).digest("hex").slice(0, 8).toUpperCase();
  const extension = extname(name);
  return `${basename(name, extension)}-${hash}${extension}`;
}

interface BuildOptions {
  /**
   * One brotli quality for every copy, instead of the best for the page's files and 9 for
   * PGlite's: seconds less for a build that is served once (test/playground-e2e.test.ts uses 5:
   * a tenth larger, a tenth of the time).
   */
  readonly brotliQuality?: number;
}

/** Builds the site into `dir` (emptied first). */
export async function buildPlayground(
  dir: string = DEFAULT_SITE_DIR,
  options: BuildOptions = {},
): Promise<PlaygroundBuild> {
  const esbuild = await loadEsbuild();
  await rm(dir, { recursive: true, force: true });
  const assets = join(dir, "assets");
  await mkdir(assets, { recursive: true });
  const pglite = await copyPgliteFiles(assets);
  const stylesheet = await copyHashed(join(STATIC_DIR, "style.css"), assets);
  const result = await esbuild.build({
    entryPoints: [join(PACKAGE_ROOT, "playground", "src", "main.ts")],
    outdir: assets,
    entryNames: "[name]-[hash]",
    chunkNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    legalComments: "none",
    define: { PGLITE_FILES: JSON.stringify(pglite) },
    plugins: [noCatalogSessions, nodeBuiltinsGuard],
    logLevel: "silent",
  });
  const chunks = splitChunks(result.metafile, dir);
  await writeIndex(dir, { stylesheet: `assets/${stylesheet}`, script: chunks.main });
  await precompressAll(dir, options.brotliQuality);
  const initialFiles = ["index.html", `assets/${stylesheet}`, ...chunks.initial];
  const lazyFiles = [...chunks.lazy, ...Object.values(pglite).map((name) => `assets/${name}`)];
  return {
    dir,
    initialFiles,
    lazyFiles,
    initialBrotliBytes: await brotliBytes(dir, initialFiles),
    lazyBrotliBytes: await brotliBytes(dir, lazyFiles),
  };
}

async function loadEsbuild(): Promise<typeof import("esbuild")> {
  try {
    return await import("esbuild");
  } catch {
    throw new Error(
      "building the playground needs esbuild (a dev dependency): run `npm install` in a checkout",
    );
  }
}

/** Copies `source` into `folder` under its hashed name, which it returns. */
async function copyHashed(source: string, folder: string): Promise<string> {
  const content = await readFile(source);
  const name = hashedName(basename(source), content);
  await writeFile(join(folder, name), content);
  return name;
}

type PgliteNames = Record<keyof typeof PGLITE_FILES, string>;

/** PGlite's WebAssembly files under hashed names; the names, for `PGLITE_FILES`. */
async function copyPgliteFiles(assets: string): Promise<PgliteNames> {
  const require = createRequire(import.meta.url);
  const pgliteDist = dirname(require.resolve("@electric-sql/pglite"));
  const named = await Promise.all(
    Object.entries(PGLITE_FILES).map(
      async ([key, file]) => [key, await copyHashed(join(pgliteDist, file), assets)] as const,
    ),
  );
  return Object.fromEntries(named) as PgliteNames;
}

/**
 * The script chunks, relative to the site: `main` (the entry), the ones the page loads at once
 * (`main` and what it imports statically) and the ones behind a dynamic import (PGlite's).
 */
function splitChunks(
  metafile: import("esbuild").Metafile,
  dir: string,
): { main: string; initial: string[]; lazy: string[] } {
  const outputs = metafile.outputs;
  const main = Object.keys(outputs).find((path) =>
    outputs[path]?.entryPoint?.endsWith("playground/src/main.ts"),
  );
  if (!main) throw new Error("esbuild wrote no chunk for playground/src/main.ts");
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path)) return;
    initial.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement") visit(imported.path);
    }
  };
  visit(main);
  const inSite = (path: string) => relative(dir, join(process.cwd(), path)).split("\\").join("/");
  const scripts = Object.keys(outputs).filter((path) => path.endsWith(".js"));
  return {
    main: inSite(main),
    initial: scripts.filter((path) => initial.has(path)).map(inSite),
    lazy: scripts.filter((path) => !initial.has(path)).map(inSite),
  };
}

/** `playground/static/index.html` with the hashed names of the stylesheet and the script. */
async function writeIndex(dir: string, names: { stylesheet: string; script: string }) {
  let html = await readFile(join(STATIC_DIR, "index.html"), "utf8");
  for (const [placeholder, name] of [
    ['href="style.css"', `href="${names.stylesheet}"`],
    ['src="assets/main.js"', `src="${names.script}"`],
  ] as const) {
    if (!html.includes(placeholder)) {
      throw new Error(`playground/static/index.html no longer has ${placeholder}`);
    }
    html = html.replace(placeholder, name);
  }
  await writeFile(join(dir, "index.html"), html);
}

const brotliAsync = promisify(brotliCompress);

/**
 * Writes `file.br` beside each compressible file, when smaller than it: at `quality` when given,
 * else at brotli's best quality for the page's files and at quality 9 for the megabytes of
 * PGlite (several times faster, a few percent larger).
 */
async function precompressAll(dir: string, quality?: number): Promise<void> {
  const files = (await readdir(dir, { recursive: true })).filter((file) =>
    COMPRESSIBLE.has(extname(file)),
  );
  await Promise.all(
    files.map(async (file) => {
      const content = await readFile(join(dir, file));
      const best = content.length > 2_000_000 ? 9 : zlibConstants.BROTLI_MAX_QUALITY;
      const br = await brotliAsync(content, {
        params: {
          [zlibConstants.BROTLI_PARAM_QUALITY]: quality ?? best,
          [zlibConstants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      });
      if (br.length < content.length) await writeFile(join(dir, `${file}.br`), br);
    }),
  );
}

/** The bytes of `files` as served to a browser that accepts brotli. */
async function brotliBytes(dir: string, files: readonly string[]): Promise<number> {
  let total = 0;
  for (const file of files) {
    const path = join(dir, file);
    total += (await readFile(`${path}.br`).catch(() => readFile(path))).length;
  }
  return total;
}

const invoked = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invoked) {
  const target = process.argv[2] ?? DEFAULT_SITE_DIR;
  const built = await buildPlayground(target);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  process.stdout.write(
    `playground written to ${relative(process.cwd(), built.dir) || "."}: ` +
      `${kb(built.initialBrotliBytes)} (brotli) at load, ${kb(built.lazyBrotliBytes)} (brotli) on the first SQL run\n`,
  );
}
