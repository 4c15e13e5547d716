/**
 * Checks data bindings against a live database, after the static checks (`checkBindings`):
 * each query is described by the database (its columns, without reading rows) and its column
 * count and types compared with the signature and `sql_types`; each `keys` entry is looked up
 * in the catalog and, where no constraint makes it unique, counted in the data. The session
 * only reads (see `DatabaseSession`).
 */
import type { Program } from "../check/program.js";
import type { ColumnFamily, DatabaseSession } from "../database/types.js";
import { DIALECTS } from "../dialects/registry.js";
import { type Diagnostic, hasErrors } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import {
  type BindingsCheck,
  type CheckBindingsOptions,
  checkBindings,
  columnSlots,
  displayTableName,
} from "./check.js";
import { spanInScalar } from "./locate.js";
import type { BindingLocation, BindingsRead } from "./parse.js";
import { type BindingsProblem, bindingsDiagnostic } from "./problems.js";
import { selectListWidth } from "./query.js";
import type { Binding } from "./types.js";

/**
 * The static checks, then the database's: the result lists both.
 *
 *   const session = await openDatabase(url);
 *   const result = await checkBindingsWithDatabase(program, yaml, session, { fileName: "b.yaml" });
 *   await session.close();
 */
export async function checkBindingsWithDatabase(
  program: Program | null,
  bindingsText: string,
  session: DatabaseSession,
  options: CheckBindingsOptions = {},
): Promise<BindingsCheck> {
  const checked = checkBindings(program, bindingsText, options);
  if (checked.diagnostics.some((d) => d.code === "P704")) return checked;
  const context: Context = { read: checked.read, session, diagnostics: [], untyped: new Set() };
  const { bindings } = checked.read.data;
  for (const [index, binding] of bindings.entries()) {
    // An ignored binding never runs: its query cannot answer wrong.
    if (checked.ignored.has(index)) continue;
    await checkQuery(context, binding, checked.read.locations.bindings[index]!);
  }
  await checkKeys(context);
  const diagnostics = [...checked.diagnostics, ...context.diagnostics].sort(
    (a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0),
  );
  const ok = !hasErrors(diagnostics);
  return { ...checked, ok, bindings: ok ? checked.bindings : null, diagnostics };
}

interface Context {
  readonly read: BindingsRead;
  readonly session: DatabaseSession;
  readonly diagnostics: Diagnostic[];
  /** Entity types already reported as missing from `sql_types`. */
  readonly untyped: Set<string>;
}

function querySpan(
  context: Context,
  binding: Binding,
  location: BindingLocation,
  from: number,
  to: number,
): Span {
  return spanInScalar(context.read.source, location.query, binding.query, from, to);
}

async function checkQuery(context: Context, binding: Binding, location: BindingLocation) {
  const described = await context.session.describe(binding.query);
  if (described.kind === "error") {
    const at = described.offset;
    const word = at === null ? 0 : (/^[^\s,()]*/.exec(binding.query.slice(at))?.[0].length ?? 0);
    const span =
      at === null ? location.query : querySpan(context, binding, location, at, at + word);
    const problem = {
      code: "P709",
      kind: "query-rejected",
      signature: binding.signature,
      reason: described.message,
    } as const;
    context.diagnostics.push(bindingsDiagnostic(problem, span));
    return;
  }
  const expected = columnSlots(binding);
  const width = selectListWidth(binding.query, context.read.data.syntax);
  const { columns } = described;
  if (columns.length !== expected) {
    // A count the text shows was reported by the static checks.
    if (width !== null && width.columns !== expected) return;
    const problem = {
      code: "P708",
      kind: "column-count",
      signature: binding.signature,
      columns: columns.length,
      slots: expected,
      database: true,
    } as const;
    context.diagnostics.push(bindingsDiagnostic(problem, location.query));
    return;
  }
  const slots = binding.slots.filter((slot) => slot.kind === "column");
  slots.forEach((slot, index) => {
    const column = columns[index]!;
    const item = width?.items[index];
    const span = item ? querySpan(context, binding, location, item[0], item[1]) : location.query;
    checkColumnType(context, binding, slot.type, index, column.type, span);
  });
}

