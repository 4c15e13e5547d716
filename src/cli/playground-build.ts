/**
 * Builds the playground (docs/playground.md) as a static site: the page, its stylesheet, the
 * bundled script (esbuild, a dev dependency) and PGlite's WebAssembly files beside the chunk
 * that loads them, so that the page requests nothing from another origin.
 *
 *   npm run build:playground            # writes dist/playground
 *   tsx src/cli/playground-build.ts out # writes out/
 */
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The package root (two levels up from src/cli and dist/cli). */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where `npm run build:playground` writes the site and `polar-sql playground` serves it from. */
export const DEFAULT_SITE_DIR = join(PACKAGE_ROOT, "dist", "playground");

const STATIC_FILES = ["index.html", "style.css"];
const PGLITE_FILES = ["pglite.wasm", "pglite.data", "initdb.wasm"];

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

export interface PlaygroundBuild {
  readonly dir: string;
  /** Gzipped bytes the page loads before any SQL runs (HTML, CSS, script chunks). */
  readonly initialGzipBytes: number;
  /** Gzipped bytes of the chunks loaded on the first `run-sql` (PGlite's script, not its files). */
  readonly lazyGzipBytes: number;
}

/** Builds the site into `dir` (emptied first). */
export async function buildPlayground(dir: string = DEFAULT_SITE_DIR): Promise<PlaygroundBuild> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error(
      "building the playground needs esbuild (a dev dependency): run `npm install` in a checkout",
    );
  }
  await rm(dir, { recursive: true, force: true });
  const assets = join(dir, "assets");
  await mkdir(assets, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [join(PACKAGE_ROOT, "playground", "src", "main.ts")],
    outdir: assets,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    legalComments: "none",
    plugins: [nodeBuiltinsGuard],
    logLevel: "silent",
  });
  for (const file of STATIC_FILES) {
    await copyFile(join(PACKAGE_ROOT, "playground", "static", file), join(dir, file));
  }
  const require = createRequire(import.meta.url);
  const pgliteDist = dirname(require.resolve("@electric-sql/pglite"));
  for (const file of PGLITE_FILES) await copyFile(join(pgliteDist, file), join(assets, file));

  // The chunks the page loads at once: main.js and what it imports statically.
  const outputs = result.metafile.outputs;
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path)) return;
    initial.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement") visit(imported.path);
    }
  };
  const main = Object.keys(outputs).find((path) =>
    outputs[path]?.entryPoint?.endsWith("playground/src/main.ts"),
  );
  if (main) visit(main);
  const gzipped = async (path: string) => gzipSync(await readFile(path)).length;
  let initialGzipBytes = 0;
  let lazyGzipBytes = 0;
  for (const path of Object.keys(outputs)) {
    if (!path.endsWith(".js")) continue;
    const bytes = await gzipped(join(process.cwd(), path));
    if (initial.has(path)) initialGzipBytes += bytes;
    else lazyGzipBytes += bytes;
  }
  for (const file of STATIC_FILES) initialGzipBytes += await gzipped(join(dir, file));
  return { dir, initialGzipBytes, lazyGzipBytes };
}

const invoked = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invoked) {
  const target = process.argv[2] ?? DEFAULT_SITE_DIR;
  const built = await buildPlayground(target);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  process.stdout.write(
    `playground written to ${relative(process.cwd(), built.dir) || "."}: ` +
      `${kb(built.initialGzipBytes)} gzipped at load, ${kb(built.lazyGzipBytes)} gzipped on the first SQL run (plus PGlite's WebAssembly)\n`,
  );
}
