/**
 * Opens a database session for a dialect. A new dialect is one file implementing
 * `DatabaseSession` plus one case here (and its name in `DIALECTS`).
 */
import { openMysql } from "./mysql.js";
import { openPostgres } from "./postgres.js";
import { openSqlite } from "./sqlite.js";
import { type DatabaseSession, DIALECTS, type DialectName } from "./types.js";

export interface OpenDatabaseOptions {
  /** Default: the one the URL's scheme names (`dialectOfUrl`). */
  readonly dialect?: DialectName;
  /** Milliseconds any one statement may run; default 30 000 (not on SQLite). */
  readonly statementTimeout?: number;
}

/**
 * The dialect a URL's scheme names: `mysql://` and `mariadb://` are `mysql`, `sqlite:` is
 * `sqlite`, anything else `postgres`.
 */
export function dialectOfUrl(url: string): DialectName {
  if (/^(?:mysql|mariadb):\/\//i.test(url)) return "mysql";
  if (/^sqlite:/i.test(url)) return "sqlite";
  return "postgres";
}

/** True when `name` is a dialect this build can open. */
export function isDialectName(name: string): name is DialectName {
  return (DIALECTS as readonly string[]).includes(name);
}

/**
 * Connects to the database at `url`; close the session when done. URLs: `postgres://…`,
 * `mysql://user@host:3306/database` (MySQL, MariaDB), `sqlite:<path>` (docs/bindings.md).
 *
 *   const session = await openDatabase("postgres://app@db/app");
 *   try { console.log((await session.catalog()).tables.map((t) => t.name)); }
 *   finally { await session.close(); }
 */
export async function openDatabase(
  url: string,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseSession> {
  const dialect = options.dialect ?? dialectOfUrl(url);
  const timeout =
    options.statementTimeout === undefined ? {} : { statementTimeout: options.statementTimeout };
  switch (dialect) {
    case "postgres":
      return openPostgres(url, timeout);
    case "mysql":
      return openMysql(url, timeout);
    case "sqlite":
      return openSqlite(url);
    default: {
      const _never: never = dialect;
      return _never;
    }
  }
}