const PRIMITIVE_FAMILY: Readonly<Record<string, ColumnFamily>> = {
  String: "text",
  Integer: "integer",
  Boolean: "boolean",
};

function baseType(type: string): string {
  return type
    .trim()
    .toLowerCase()
    .replace(/\s*\(.*$/, "");
}

function checkColumnType(
  context: Context,
  binding: Binding,
  slotType: string,
  index: number,
  columnType: string,
  span: Span,
): void {
  const { session, read } = context;
  const family = session.family(columnType);
  const at = { column: index, signature: binding.signature, columnType, slotType };
  const report = (problem: BindingsProblem) =>
    context.diagnostics.push(bindingsDiagnostic(problem, span));
  const catalog = DIALECTS[session.dialect].catalog;
  if (columnType === catalog.untypedColumn) {
    // A computed column: the engine knows no type for it until it reads a row.
    report({ code: "W008", kind: "computed-column", ...at });
    return;
  }
  const primitive = PRIMITIVE_FAMILY[slotType];
  if (primitive !== undefined) {
    if (family === primitive) return;
    // Enums and domains over text, or decimals holding integers, may still compare; so may
    // integers where the engine computes booleans as integers (docs/dialects.md).
    const maybe =
      (primitive === "text" && family === "other") ||
      (primitive === "integer" && family === "decimal") ||
      (primitive === "boolean" && family === "integer" && catalog.integerBooleans);
    report(
      maybe
        ? { code: "W008", kind: "column-may-not-compare", ...at }
        : { code: "P710", kind: "column-not-primitive", ...at },
    );
    return;
  }
  const declared = read.data.sqlTypes.get(slotType);
  if (declared === undefined) {
    if (family === "text" || context.untyped.has(slotType)) return;
    context.untyped.add(slotType);
    const base = baseType(columnType);
    report({ code: "W008", kind: "untyped-column", dialect: session.dialect, family, base, ...at });
    return;
  }
  const expected = session.family(declared);
  if (family === expected && (family !== "other" || baseType(columnType) === baseType(declared))) {
    return;
  }
  report({ code: "P710", kind: "sql-type-mismatch", declared, ...at });
}

async function checkKeys(context: Context): Promise<void> {
  const { read, session } = context;
  // Some engines compare column names without regard to case, while the bindings reader folds
  // unquoted names to lower case (docs/dialects.md); the others compare them exactly.
  const sameName = (a: string, b: string) =>
    DIALECTS[session.dialect].catalog.foldsColumnNames
      ? a.toLowerCase() === b.toLowerCase()
      : a === b;
  for (const [table, canonicalColumns] of read.data.keys) {
    const written = canonicalColumns.map((c) => (JSON.parse(c) as string[])[0]!);
    const span = read.locations.keys.get(table);
    const name = displayTableName(table);
    const found = await session.table(JSON.parse(table) as string[]);
    if (!found) {
      context.diagnostics.push(
        bindingsDiagnostic({ code: "P711", kind: "key-table-missing", table: name }, span),
      );
      continue;
    }
    const catalogName = (c: string) => found.columns.find((column) => sameName(column.name, c));
    const missing = written.filter((c) => catalogName(c) === undefined);
    if (missing.length > 0) {
      const problem = {
        code: "P711",
        kind: "key-columns-missing",
        table: name,
        columns: missing,
      } as const;
      context.diagnostics.push(bindingsDiagnostic(problem, span));
      continue;
    }
    const columns = written.map((c) => catalogName(c)!.name);
    const notNull = (c: string) => found.columns.some((col) => col.name === c && !col.nullable);
    const unique = [found.primaryKey, ...found.uniqueKeys].some((key) =>
      key?.every((c) => columns.includes(c) && notNull(c)),
    );
    if (unique) continue;
    const duplicated = await session.duplicateKeys(found, columns);
    context.diagnostics.push(
      bindingsDiagnostic(
        duplicated > 0
          ? { code: "P711", kind: "key-not-unique", table: name, columns, duplicated }
          : { code: "W007", kind: "key-not-enforced", table: name, columns },
        span,
      ),
    );
  }
}
