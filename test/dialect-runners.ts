/**
 * One engine per registered dialect (src/dialects/registry.ts), for the suites that enumerate
 * the registry (test/dialect-questions.test.ts): PostgreSQL on PGlite, MySQL on the MariaDB
 * server MARIADB_URL names (a database of the file's own, created and dropped), SQLite on
 * better-sqlite3 in memory. `RUNNERS` is typed by `DialectName`: a dialect added to the
 * registry without a runner here does not compile. A runner whose engine this run does not
 * have answers null, and its suites are registered as skipped (the notice is
 * test/support/mariadb.ts's).
 */
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import type { DialectName } from "../src/dialects/registry.js";
import { MARIADB } from "./support/mariadb.js";
import { openTestPglite } from "./support/pglite.js";

export interface EngineRunner {
  /** What runs the dialect's SQL in this suite: `PGlite`, `MariaDB`, `SQLite`. */
  readonly engine: string;
  /** Runs statements separated by `;` at line ends (DDL, inserts of constants). */
  exec(sql: string): Promise<void>;
  /** The rows of one statement with its parameters. */
  query(sql: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]>;
}

type Opener = () => Promise<EngineRunner>;

const closers: (() => Promise<void>)[] = [];

/**
 * Closes every engine opened so far: each file that opens engines calls it in its own
 * `afterAll` (files share this module in a test process, so a hook registered here at load
 * would run after the first file only).
 */
export async function closeEngines(): Promise<void> {
  for (const close of closers.splice(0)) await close();
}

const pglite: Opener = async () => {
  const db = await openTestPglite();
  closers.push(() => db.close());
  return {
    engine: "PGlite",
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async (sql, parameters) => (await db.query(sql, [...parameters])).rows as never,
  };
};

const mariadb: Opener = async () => {
  const name = `polar_q_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const connection = await mysql.createConnection({
    ...MARIADB!,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: "utf8mb4_general_ci",
  });
  await connection.query(
    `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci; USE ${name}`,
  );
  closers.push(async () => {
    await connection.query(`DROP DATABASE IF EXISTS ${name}`);
    await connection.end();
  });
  return {
    engine: "MariaDB",
    exec: async (sql) => {
      await connection.query(sql);
    },
    query: async (sql, parameters) => {
      const [rows] = await connection.query(sql, [...parameters]);
      return rows as never;
    },
  };
};

const sqlite: Opener = async () => {
  const db = new Database(":memory:");
  closers.push(async () => {
    db.close();
  });
  return {
    engine: "SQLite",
    exec: async (sql) => {
      db.exec(sql);
    },
    // 64-bit integers as bigints, not rounded to doubles.
    query: async (sql, parameters) =>
      db
        .prepare(sql)
        .safeIntegers(true)
        .all(...parameters) as never,
  };
};

/** Each dialect's engine opener, or null when this run has no such engine. */
export const RUNNERS: { readonly [Name in DialectName]: Opener | null } = {
  postgres: pglite,
  mysql: MARIADB ? mariadb : null,
  sqlite,
};
