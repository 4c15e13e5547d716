/**
 * PGlite for tests, started from the store's cached empty data directory
 * (src/store/pglite-setup.ts) instead of running `initdb`: about 0.6 s of CPU a start instead
 * of 3 (bench/RESULTS.md, "Test suite time"). The first start on a machine makes the image.
 *
 *   const db = await openTestPglite();
 */
import { PGlite } from "@electric-sql/pglite";
import { openPglite } from "../../src/store/pglite-executor.js";
import { cachedEmptyImage } from "../../src/store/pglite-setup.js";

/** A new in-memory PGlite with an empty database, from the cached image when there is one. */
export async function openTestPglite(): Promise<PGlite> {
  let image = await cachedEmptyImage();
  if (!image) {
    // The store's start keeps the image; a cache that cannot be written leaves it null.
    await (await openPglite()).close();
    image = await cachedEmptyImage();
  }
  return PGlite.create(image ? { loadDataDir: image } : {});
}
