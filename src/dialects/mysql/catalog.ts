/**
 * The MySQL/MariaDB dialect of `DatabaseSession` (see `src/database/types.ts`): the catalog
 * from `information_schema`, a query's columns from the field metadata of
 * `SELECT * FROM (query) AS polar_describe LIMIT 0` (the server plans the query but returns no
 * row; a column read straight from a table gets its declared type from the catalog),
 * uniqueness from primary keys and unique indexes, and a `GROUP BY … HAVING count(*) > 1`
 * count where none says so. Every operation runs in its own `START TRANSACTION READ ONLY …
 * ROLLBACK` with a statement timeout, over one connection.
 */
import type { CompiledQuery } from "kysely";
import type mysql from "mysql2/promise";
import type {
  Catalog,
  CatalogForeignKey,
  CatalogTable,
  ColumnFamily,
  DatabaseSession,
  Described,
  DescribedColumn,
} from "../../database/types.js";
import {
  mysqlColumns,
  mysqlColumnTypes,
  mysqlDuplicateCount,
  mysqlForeignKeys,
  mysqlSessionSetting,
  mysqlTables,
  mysqlUniqueIndexes,
} from "./catalog-queries.js";

/**
 * What a session reads of a result column's protocol metadata (mysql2's `FieldPacket` has these
 * and more). Declared here so that the package's types do not need mysql2, an optional peer.
 */
interface MysqlField {
  readonly name: string;
  readonly db?: string | undefined;
  readonly orgTable?: string | undefined;
  readonly orgName?: string | undefined;
  readonly type?: number | undefined;
  readonly columnType?: number | undefined;
  readonly columnLength?: number | undefined;
  readonly characterSet?: number | undefined;
  readonly flags?: number | readonly string[] | undefined;
  readonly extendedTypeName?: string | undefined;
}

/** Runs one statement with `?` parameters over one connection. */
export type MysqlRunner = (
  text: string,
  params: readonly unknown[],
) => Promise<{
  readonly rows: readonly Record<string, unknown>[];
  readonly fields: readonly MysqlField[];
}>;

/** Prepares a statement (never runs it) and returns its result columns. */
export type MysqlPreparer = (text: string) => Promise<readonly MysqlField[]>;

export interface MysqlSessionOptions {
  /**
   * Describes a query whose result has two columns of one name, which a derived table cannot
   * hold (`SELECT t.id, u.id …`). Without it, such a query is reported as the database's error.
   */
  readonly prepare?: MysqlPreparer;
  /** Called by `close()`. */
  readonly close?: () => Promise<void>;
}

// Words MySQL 8 and MariaDB reserve that a table or column is plausibly named.
const RESERVED = new Set(
  (
    "accessible add all alter analyze and as asc before between bigint binary blob both by call " +
    "cascade case change char character check collate column condition constraint continue " +
    "convert create cross cube cume_dist current_date current_role current_time " +
    "current_timestamp current_user cursor database databases day_hour day_microsecond " +
    "day_minute day_second dec decimal declare default delayed delete dense_rank desc describe " +
    "deterministic distinct distinctrow div double drop dual each else elseif empty enclosed " +
    "escaped except exists exit explain false fetch first_value float for force foreign from " +
    "fulltext function generated get grant group grouping groups having high_priority " +
    "hour_microsecond hour_minute hour_second if ignore in index infile inner inout insensitive " +
    "insert int integer intersect interval into is iterate join json_table key keys kill lag " +
    "last_value lateral lead leading leave left like limit linear lines load localtime " +
    "localtimestamp lock long loop low_priority match maxvalue mediumint minute_microsecond " +
    "minute_second mod modifies natural not no_write_to_binlog nth_value ntile null numeric of " +
    "offset on optimize option optionally or order out outer outfile over partition " +
    "percent_rank precision primary procedure purge range rank read reads real recursive " +
    "references regexp release rename repeat replace require resignal restrict return returning " +
    "revoke right rlike row row_number rows schema schemas select sensitive separator set show " +
    "signal smallint spatial specific sql sqlexception sqlstate sqlwarning ssl starting stored " +
    "straight_join system table terminated then tinyint to trailing trigger true undo union " +
    "unique unlock unsigned update usage use using utc_date utc_time utc_timestamp values " +
    "varbinary varchar varying virtual when where while window with write xor year_month " +
    "zerofill"
  ).split(" "),
);

/** A MySQL identifier, in backticks unless it is a plain lower-case name. */
export function mysqlIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name)
    ? name
    : `\`${name.replaceAll("`", "``")}\``;
}

