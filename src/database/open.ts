/**
 * Opens a database session for a dialect: each dialect's `catalog` connects
 * (src/dialects/dialect.ts); this file names none.
 */
import {
  DEFAULT_DIALECT,
  DIALECT_NAMES,
  DIALECTS,
  type DialectName,
} from "../dialects/registry.js";
import type { DatabaseSession } from "./types.js";

export interface OpenDatabaseOptions {
  /** Default: the one the URL's scheme names (`dialectOfUrl`). */
  readonly dialect?: DialectName;
  /** Milliseconds any one statement may run; default 30 000 (where the engine has timeouts). */
  readonly statementTimeout?: number;
}

/**
 * The dialect whose `catalog.urls` match `url` (`sqlite:app.db` is `sqlite`); the default
 * dialect for a URL none claims.
 */
export function dialectOfUrl(url: string): DialectName {
  return DIALECT_NAMES.find((name) => DIALECTS[name].catalog.urls.test(url)) ?? DEFAULT_DIALECT;
}

/**
 * Connects to the database at `url`; close the session when done. URLs: each dialect's
 * `catalog.urlExample` (docs/bindings.md).
 *
 *   const session = await openDatabase("postgres://app@db/app");
 *   try { console.log((await session.catalog()).tables.map((t) => t.name)); }
 *   finally { await session.close(); }
 */
export function openDatabase(
  url: string,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseSession> {
  const dialect = options.dialect ?? dialectOfUrl(url);
  const timeout =
    options.statementTimeout === undefined ? {} : { statementTimeout: options.statementTimeout };
  return DIALECTS[dialect].catalog.open(url, timeout);
}
