/**
 * What one dialect is: one object per folder of src/dialects/ (registered in
 * src/dialects/registry.ts). It carries the lowering rules where engines spell things
 * differently (src/lower/rules.ts), how values are written (literals and parameters of each
 * SQL type), Kysely's query compiler for the engine, the lexical rules its binding queries are
 * read by, and how `bindings check`/`bindings init` connect to its catalog. Generic code takes a
 * `Dialect` and asks it; it never names one. docs/architecture.md, "Adding a dialect".
 */
import type { CastNode, DefaultQueryCompiler, OperationNode } from "kysely";
import type { Value } from "../core/value.js";
import type { DatabaseSession } from "../database/types.js";
import type { LoweringRules } from "../lower/rules.js";
import type { LexicalRules } from "../sql/lexical.js";

/** A Kysely query compiler class; a dialect's own subclass is typed as one (declaration files). */
export type CompilerClass = new () => DefaultQueryCompiler;

export interface Dialect<Name extends string = string> extends LoweringRules {
  /** The name callers write (`--dialect`, `"dialect"`), its key in the registry. */
  readonly name: Name;
  /** The engines and versions it prints for, for help texts: `PostgreSQL 12+, PGlite`. */
  readonly engines: string;
  /**
   * What a statement's boolean result (`allowed`) is as the engine's usual driver returns it:
   * `booleans`, or `integers` 1 and 0 where the engine has no boolean type.
   */
  readonly truth: "booleans" | "integers";
  /**
   * Whether a column of the value's type (`sqlType`: its `sql_types` entry) can hold the value;
   * a comparison with one that cannot is simply false, and resolution drops it.
   */
  canWrite(value: Value, sqlType: string | undefined): boolean;
  /**
   * The literal for a value that `canWrite` accepts. `typed`: it must carry its SQL type (a
   * select list, a row of a derived table), where the engine cannot infer one from a column.
   */
  literal(value: Value, sqlType: string | undefined, typed: boolean): string;
  /** The text a driver sends for the value as a parameter (for values `canWrite` accepts). */
  parameter(value: Value, sqlType: string | undefined): string;
  /** The SQL type a parameter holding values of Polar type `type` is cast to. */
  parameterType(type: string, sqlType: string | undefined): string;
  /**
   * What a cast the rules asked for prints as, where the engine has no `CAST` to that type;
   * null prints the cast as it is.
   */
  printedCast?(node: CastNode): OperationNode | null;
  /**
   * How a param list travels as one parameter, where the rules have `idsTable`: the
   * placeholder as written (`cast($1 as text[])`) and the parameter's text for the ids'
   * parameter texts (distinct, each one `parameter` wrote).
   */
  readonly idsParameter?: {
    placeholder(placeholder: string, type: string, sqlType: string | undefined): string;
    text(ids: readonly string[], type: string, sqlType: string | undefined): string;
  };
  /** Kysely's query compiler class for the engine (quoting, placeholders). */
  readonly compiler: CompilerClass;
  /** How binding queries written in this dialect are tokenized (src/bindings/scan.ts). */
  readonly lexical: LexicalRules;
  /** The connection to the catalog for `bindings check --database` and `bindings init`. */
  readonly catalog: CatalogConnection;
}

/** How the bindings tools reach a database of the dialect, and what its catalog reports. */
interface CatalogConnection {
  /** The URLs that name this dialect (`bindings --database <url>` without `--dialect`). */
  readonly urls: RegExp;
  /** A URL of the form it opens, for help texts. */
  readonly urlExample: string;
  /**
   * Opens a session; the driver is imported only here, so that printing SQL loads no driver
   * and optional drivers stay optional.
   */
  open(url: string, options: { readonly statementTimeout?: number }): Promise<DatabaseSession>;
  /** Packages the driver loads at run time, which a bundle leaves outside. */
  readonly driverPackages: readonly string[];
  /** Column names compare without regard to case in the engine. */
  readonly foldsColumnNames: boolean;
  /** The engine computes booleans as integers 1 and 0: an integer column may hold them. */
  readonly integerBooleans: boolean;
  /** The type sessions report for a column whose type the engine knows only from its rows. */
  readonly untypedColumn?: string;
}
