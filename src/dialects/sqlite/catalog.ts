/**
 * The SQLite dialect of `DatabaseSession` (see `src/database/types.ts`): the catalog from
 * `sqlite_master` and the `table_info`, `index_list`, `index_info` and `foreign_key_list`
 * pragmas, a query's columns from the prepared statement (its declared column types; the
 * statement is never run), uniqueness from primary keys and unique indexes, and a `GROUP BY …
 * HAVING count(*) > 1` count where none says so. The file is opened read-only with
 * `query_only` set, and each operation reads one snapshot (`BEGIN … ROLLBACK`).
 *
 * The database is named `sqlite:<path>` (docs/bindings.md): `sqlite:app.db` relative to the
 * working directory, `sqlite:/var/lib/app/app.db` absolute.
 */
import type { CompiledQuery } from "kysely";
import type {
  Catalog,
  CatalogColumn,
  CatalogForeignKey,
  CatalogTable,
  ColumnFamily,
  DatabaseSession,
  Described,
} from "../../database/types.js";
import { loadBetterSqlite3 } from "./better-sqlite3.js";
import { SQLITE_UNTYPED, sqliteDuplicateCount, sqliteTables } from "./catalog-queries.js";

// SQLite keywords a table or column is plausibly named (https://sqlite.org/lang_keywords.html).
const RESERVED = new Set(
  (
    "abort action add after all alter always analyze and as asc attach autoincrement before " +
    "begin between by cascade case cast check collate column commit conflict constraint create " +
    "cross current current_date current_time current_timestamp database default deferrable " +
    "deferred delete desc detach distinct do drop each else end escape except exclude " +
    "exclusive exists explain fail filter first following for foreign from full generated glob " +
    "group groups having if ignore immediate in index indexed initially inner insert instead " +
    "intersect into is isnull join key last left like limit match materialized natural no not " +
    "nothing notnull null nulls of offset on or order others outer over partition plan pragma " +
    "preceding primary query raise range recursive references regexp reindex release rename " +
    "replace restrict returning right rollback row rows savepoint select set table temp " +
    "temporary then ties to transaction trigger unbounded union unique update using vacuum " +
    "values view virtual when where window with without"
  ).split(" "),
);

/** A SQLite identifier, in double quotes unless it is a plain lower-case name. */
export function sqliteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name)
    ? name
    : `"${name.replaceAll('"', '""')}"`;
}

/**
 * The family of a declared SQLite type, by SQLite's affinity rules
 * (https://sqlite.org/datatype3.html): `boolean`/`bool` are booleans, a name containing `INT`
 * is an integer, one containing `CHAR`, `CLOB` or `TEXT` is text. `uuid` is a uuid (its values
 * are text). A column without a declared type (`any`) has no family.
 *
 *   sqliteFamily("VARCHAR(64)") // "text"
 *   sqliteFamily("boolean")     // "boolean"
 */
export function sqliteFamily(type: string): ColumnFamily {
  const name = type.trim().toLowerCase();
  if (/^bool(?:ean)?$/.test(name)) return "boolean";
  if (name.includes("int")) return "integer";
  if (/char|clob|text|^string$/.test(name)) return "text";
  if (/^(?:numeric|decimal)\b/.test(name)) return "decimal";
  if (name === "uuid") return "uuid";
  return "other";
}

/**
 * Where in `query` SQLite's error points, when its message names a place: the one occurrence
 * of the token `near "…"` or of the table or column it names.
 */
