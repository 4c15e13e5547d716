/** Parsed data bindings: which facts live in the caller's database and how to SELECT them. */
import type { OperationNode } from "kysely";
import type { DialectName } from "../dialects/registry.js";
import type { PlainScan } from "./query.js";

/** One argument slot of a binding signature. */
export type BindingSlot =
  /** `Type:_`: a column of the binding query. */
  | { readonly kind: "column"; readonly type: string }
  /** `Type:value`: a fixed value; produces no column. `value` is the id in wire form. */
  | { readonly kind: "constant"; readonly type: string; readonly value: string };

export interface Binding {
  /** Canonical text, e.g. `has_relation(Ticket:_, String:project, Project:_)`. */
  readonly signature: string;
  readonly predicate: string;
  readonly slots: readonly BindingSlot[];
  /**
   * The SQL as given, trailing whitespace and `;` removed (a line break is kept after a final
   * `--` comment so that the comment cannot swallow SQL written after the query). For a
   * binding given as a `tree`, the names that tree reads (generated names avoid them).
   */
  readonly query: string;
  /**
   * The query as a SQL tree instead of text: the fact store's own bindings
   * (src/store/bindings.ts), lowered as they are, never printed and read back.
   */
  readonly tree?: OperationNode;
  /**
   * Formed by merging keyed scans (plan/resolve/scans.ts): it reads `scan`, and `query` is
   * empty.
   */
  readonly merged?: boolean;
  /** 1-based line of the signature in the YAML document (for messages). */
  readonly line: number;
  /** The query as a plain scan of one table, when it is one (see `keys`). */
  readonly scan: PlainScan | null;
}

export interface DataBindings {
  readonly bindings: readonly Binding[];
  /** Polar type name -> SQL type name, lowercased (`integer`, `uuid`, `text`, ...). */
  readonly sqlTypes: ReadonlyMap<string, string>;
  /**
   * `keys` (project extension): canonical table name (see `tableName`) -> the canonical names
   * of columns that together are unique in that table. Plain scans of one table that a query
   * joins on its key read the same row, so they are read as one scan.
   */
  readonly keys: ReadonlyMap<string, readonly string[]>;
  /** The dialect whose syntax the binding queries were read in; the default one when absent. */
  readonly syntax?: DialectName;
}
