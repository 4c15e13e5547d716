/**
 * Once before the test files run (vitest.config.ts `globalSetup`): makes the embedded store's
 * cached empty image when there is none, so that the workers' first PGlite starts load it
 * instead of each running `initdb` at the same time (test/support/pglite.ts). The modules are
 * loaded through tsx, not vitest's runner: `import.meta.resolve`, which finds the image's
 * name, is missing there outside the workers.
 *
 * It also decides once whether the MariaDB tests run (test/support/mariadb.ts), and says once
 * that the tests on the PostgreSQL server are skipped when DATABASE_URL is not set: these
 * notices are printed here, once for the run, not once per worker or file.
 */
import mysql from "mysql2";
import { tsImport } from "tsx/esm/api";
import { MARIADB, MARIADB_REQUIRED } from "./mariadb.js";

type Setup = typeof import("../../src/store/pglite-setup.js");
type Executor = typeof import("../../src/store/pglite-executor.js");

export default async function setup(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.warn(
      "notice: DATABASE_URL is not set; the tests on the PostgreSQL server are skipped (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test runs them)",
    );
  }
  await checkMariadb();
  await makePgliteImage();
}

/**
 * Without MARIADB_URL: one notice, or a failed run under POLAR_SQL_REQUIRE_MARIADB=1. With it:
 * the server must answer, or the run fails here with one message instead of each test's.
 */
async function checkMariadb(): Promise<void> {
  if (!MARIADB) {
    if (MARIADB_REQUIRED) {
      throw failure(
        "POLAR_SQL_REQUIRE_MARIADB=1 but MARIADB_URL is not set (e.g. mysql://root@127.0.0.1:3306/test)",
      );
    }
    console.warn(
      "notice: MARIADB_URL is not set; the MariaDB tests are skipped (MARIADB_URL=mysql://root@127.0.0.1:3306/test runs them)",
    );
    return;
  }
  const { host, port } = MARIADB;
  const answer = await new Promise<string | undefined>((resolve) => {
    // mysql2's callback API: its promise API captures the caller's stack, which the runner
    // cannot map here (below).
    const connection = mysql.createConnection({ ...MARIADB, connectTimeout: 5_000 });
    connection.once("error", (error) => resolve(error.message || String(error)));
    connection.connect((error) => {
      if (error) resolve(error.message || String(error));
      else connection.end(() => resolve(undefined));
    });
  });
  if (answer !== undefined) {
    throw failure(`MARIADB_URL names ${host}:${port}; connecting to it failed: ${answer}`);
  }
}

/**
 * An error without stack frames: with `experimental.fsModuleCache` (vitest.config.ts), mapping
 * a frame of this file to its source throws inside the runner (`code.charCodeAt is not a
 * function`) and the message is lost; the message alone says what is wrong.
 */
function failure(message: string): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const error = new Error(message);
    void error.stack;
    return error;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

async function makePgliteImage(): Promise<void> {
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