function errorOffset(query: string, message: string): number | null {
  const near = /^near "([^"]+)": syntax error/.exec(message)?.[1];
  if (near !== undefined) return onlyIndex(query, near);
  const named = /^no such (?:table|column): (?:[^ ]*\.)?([^ .]+)$/.exec(message)?.[1];
  if (named === undefined) return null;
  const words = [...query.matchAll(/["`[]?([A-Za-z0-9_$]+)["`\]]?/g)].filter(
    (match) => match[1]!.toLowerCase() === named.toLowerCase(),
  );
  return words.length === 1 ? words[0]!.index! : null;
}

function onlyIndex(text: string, part: string): number | null {
  const first = text.indexOf(part);
  return first !== -1 && text.indexOf(part, first + 1) === -1 ? first : null;
}

interface MasterRow {
  readonly name: string;
  readonly type: string;
  readonly sql: string | null;
}

interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly pk: number;
}

/**
 * What a session uses of a better-sqlite3 database and its statements. Declared here so that
 * the package's types do not need better-sqlite3's; its `Database` fits.
 */
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
}

/** A prepared better-sqlite3 statement, as a session uses it. */
interface SqliteStatement {
  /** Whether it returns rows, and whether it leaves the database unchanged. */
  readonly reader: boolean;
  readonly readonly: boolean;
  columns(): { name: string; type: string | null }[];
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}

/** A session over an open better-sqlite3 database (open it read-only). */
export function sqliteSession(
  db: SqliteDatabase,
  options: { readonly close?: () => Promise<void> } = {},
): DatabaseSession {
  function snapshot<T>(work: () => T): Promise<T> {
    try {
      db.exec("BEGIN");
      try {
        return Promise.resolve(work());
      } finally {
        db.exec("ROLLBACK");
      }
    } catch (cause) {
      return Promise.reject(cause);
    }
  }

  function tableOf(schema: string, row: MasterRow): CatalogTable {
    const info = db
      .prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(?, ?) ORDER BY cid')
      .all(row.name, schema) as ColumnInfo[];
    const keyColumns = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const withoutRowid = /\bwithout\s+rowid\s*$/i.test(row.sql ?? "");
    // SQLite lets primary key columns hold NULL, except an INTEGER PRIMARY KEY (the rowid) and
    // the key of a WITHOUT ROWID table.
    const rowid =
      keyColumns.length === 1 && keyColumns[0]!.type.toLowerCase() === "integer" && !withoutRowid;
    const columns: CatalogColumn[] = info.map((c) => ({
      name: c.name,
      type: c.type === "" ? SQLITE_UNTYPED : c.type,
      nullable: c.notnull === 0 && !(c.pk > 0 && (rowid || withoutRowid)),
    }));
    const primaryKey = keyColumns.length > 0 ? keyColumns.map((c) => c.name) : null;
    const indexes = db
      .prepare(
        "SELECT name FROM pragma_index_list(?, ?) WHERE \"unique\" AND NOT partial AND origin <> 'pk' ORDER BY name",
      )
      .all(row.name, schema) as { name: string }[];
    const uniqueKeys = indexes.flatMap(({ name }) => {
      const key = db
        .prepare("SELECT name FROM pragma_index_info(?, ?) ORDER BY seqno")
        .all(name, schema) as { name: string | null }[];
      return key.every((k) => k.name !== null) ? [key.map((k) => k.name as string)] : [];
    });
    const references = db
      .prepare(
        'SELECT id, "table" AS ref, "from" AS col, "to" AS ref_col FROM pragma_foreign_key_list(?, ?) ORDER BY id, seq',
      )
      .all(row.name, schema) as { id: number; ref: string; col: string; ref_col: string | null }[];
    const foreignKeys = new Map<number, CatalogForeignKey>();
    for (const ref of references) {
      const found = foreignKeys.get(ref.id) ?? {
        columns: [],
        references: { schema, name: ref.ref },
        referencedColumns: [],
      };
      (found.columns as string[]).push(ref.col);
      if (ref.ref_col !== null) (found.referencedColumns as string[]).push(ref.ref_col);
      foreignKeys.set(ref.id, found);
    }
    return {
      schema,
      name: row.name,
      kind: row.type === "view" ? "view" : "table",
      columns,
      primaryKey,
      uniqueKeys,
      // `REFERENCES parent` without columns names the parent's primary key.
      foreignKeys: [...foreignKeys.values()].map((key) =>
        key.referencedColumns.length === key.columns.length
          ? key
          : { ...key, referencedColumns: primaryKeyOf(schema, key.references.name) },
      ),
    };
  }

  function primaryKeyOf(schema: string, table: string): string[] {
    return (
      db
        .prepare("SELECT name FROM pragma_table_info(?, ?) WHERE pk > 0 ORDER BY pk")
        .all(table, schema) as { name: string }[]
    ).map((c) => c.name);
  }

  /** Runs a statement of ./catalog-queries.ts. */
  const all = (statement: CompiledQuery) => db.prepare(statement.sql).all(...statement.parameters);

  return {
    dialect: "sqlite",

    describe(query) {
      return snapshot((): Described => {
        let statement: SqliteStatement;
        try {
          statement = db.prepare(query);
        } catch (cause) {
          const message = (cause as Error).message;
          return { kind: "error", message, offset: errorOffset(query, message) };
        }
        if (!statement.reader || !statement.readonly) {
          const problem = statement.reader ? "writes to the database" : "returns no rows";
          return { kind: "error", message: `the statement ${problem}`, offset: null };
        }
        return {
          kind: "columns",
          columns: statement
            .columns()
            .map((c) => ({ name: c.name, type: c.type ?? SQLITE_UNTYPED })),
        };
      });
    },

    catalog(schema) {
      return snapshot((): Catalog => {
        const name = schema ?? "main";
        const rows = all(sqliteTables(name)) as MasterRow[];
        return { dialect: "sqlite", schema: name, tables: rows.map((row) => tableOf(name, row)) };
      });
    },

    table(name) {
      return snapshot(() => {
        if (name.length < 1 || name.length > 2) return null;
        const schema = name.length === 2 ? name[0]! : "main";
        const attached = db
          .prepare("SELECT 1 FROM pragma_database_list WHERE name = ?")
          .get(schema);
        if (!attached) return null;
        const [row] = all(sqliteTables(schema, name[name.length - 1])) as MasterRow[];
        return row ? tableOf(schema, row) : null;
      });
    },

    duplicateKeys(table, columns) {
      return snapshot(() => {
        const [row] = all(sqliteDuplicateCount(table, columns)) as { n: number }[];
        return row?.n ?? 0;
      });
    },

    family: sqliteFamily,
    identifier: sqliteIdentifier,
    close: options.close ?? (async () => {}),
  };
}

/** The file a `sqlite:<path>` URL names. */
export function sqlitePath(url: string): string {
  const path = /^sqlite:(.+)$/.exec(url)?.[1];
  if (path === undefined) {
    throw new Error(
      `a SQLite database is named \`sqlite:<path>\` (\`sqlite:app.db\`, \`sqlite:/var/lib/app.db\`), not \`${url}\``,
    );
  }
  return path;
}

/**
 * Opens the SQLite file `url` names (`sqlite:<path>`) read-only; the file must exist. SQLite
 * runs in this process and cannot stop a statement midway, so there is no statement timeout;
 * the only statement that reads rows is `duplicateKeys`' count.
 */
export async function openSqlite(url: string): Promise<DatabaseSession> {
  const path = sqlitePath(url);
  const open = await loadBetterSqlite3();
  const db = new open(path, { readonly: true, fileMustExist: true });
  db.pragma("query_only = ON");
  return sqliteSession(db, { close: async () => void db.close() });
}
