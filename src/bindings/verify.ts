/**
 * Checks data bindings against a live database, after the static checks (`checkBindings`):
 * each query is described by the database (its columns, without reading rows) and its column
 * count and types compared with the signature and `sql_types`; each `keys` entry is looked up
 * in the catalog and, where no constraint makes it unique, counted in the data. The session
 * only reads (see `DatabaseSession`).
 */
import type { Program } from "../check/program.js";
import { type ColumnFamily, type DatabaseSession, SQLITE_UNTYPED } from "../database/types.js";
import { type Diagnostic, error, hasErrors, tick, warning } from "../source/diagnostic.js";
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
    await checkQuery(context, binding, checked.read.locations.bindings[index]!);
  }
  await checkKeys(context);
  const diagnostics = [...checked.diagnostics, ...context.diagnostics].sort(
    (a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0),
  );
  const ok = !hasErrors(diagnostics);
  return { ...checked, ok, bindings: ok ? checked.read.data : null, diagnostics };
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
    context.diagnostics.push(
      error(
        "P709",
        `the database rejects the query of binding ${tick(binding.signature)}: ${described.message}`,
        span,
      ),
    );
    return;
  }
  const expected = columnSlots(binding);
  const width = selectListWidth(binding.query);
  const { columns } = described;
  if (columns.length !== expected) {
    // A count the text shows was reported by the static checks.
    if (width !== null && width.columns !== expected) return;
    context.diagnostics.push(
      error(
        "P708",
        `query of binding ${tick(binding.signature)} returns ${columns.length} ${columns.length === 1 ? "column" : "columns"} in the database, but its signature has ${expected} \`_\` ${expected === 1 ? "slot" : "slots"}`,
        location.query,
      ),
    );
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
  const what = `column ${index + 1} of binding ${tick(binding.signature)} is ${tick(columnType)}`;
  if (session.dialect === "sqlite" && columnType === SQLITE_UNTYPED) {
    // A computed column: SQLite knows no type for it until it reads a row.
    context.diagnostics.push(
      warning(
        "W008",
        `column ${index + 1} of binding ${tick(binding.signature)} has no declared type (SQLite types computed columns by their values); comparisons with ${tick(slotType)} values may fail`,
        span,
        "select a table column, or CAST the expression to the column type of the values",
      ),
    );
    return;
  }
  const primitive = PRIMITIVE_FAMILY[slotType];
  if (primitive !== undefined) {
    if (family === primitive) return;
    // Enums and domains over text, or decimals holding integers, may still compare; MySQL
    // computes booleans as integers 0/1 (docs/dialects.md).
    const maybe =
      (primitive === "text" && family === "other") ||
      (primitive === "integer" && family === "decimal") ||
      (primitive === "boolean" && family === "integer" && session.dialect === "mysql");
    const message = `${what}, not a type for ${tick(slotType)} values`;
    context.diagnostics.push(
      maybe
        ? warning("W008", `${message}; comparisons with ${tick(slotType)} values may fail`, span)
        : error("P710", message, span),
    );
    return;
  }
  const declared = read.data.sqlTypes.get(slotType);
  if (declared === undefined) {
    if (family === "text" || context.untyped.has(slotType)) return;
    context.untyped.add(slotType);
    context.diagnostics.push(
      warning(
        "W008",
        `${what}, but \`sql_types\` gives no type for ${tick(slotType)}, so ${untypedConsequence(session.dialect, family, baseType(columnType))} (docs/local-authorization.md, "Ids without sql_types")`,
        span,
        `add \`${slotType}: ${baseType(columnType)}\` to \`sql_types\``,
      ),
    );
    return;
  }
  const expected = session.family(declared);
  if (family === expected && (family !== "other" || baseType(columnType) === baseType(declared))) {
    return;
  }
  context.diagnostics.push(
    error(
      "P710",
      `${what}, but \`sql_types\` gives ${tick(slotType)} the type ${tick(declared)}`,
      span,
    ),
  );
}

