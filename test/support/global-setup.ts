/**
 * Once before the test files run (vitest.config.ts `globalSetup`): makes the embedded store's
 * cached empty image when there is none, so that the workers' first PGlite starts load it
 * instead of each running `initdb` at the same time (test/support/pglite.ts). The modules are
 * loaded through tsx, not vitest's runner: `import.meta.resolve`, which finds the image's
 * name, is missing there outside the workers.
 */
import { tsImport } from "tsx/esm/api";

type Setup = typeof import("../../src/store/pglite-setup.js");
type Executor = typeof import("../../src/store/pglite-executor.js");

export default async function setup(): Promise<void> {
  const { cachedEmptyImage }: Setup = await tsImport(
    "../../src/store/pglite-setup.ts",
    import.meta.url,
  );
  if (await cachedEmptyImage()) return;
  const { openPglite }: Executor = await tsImport(
    "../../src/store/pglite-executor.ts",
    import.meta.url,
  );
  await (await openPglite()).close();
}
