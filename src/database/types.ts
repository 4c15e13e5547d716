/**
 * What the bindings tools need from a database, in terms every SQL dialect can give: the
 * catalog (tables, views, columns, keys, foreign keys), a query's result columns without
 * reading its rows, and whether a table's rows are unique on some columns. Each dialect
 * implements `DatabaseSession` in its folder (src/dialects/<name>/catalog.ts) and opens it from
 * its `catalog` (src/dialects/dialect.ts). Sessions only read: every statement runs in a
 * read-only transaction that is rolled back (or on a file opened read-only).
 */
import type { DialectName } from "../dialects/registry.js";

/** How values of a column type compare with the values of a binding slot. */
export type ColumnFamily = "integer" | "decimal" | "text" | "uuid" | "boolean" | "other";

export interface CatalogColumn {
  readonly name: string;
  /** The type as the dialect names it (`integer`, `character varying(64)`, `uuid`). */
  readonly type: string;
  readonly nullable: boolean;
}

/** A table or view name: the schema is null where the dialect has none. */
export interface TableName {
  readonly schema: string | null;
  readonly name: string;
}

export interface CatalogForeignKey {
  readonly columns: readonly string[];
  readonly references: TableName;
  readonly referencedColumns: readonly string[];
}

export interface CatalogTable extends TableName {
  readonly kind: "table" | "view";
  readonly columns: readonly CatalogColumn[];
  /** Primary key columns in key order; null without one. */
  readonly primaryKey: readonly string[] | null;
  /**
   * Other column lists a constraint or index makes unique (no partial or expression indexes),
   * each in key order. Several rows may hold NULL in a nullable one.
   */
  readonly uniqueKeys: readonly (readonly string[])[];
  readonly foreignKeys: readonly CatalogForeignKey[];
}

export interface Catalog {
  readonly dialect: DialectName;
  /** The schema read (the dialect's default when none was named). */
  readonly schema: string;
  /** Tables and views, sorted by name. */
  readonly tables: readonly CatalogTable[];
}

export interface DescribedColumn {
  readonly name: string;
  readonly type: string;
}

/** A query's result columns, or the database's error for it. */
export type Described =
  | { readonly kind: "columns"; readonly columns: readonly DescribedColumn[] }
  | {
      readonly kind: "error";
      readonly message: string;
      /** Offset into the query where the database places the error, when it does. */
      readonly offset: number | null;
    };

export interface DatabaseSession {
  readonly dialect: DialectName;
  /** The result columns of a query, found without reading its rows. */
  describe(query: string): Promise<Described>;
  /** The tables and views of a schema (default: the connection's current schema). */
  catalog(schema?: string): Promise<Catalog>;
  /** One table or view by name as written in a query (`["docs"]`, `["app", "docs"]`). */
  table(name: readonly string[]): Promise<CatalogTable | null>;
  /** How many distinct values of `columns` occur in more than one row of `table`. */
  duplicateKeys(table: CatalogTable, columns: readonly string[]): Promise<number>;
  /** The family of a column type name of this dialect (also of `sql_types` values). */
  family(type: string): ColumnFamily;
  /** An identifier as SQL of this dialect, quoted where it must be. */
  identifier(name: string): string;
  close(): Promise<void>;
}