const INTEGER = new Set(["tinyint", "smallint", "mediumint", "int", "integer", "bigint", "serial"]);
const TEXT = new Set([
  "char",
  "character",
  "varchar",
  "character varying",
  "national char",
  "nchar",
  "nvarchar",
  "tinytext",
  "text",
  "mediumtext",
  "longtext",
  "string",
]);

/**
 * The family of a MySQL type name. `tinyint(1)`, `boolean` and `bool` are booleans (MySQL has
 * no other boolean type); `char(36)` holding UUIDs is text, as it compares with strings.
 *
 *   mysqlFamily("int(11) unsigned") // "integer"
 *   mysqlFamily("tinyint(1)")       // "boolean"
 */
export function mysqlFamily(type: string): ColumnFamily {
  const normalized = type.trim().toLowerCase().replace(/\s+/g, " ");
  if (/^(?:bool|boolean|tinyint ?\( ?1 ?\)(?: signed)?)$/.test(normalized)) return "boolean";
  const base = normalized
    .replace(/\s*\(.*?\)/, "")
    .replace(/(?: (?:un)?signed| zerofill)+$/, "")
    .replace(/ (?:character set|charset|collate) .*$/, "");
  if (INTEGER.has(base)) return "integer";
  if (base === "decimal" || base === "numeric" || base === "dec" || base === "fixed") {
    return "decimal";
  }
  if (TEXT.has(base)) return "text";
  if (base === "uuid") return "uuid";
  return "other";
}

/** The type of a result column from its protocol metadata (`mysql2/lib/constants/types.js`). */
function fieldType(field: MysqlField): string {
  if (field.extendedTypeName) return field.extendedTypeName;
  const flags = typeof field.flags === "number" ? field.flags : 0;
  const unsigned = flags & 32 ? " unsigned" : "";
  const binary = field.characterSet === 63;
  switch (field.columnType ?? field.type) {
    case 1:
      return field.columnLength === 1 ? "tinyint(1)" : `tinyint${unsigned}`;
    case 2:
      return `smallint${unsigned}`;
    case 9:
      return `mediumint${unsigned}`;
    case 3:
      return `int${unsigned}`;
    case 8:
      return `bigint${unsigned}`;
    case 0:
    case 246:
      return "decimal";
    case 4:
      return "float";
    case 5:
      return "double";
    case 6:
      return "null";
    case 7:
      return "timestamp";
    case 10:
    case 14:
      return "date";
    case 11:
      return "time";
    case 12:
      return "datetime";
    case 13:
      return "year";
    case 16:
      return "bit";
    case 245:
      return "json";
    case 247:
      return "enum";
    case 248:
      return "set";
    case 249:
    case 250:
    case 251:
    case 252:
      return binary ? "blob" : "text";
    case 15:
    case 253:
      return binary ? "varbinary" : "varchar";
    case 254:
      return binary ? "binary" : "char";
    case 255:
      return "geometry";
    default:
      return `type ${field.columnType ?? field.type}`;
  }
}

const DESCRIBE_PREFIX = "SELECT * FROM (\n";
const DESCRIBE_SUFFIX = "\n) AS polar_describe LIMIT 0";
/** "Duplicate column name": a derived table's columns must have distinct names. */
const ER_DUP_FIELDNAME = 1060;

/**
 * Where in `query` the database's error points, when its message names a place: the text
 * after `near '…'` of a syntax error, or the one occurrence of the table or column it names.
 */
