/**
 * The engines of the non-PostgreSQL dialects, for tests: MariaDB through mysql2 (a database of
 * each test file's own on the server MARIADB_URL names, created and dropped; without the
 * variable the MariaDB suites are registered as skipped, test/support/mariadb.ts; the server's default collation
 * `utf8mb4_general_ci`, as applications have it) and SQLite through better-sqlite3 (a temp
 * file). Values are written into tables without the renderer under test: text as hex-encoded
 * UTF-8.
 *
 *   describeDialects("$name", (engine) => { it(..., async () => (await engine.db()).query(...)) })
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import { afterAll, describe } from "vitest";
import type { DialectName } from "../../src/dialects/registry.js";
import { MARIADB, type MariadbServer } from "./mariadb.js";

export interface DialectDatabase {
  /** Rows of one statement. */
  query<Row = Record<string, unknown>>(sql: string): Promise<Row[]>;
  /** Runs several statements separated by `;` at line ends (DDL, inserts). */
  exec(sql: string): Promise<void>;
  /** Inserts one row through the driver's parameters. */
  insert(table: string, row: readonly string[]): Promise<void>;
}

export interface DialectEngine {
  readonly name: "mariadb" | "sqlite";
  readonly dialect: DialectName;
  db(): Promise<DialectDatabase>;
  /** The column type for values of a Polar type (`sqlType`: the family's `sql_types` entry). */
  columnType(type: string, sqlType: string | undefined): string;
  /** A literal for a value in a column of `columnType`, not written by src/print. */
  literal(columnType: string, id: string): string;
  /** Empties a table. */
  truncate(table: string): string;
}

function hex(text: string): string {
  return Buffer.from(text, "utf8").toString("hex");
}

function isIntegerType(type: string): boolean {
  return /^(?:big|small|tiny|medium)?int(?:eger)?$/.test(type);
}

function mariadbEngine(server: MariadbServer): DialectEngine {
  const name = `polar_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let opened: Promise<mysql.Connection> | undefined;
  afterAll(async () => {
    if (!opened) return;
    const connection = await opened;
    await connection.query(`DROP DATABASE IF EXISTS ${name}`);
    await connection.end();
  });
  return {
    name: "mariadb",
    dialect: "mysql",
    async db() {
      opened ??= (async () => {
        const connection = await mysql.createConnection({
          ...server,
          multipleStatements: true,
          supportBigNumbers: true,
          bigNumberStrings: true,
          charset: "utf8mb4_general_ci",
        });
        await connection.query(
          `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci; USE ${name}; SET SESSION max_statement_time = 20`,
        );
        return connection;
      })();
      const connection = await opened;
      return {
        async query<Row>(sql: string) {
          if (process.env.DEBUG_SQL)
            (await import("node:fs")).writeFileSync(process.env.DEBUG_SQL, sql);
          const [rows] = await connection.query(sql);
          return rows as Row[];
        },
        async exec(sql: string) {
          await connection.query(sql);
        },
        async insert(table, row) {
          const marks = row.map(() => "?").join(", ");
          await connection.query(`INSERT INTO ${table} VALUES (${marks})`, [...row]);
        },
      };
    },
    columnType(type, sqlType) {
      if (type === "String") return "varchar(255)";
      if (type === "Integer") return "bigint";
      if (type === "Boolean") return "boolean";
      if (sqlType === undefined || sqlType === "text") return "varchar(255)";
      if (sqlType === "uuid") return "char(36)";
      return sqlType;
    },
    literal(columnType, id) {
      if (isIntegerType(columnType)) return id;
      if (columnType === "boolean") return id === "true" ? "TRUE" : "FALSE";
      return `CONVERT(X'${hex(id)}' USING utf8mb4)`;
    },
    truncate: (table) => `TRUNCATE TABLE ${table};`,
  };
}

function sqliteEngine(): DialectEngine {
  let opened: { db: Database.Database; dir: string } | undefined;
  afterAll(() => {
    if (!opened) return;
    opened.db.close();
    rmSync(opened.dir, { recursive: true, force: true });
  });
  return {
    name: "sqlite",
    dialect: "sqlite",
    async db() {
      if (!opened) {
        const dir = mkdtempSync(join(tmpdir(), "polar-sqlite-"));
        opened = { db: new Database(join(dir, "test.db")), dir };
      }
      const db = opened.db;
      return {
        async query<Row>(sql: string) {
          return db.prepare(sql).all() as Row[];
        },
        async exec(sql: string) {
          db.exec(sql);
        },
        async insert(table, row) {
          const marks = row.map(() => "?").join(", ");
          db.prepare(`INSERT INTO ${table} VALUES (${marks})`).run(...row);
        },
      };
    },
    columnType(type, sqlType) {
      if (type === "String") return "text";
      if (type === "Integer") return "integer";
      if (type === "Boolean") return "boolean";
      if (sqlType === undefined || sqlType === "uuid") return "text";
      return sqlType;
    },
    literal(columnType, id) {
      if (isIntegerType(columnType)) return id;
      if (columnType === "boolean") return id === "true" ? "1" : "0";
      return `CAST(X'${hex(id)}' AS TEXT)`;
    },
    truncate: (table) => `DELETE FROM ${table};`,
  };
}

/**
 * MariaDB and SQLite, each opened lazily; one suite per engine. Without MARIADB_URL the MariaDB
 * suite is still registered, as skipped: its tests are counted and listed, not silently absent.
 */
export function describeDialects(title: string, body: (engine: DialectEngine) => void): void {
  if (MARIADB) {
    const engine = mariadbEngine(MARIADB);
    describe(title.replaceAll("$name", engine.name), () => body(engine));
  } else {
    describe.skip(title.replaceAll("$name", "mariadb"), () => body(unavailableMariadb()));
  }
  const sqlite = sqliteEngine();
  describe(title.replaceAll("$name", sqlite.name), () => body(sqlite));
}

/** The MariaDB engine of a run without MARIADB_URL: its suites are skipped; opening it is a bug. */
function unavailableMariadb(): DialectEngine {
  const engine = mariadbEngine({ host: "", port: 0, user: "" });
  return {
    ...engine,
    db: () => Promise.reject(new Error("MARIADB_URL is not set; this test should be skipped")),
  };
}