/**
 * What happens to ids of a type without `sql_types` against a column of this family: in
 * PostgreSQL, ids written untyped that the column's type cannot read raise an error
 * (docs/local-authorization.md, "Ids without sql_types", the pairs that still need `sql_types`).
 */
function untypedConsequence(dialect: string, family: ColumnFamily, base: string): string {
  const asText = "are compared with the column's text, where its index cannot serve";
  if (dialect !== "postgres") return `ids that are not integers or uuids ${asText}`;
  switch (family) {
    case "integer":
      return base === "smallint" || base === "int2"
        ? `ids that look like uuids or are 32-bit integers outside -32768..32767 make PostgreSQL raise an error (\`invalid input syntax for type smallint\`, \`value "40000" is out of range for type smallint\`), and other ids that are not 32-bit integers ${asText}`
        : `ids that look like uuids make PostgreSQL raise an error (\`invalid input syntax for type ${base}\`), and other ids that are not 32-bit integers ${asText}`;
    case "uuid":
      return `ids that look like integers make PostgreSQL raise an error (\`invalid input syntax for type uuid\`), and other ids that are not lowercase uuids ${asText}`;
    case "decimal":
      return `ids that look like uuids make PostgreSQL raise an error (\`invalid input syntax for type ${base}\`), and other ids that are not 32-bit integers ${asText}`;
    case "text":
    case "boolean":
    case "other":
      return `ids that are not integers or uuids ${asText}`;
    default: {
      const _never: never = family;
      return _never;
    }
  }
}

async function checkKeys(context: Context): Promise<void> {
  const { read, session } = context;
  // MySQL and SQLite compare column names without regard to case, while the bindings reader
  // folds unquoted names to lower case (docs/dialects.md); PostgreSQL compares them exactly.
  const sameName = (a: string, b: string) =>
    session.dialect === "postgres" ? a === b : a.toLowerCase() === b.toLowerCase();
  for (const [table, canonicalColumns] of read.data.keys) {
    const written = canonicalColumns.map((c) => (JSON.parse(c) as string[])[0]!);
    const span = read.locations.keys.get(table);
    const name = displayTableName(table);
    const found = await session.table(JSON.parse(table) as string[]);
    if (!found) {
      context.diagnostics.push(
        error("P711", `table ${tick(name)} of \`keys\` does not exist in the database`, span),
      );
      continue;
    }
    const catalogName = (c: string) => found.columns.find((column) => sameName(column.name, c));
    const missing = written.filter((c) => catalogName(c) === undefined);
    if (missing.length > 0) {
      context.diagnostics.push(
        error(
          "P711",
          `table ${tick(name)} has no column ${missing.map((c) => tick(c)).join(", ")}`,
          span,
        ),
      );
      continue;
    }
    const columns = written.map((c) => catalogName(c)!.name);
    const notNull = (c: string) => found.columns.some((col) => col.name === c && !col.nullable);
    const unique = [found.primaryKey, ...found.uniqueKeys].some((key) =>
      key?.every((c) => columns.includes(c) && notNull(c)),
    );
    if (unique) continue;
    const list = `(${columns.join(", ")})`;
    const duplicated = await session.duplicateKeys(found, columns);
    context.diagnostics.push(
      duplicated > 0
        ? error(
            "P711",
            `key ${tick(list)} of table ${tick(name)} is not unique: ${duplicated} ${duplicated === 1 ? "value occurs" : "values occur"} in more than one row`,
            span,
            "bindings merged on a key that is not unique give wrong answers; name a unique column list or remove the entry",
          )
        : warning(
            "W007",
            `key ${tick(list)} of table ${tick(name)} is unique in the data today, but no primary key or unique constraint on non-null columns ensures it`,
            span,
            `a unique index on ${list} would`,
          ),
    );
  }
}
