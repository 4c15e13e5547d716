/** Embedded PostgreSQL (PGlite) as a `SqlExecutor`, in the thread that opens it. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { recurrenceFilter, type SqlExecutor } from "./executor.js";
import { cachedEmptyImage, EMBEDDED_SETTINGS, keepEmptyImage } from "./pglite-setup.js";
import { pgliteStatements } from "./pglite-statements.js";
import { keepLeadingByteOrderMarks } from "./pglite-text.js";

interface PgliteOptions {
  /** A directory for persistent data; omitted means in memory. */
  readonly dataDir?: string;
  /** `postgresql.conf` lines; the embedded settings by default (store/pglite-setup.ts). */
  readonly settings?: readonly string[];
  /**
   * Whether a new database (in memory, or in a data directory that holds none yet) starts from
   * the cached empty image; true by default.
   */
  readonly cachedImage?: boolean;
  /** Where that image is kept; by default `emptyImagePath()` (store/pglite-setup.ts). */
  readonly imagePath?: string;
}

/**
 * Embedded PostgreSQL (WASM) in this thread. Statements are serialized by PGlite itself. The
 * store runs it in a thread of its own (src/store/store-thread.ts), since a statement holds
 * the thread it runs on.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<SqlExecutor> {
  keepLeadingByteOrderMarks();
  const postgresqlconf = [...(options.settings ?? EMBEDDED_SETTINGS)];
  const isNew = !options.dataDir || !existsSync(join(options.dataDir, "PG_VERSION"));
  const useImage = isNew && options.cachedImage !== false;
  const image = useImage ? await cachedEmptyImage(options.imagePath) : null;
  const db = await PGlite.create({
    postgresqlconf,
    ...(options.dataDir && { dataDir: options.dataDir }),
    ...(image && { loadDataDir: image }),
  });
  if (useImage && !image) await keepEmptyImage(db, options.imagePath);
  const recurs = recurrenceFilter();
  const statements = pgliteStatements(db);
  const wrap = (runner: Pick<PGlite, "query">): SqlExecutor => ({
    engine: "postgres",
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await runner.query<Row>(sql, params ? [...params] : undefined)).rows;
    },
    prepared<Row>(sql: string, params: readonly string[]) {
      // Inside a transaction, plainly: the session's statements belong to the outer runner.
      if (runner !== db || !recurs(sql)) return this.query<Row>(sql, params);
      return statements<Row>(sql, params);
    },
    // One process owns an embedded database, and PGlite delivers its own notifications.
    async listen(channel, listener) {
      await db.listen(channel, (payload) => listener.notice(payload));
    },
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  });
  return wrap(db);
}
