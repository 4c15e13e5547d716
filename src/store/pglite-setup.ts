/**
 * How the embedded store starts PGlite small and fast (bench/RESULTS.md, issue 14):
 *
 * - Settings for a database that lives in this process: PGlite's defaults size the shared
 *   buffers (128 MB) and WAL (up to 1 GB before a checkpoint) for a server, and in memory the
 *   data files are already RAM, so big buffers hold every page twice.
 * - A new database, in memory or in a data directory that holds none yet, starts from an empty
 *   data directory made by `initdb` once and kept in the user's cache directory: `initdb` runs
 *   a second PGlite instance, which costs seconds and hundreds of MB that the process keeps. The
 *   image holds no data of ours (the schema and its secret are made by the migrations of each
 *   store).
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";

/** `postgresql.conf` lines for the embedded database. */
export const EMBEDDED_SETTINGS: readonly string[] = [
  "shared_buffers = 16MB",
  "temp_buffers = 4MB",
  "wal_buffers = 1MB",
  "max_wal_size = 64MB",
  "min_wal_size = 32MB",
  "maintenance_work_mem = 16MB",
];

/** The PGlite package's version: an image made by another version is not used. */
async function pgliteVersion(): Promise<string> {
  // The package exports no `package.json`; it sits above `dist/index.js`.
  const url = new URL("../package.json", import.meta.resolve("@electric-sql/pglite"));
  const text = await readFile(url, "utf8").catch(() => "{}");
  return (JSON.parse(text) as { version?: string }).version ?? "unknown";
}

/** Where the empty data directory image is kept: `$XDG_CACHE_HOME/polar-sql` or `~/.cache`. */
export async function emptyImagePath(): Promise<string> {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "polar-sql", `pglite-${await pgliteVersion()}-empty.tar`);
}

/** The cached empty data directory, or null when there is none (or it cannot be read). */
export async function cachedEmptyImage(path?: string): Promise<Blob | null> {
  try {
    return new Blob([await readFile(path ?? (await emptyImagePath()))]);
  } catch {
    return null;
  }
}

/**
 * Keeps the data directory of a database that `initdb` just made (nothing else written yet)
 * for the next start. Best effort: a cache that cannot be written is skipped.
 */
export async function keepEmptyImage(db: PGlite, at?: string): Promise<void> {
  try {
    const path = at ?? (await emptyImagePath());
    const image = await db.dumpDataDir("none");
    await mkdir(join(path, ".."), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await image.arrayBuffer()));
    await rename(partial, path);
  } catch {
    // Only the next start's speed depends on it.
  }
}