function errorOffset(query: string, message: string): number | null {
  const wrapped = `${DESCRIBE_PREFIX}${query}${DESCRIBE_SUFFIX}`;
  const near = /near '([\s\S]*)' at line \d+$/.exec(message)?.[1];
  if (near !== undefined && near !== "") {
    const at = onlyIndex(wrapped, near) - DESCRIBE_PREFIX.length;
    return at >= 0 && at <= query.length ? at : null;
  }
  const named =
    /^Table '(?:[^']*\.)?([^'.]+)' doesn't exist/.exec(message)?.[1] ??
    /^Unknown column '(?:[^']*\.)?([^'.]+)' in/.exec(message)?.[1];
  if (named === undefined) return null;
  const words = [...query.matchAll(/[`"]?([A-Za-z0-9_$]+)[`"]?/g)].filter(
    (match) => match[1]!.toLowerCase() === named.toLowerCase(),
  );
  return words.length === 1 ? words[0]!.index! : null;
}

/** The index of the one occurrence of `part` in `text`, else -1. */
function onlyIndex(text: string, part: string): number {
  const first = text.indexOf(part);
  return first !== -1 && text.indexOf(part, first + 1) === -1 ? first : -1;
}

interface TableRow {
  readonly schema: string;
  readonly name: string;
  readonly kind: string;
}

type CatalogRows = readonly Record<string, unknown>[];

/**
 * One table's catalog entry from the rows of `mysqlColumns`, `mysqlUniqueIndexes` and
 * `mysqlForeignKeys` for all the tables read together.
 */
function catalogTable(
  row: TableRow,
  columns: CatalogRows,
  indexes: CatalogRows,
  references: CatalogRows,
): CatalogTable {
  const mine = (list: CatalogRows) => list.filter((r) => r.tbl === row.name);
  const keys = new Map<string, (string | null)[]>();
  for (const index of mine(indexes)) {
    const key = keys.get(index.idx as string) ?? [];
    key.push((index.name as string | null) ?? null);
    keys.set(index.idx as string, key);
  }
  const complete = (key: readonly (string | null)[]): key is string[] =>
    key.every((name) => name !== null);
  const primary = keys.get("PRIMARY");
  const foreignKeys = new Map<string, CatalogForeignKey>();
  for (const ref of mine(references)) {
    const found = foreignKeys.get(ref.con as string) ?? {
      columns: [],
      references: { schema: ref.ref_schema as string, name: ref.ref_name as string },
      referencedColumns: [],
    };
    (found.columns as string[]).push(ref.name as string);
    (found.referencedColumns as string[]).push(ref.ref_column as string);
    foreignKeys.set(ref.con as string, found);
  }
  return {
    schema: row.schema,
    name: row.name,
    kind: row.kind === "VIEW" || row.kind === "SYSTEM VIEW" ? "view" : "table",
    columns: mine(columns).map((c) => ({
      name: c.name as string,
      type: c.type as string,
      nullable: c.nullable === "YES",
    })),
    primaryKey: primary && complete(primary) ? primary : null,
    uniqueKeys: [...keys]
      .filter(([name]) => name !== "PRIMARY")
      .map(([, key]) => key)
      .filter(complete),
    foreignKeys: [...foreignKeys.values()],
  };
}

/** A session over one MySQL or MariaDB connection (a pool does not do). */
export function mysqlSession(run: MysqlRunner, options: MysqlSessionOptions = {}): DatabaseSession {
  /** Runs a statement of ./catalog-queries.ts. */
  const runQuery = (statement: CompiledQuery) => run(statement.sql, statement.parameters);

  async function readOnly<T>(work: () => Promise<T>): Promise<T> {
    await run("START TRANSACTION READ ONLY", []);
    try {
      return await work();
    } finally {
      await run("ROLLBACK", []);
    }
  }

  async function currentSchema(): Promise<string> {
    const schema = (await run("SELECT DATABASE() AS s", [])).rows[0]?.s;
    if (typeof schema !== "string") {
      throw new Error("the connection has no current database; name one in the URL");
    }
    return schema;
  }

  async function tablesOf(schema: string, rows: readonly TableRow[]): Promise<CatalogTable[]> {
    if (rows.length === 0) return [];
    const names = rows.map((row) => row.name);
    const columns = await runQuery(mysqlColumns(schema, names));
    // Unique indexes, primary keys included; an index on an expression has a NULL column.
    const indexes = await runQuery(mysqlUniqueIndexes(schema, names));
    const references = await runQuery(mysqlForeignKeys(schema, names));
    return rows.map((row) => catalogTable(row, columns.rows, indexes.rows, references.rows));
  }

  /** Declared types of result columns read straight from a table or view. */
  async function declaredTypes(fields: readonly MysqlField[]): Promise<Map<string, string>> {
    const direct = fields.filter((f) => f.db && f.orgTable && f.orgName);
    if (direct.length === 0) return new Map();
    const found = await runQuery(
      mysqlColumnTypes(
        direct.map((f) => ({ schema: f.db!, table: f.orgTable!, column: f.orgName! })),
      ),
    );
    return new Map(found.rows.map((r) => [JSON.stringify([r.s, r.t, r.c]), r.type as string]));
  }

  async function columnsOf(fields: readonly MysqlField[]): Promise<DescribedColumn[]> {
    const declared = await declaredTypes(fields);
    return fields.map((field) => ({
      name: field.name,
      type:
        declared.get(JSON.stringify([field.db, field.orgTable, field.orgName])) ?? fieldType(field),
    }));
  }

  return {
    dialect: "mysql",

    describe(query) {
      return readOnly(async (): Promise<Described> => {
        let fields: readonly MysqlField[];
        try {
          fields = (await run(`${DESCRIBE_PREFIX}${query}${DESCRIBE_SUFFIX}`, [])).fields;
        } catch (cause) {
          const error = cause as { message?: string; sqlMessage?: string; errno?: number };
          if (error.errno === ER_DUP_FIELDNAME && options.prepare) {
            try {
              fields = await options.prepare(query);
              return { kind: "columns", columns: await columnsOf(fields) };
            } catch {
              // The wrapped query's error is the one to report.
            }
          }
          const message = String(error.sqlMessage ?? error.message ?? cause);
          return { kind: "error", message, offset: errorOffset(query, message) };
        }
        return { kind: "columns", columns: await columnsOf(fields) };
      });
    },

    catalog(schema) {
      return readOnly(async (): Promise<Catalog> => {
        const name = schema ?? (await currentSchema());
        const rows = (await runQuery(mysqlTables(name))).rows as unknown as TableRow[];
        // By code point, as on the other engines (ORDER BY would follow the collation).
        const sorted = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        return { dialect: "mysql", schema: name, tables: await tablesOf(name, sorted) };
      });
    },

    table(name) {
      return readOnly(async () => {
        if (name.length < 1 || name.length > 2) return null;
        const schema = name.length === 2 ? name[0]! : await currentSchema();
        const wanted = name[name.length - 1]!;
        // The bindings reader folds unquoted names to lower case; where the server compares
        // table names exactly (lower_case_table_names=0), take the one table of that name in
        // any case.
        const rows = (await runQuery(mysqlTables(schema))).rows as unknown as TableRow[];
        const exact = rows.filter((row) => row.name === wanted);
        const folded = rows.filter((row) => row.name.toLowerCase() === wanted.toLowerCase());
        const matches = exact.length > 0 ? exact : folded;
        if (matches.length !== 1) return null;
        const [table] = await tablesOf(schema, matches);
        return table ?? null;
      });
    },

    duplicateKeys(table, columns) {
      return readOnly(async () => {
        const result = await runQuery(mysqlDuplicateCount(table, columns));
        return Number(result.rows[0]?.n ?? 0);
      });
    },

    family: mysqlFamily,
    identifier: mysqlIdentifier,
    close: options.close ?? (async () => {}),
  };
}

/**
 * Connects to `url` (`mysql://user:password@host:3306/database`; `mariadb://` is read the same)
 * and returns a session that closes the connection. Each statement may run
 * `statementTimeout` milliseconds (MariaDB's `max_statement_time`; MySQL's
 * `max_execution_time`, which bounds SELECTs).
 */
export async function openMysql(
  url: string,
  options: { readonly statementTimeout?: number } = {},
): Promise<DatabaseSession> {
  const parsed = new URL(url);
  if (parsed.protocol !== "mysql:" && parsed.protocol !== "mariadb:") {
    throw new Error(`a MySQL URL starts with \`mysql://\`, not \`${parsed.protocol}//\``);
  }
  parsed.protocol = "mysql:";
  const driver = await loadMysql2();
  const connection = await driver.createConnection({
    uri: parsed.toString(),
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  // An idle connection that breaks must not crash the process.
  connection.on("error", () => {});
  const timeout = Math.max(1, Math.floor(options.statementTimeout ?? 30_000));
  const set = async (statement: CompiledQuery) =>
    connection.query(statement.sql, [...statement.parameters]);
  try {
    await set(mysqlSessionSetting("max_statement_time", timeout / 1000));
  } catch {
    await set(mysqlSessionSetting("max_execution_time", timeout));
  }
  await connection.query("SET SESSION innodb_lock_wait_timeout = 5");
  return mysqlSession(
    async (text, params) => {
      // Without parameters the text goes as written: mysql2 would otherwise fill in `?`s.
      const [rows, fields] =
        params.length === 0
          ? await connection.query(text)
          : await connection.query(text, [...params]);
      return {
        rows: Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [],
        fields: fields ?? [],
      };
    },
    {
      async prepare(text) {
        const prepared = await connection.prepare(text);
        try {
          // mysql2 keeps the prepared statement's column definitions here (untyped).
          const { statement } = prepared as unknown as {
            statement: { columns?: MysqlField[] };
          };
          return statement.columns ?? [];
        } finally {
          await prepared.close();
        }
      },
      close: () => connection.end(),
    },
  );
}

/**
 * mysql2, loaded when a MySQL session is opened: it is an optional peer dependency, needed
 * only by applications on MySQL or MariaDB.
 */
async function loadMysql2(): Promise<typeof mysql> {
  try {
    const module = await import("mysql2/promise");
    return (module as { default?: typeof mysql }).default ?? module;
  } catch (cause) {
    throw new Error("the mysql dialect needs the `mysql2` package: npm install mysql2", { cause });
  }
}
