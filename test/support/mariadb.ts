/**
 * The MariaDB server the mysql dialect's tests run on, named by MARIADB_URL
 * (`mysql://root@127.0.0.1:3306/test`; `mariadb://` too). Without it those tests are skipped,
 * with one notice for the run (test/support/global-setup.ts); POLAR_SQL_REQUIRE_MARIADB=1
 * (`.ci/run`) makes a missing variable fail the run instead. A server the variable names that
 * does not answer fails the run either way, as DATABASE_URL's does. The tests create and drop
 * databases of their own on the server; the URL's database is not used.
 *
 * No vitest import: the global setup loads this module outside the workers.
 */

export interface MariadbServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
}

/** True under POLAR_SQL_REQUIRE_MARIADB=1: the MariaDB tests must run. */
export const MARIADB_REQUIRED = process.env.POLAR_SQL_REQUIRE_MARIADB === "1";

/**
 * The server of a `mysql://` or `mariadb://` URL, or undefined for no URL.
 *
 * @example
 * mariadbServer("mysql://root@127.0.0.1:3306/test"); // { host: "127.0.0.1", port: 3306, user: "root" }
 */
export function mariadbServer(url: string | undefined): MariadbServer | undefined {
  if (!url) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== "mysql:" && parsed.protocol !== "mariadb:") {
    throw new Error(`MARIADB_URL must start with mysql:// or mariadb://, not ${parsed.protocol}//`);
  }
  const password = decodeURIComponent(parsed.password);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username) || "root",
    ...(password ? { password } : {}),
  };
}

/** This run's server (MARIADB_URL), or undefined when the MariaDB tests are skipped. */
export const MARIADB = mariadbServer(process.env.MARIADB_URL);

/** A `mysql://` URL of a database on the server, for sessions opened from a URL. */
export function mariadbUrl(server: MariadbServer, database: string): string {
  const password = server.password ? `:${encodeURIComponent(server.password)}` : "";
  return `mysql://${encodeURIComponent(server.user)}${password}@${server.host}:${server.port}/${database}`;
}
