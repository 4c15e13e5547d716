/**
 * Builds the command line program, the service's worker thread and the store thread as ES modules
 * (esbuild, a dev dependency): `bin/polar-sql.js` runs the bundle. Loaded as the ~200 files
 * of dist/ and their dependencies' (chevrotain alone imports hundreds of lodash-es modules),
 * the service spends over a second resolving and reading modules before its first answer, and
 * each worker thread as long again; one file each loads in about a tenth of that
 * (bench/RESULTS.md, "Embedded store footprint"). The library (dist/index.js) is not bundled.
 *
 *   npm run build:bundle                 # writes dist/bundle
 *   tsx src/cli/bundle-build.ts out      # writes out/
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DIALECT_NAMES, DIALECTS } from "../dialects/registry.js";
import { PACKAGE_ROOT } from "./playground-build.js";

/**
 * Where the bundles go. It must sit two levels below the package root, as src/cli and
 * dist/cli do: the bundled code finds package.json and dist/playground from its own URL,
 * and the worker pool loads `./worker.js` beside it (src/workers/pool.ts).
 */
const DEFAULT_BUNDLE_DIR = join(PACKAGE_ROOT, "dist", "bundle");

/**
 * Packages left out of the bundle: the dialects' drivers (native or optional ones, loaded when
 * used), and PGlite, which finds its WebAssembly files beside its own module.
 */
const EXTERNAL = [
  ...DIALECT_NAMES.flatMap((name) => DIALECTS[name].catalog.driverPackages),
  "@electric-sql/pglite",
  "esbuild",
];

/** Writes the bundles into `dir`; returns their paths. */
export async function buildBundle(dir: string = DEFAULT_BUNDLE_DIR): Promise<string[]> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: PACKAGE_ROOT,
    entryPoints: {
      "polar-sql": "src/cli/main.ts",
      worker: "src/workers/worker.ts",
      "store-thread": "src/store/store-thread.ts",
    },
    outdir: dir,
    outExtension: { ".js": ".js" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    external: EXTERNAL,
    // CommonJS dependencies bundled into an ES module still call `require` for Node's modules.
    banner: {
      js: 'import { createRequire as polarSqlRequire } from "node:module"; const require = polarSqlRequire(import.meta.url);',
    },
    legalComments: "linked",
    logLevel: "warning",
    metafile: true,
  });
  return Object.keys(result.metafile.outputs).filter((path) => path.endsWith(".js"));
}

const invoked = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (invoked) {
  const written = await buildBundle(process.argv[2] ?? DEFAULT_BUNDLE_DIR);
  const names = written.map((path) => relative(process.cwd(), path) || path);
  process.stdout.write(`bundled: ${names.join(", ")}\n`);
}
