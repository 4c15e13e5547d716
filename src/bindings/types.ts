/** Parsed data bindings: which facts live in the caller's database and how to SELECT them. */

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
   * `--` comment so that the comment cannot swallow SQL written after the query).
   */
  readonly query: string;
  /** 1-based line of the signature in the YAML document (for messages). */
  readonly line: number;
}

export interface DataBindings {
  readonly bindings: readonly Binding[];
  /** Polar type name -> SQL type name, lowercased (`integer`, `uuid`, `text`, ...). */
  readonly sqlTypes: ReadonlyMap<string, string>;
}
