/**
 * Reads the data bindings YAML (docs/local-authorization.md#data-bindings): the `yaml` package parses the document
 * with source positions, zod checks its shape, and each signature, query and SQL type name is
 * then checked on the YAML nodes so that every problem names its signature and line.
 */
import { type Document, isAlias, isMap, isNode, isScalar, parseDocument, type YAMLMap } from "yaml";
import type { z } from "zod";
import { isAbstractType, isPrimitiveType } from "../core/value.js";
import { type Diagnostic, type DiagnosticCode, error, tick } from "../source/diagnostic.js";
import { formatDiagnosticLine } from "../source/format.js";
import { positionOf, type SourceFile, type Span } from "../source/source.js";
import { checkBindingQuery, plainScan, type SqlSyntax, tableName } from "./query.js";
import { bindingBodySchema, dataBindingsDocumentSchema } from "./schema.js";
import { formatSignature, isPolarName, parseSignature } from "./signature.js";
import { normalizeSqlType } from "./sql-type.js";
import type { Binding, DataBindings } from "./types.js";

export interface ParseDataBindingsOptions {
  /** File name used in spans and messages; default `data_bindings`. */
  readonly fileName?: string;
  /** The SQL syntax of the binding queries (the application's engine); default `postgres`. */
  readonly syntax?: SqlSyntax;
}

/**
 * Invalid data bindings (code P701); the message lists every error as
 * `file:line:col: error[code]: …`. `diagnostics` holds the errors and any warnings.
 */
export class DataBindingsError extends Error {
  override readonly name = "DataBindingsError";
  readonly code = "P701";
  constructor(
    readonly diagnostics: readonly Diagnostic[],
    source: SourceFile,
  ) {
    super(
      diagnostics
        .filter((d) => d.severity === "error")
        .map((d) => formatDiagnosticLine(d, [source], { code: true }))
        .join("\n"),
    );
  }
}

/** Where each entry of a data bindings document was written. */
export interface BindingsLocations {
  /** The `facts` key, where a missing binding would go; null without one. */
  readonly facts: Span | null;
  /** One per binding of `DataBindings.bindings`, in the same order. */
  readonly bindings: readonly BindingLocation[];
  /** `sql_types` entries by type name: the key. */
  readonly sqlTypes: ReadonlyMap<string, Span>;
  /** `keys` entries by canonical table name: the key. */
  readonly keys: ReadonlyMap<string, Span>;
}

export interface BindingLocation {
  /** The signature key as written. */
  readonly signature: Span;
  /** The signature's text (the key's value). */
  readonly signatureText: string;
  /** The query scalar as written (see `spanInScalar` for a part of it). */
  readonly query: Span;
}

/** A data bindings document read as far as it goes: what parsed, where, and every problem. */
export interface BindingsRead {
  readonly source: SourceFile;
  /** The entries that are valid; complete only when `diagnostics` has no errors. */
  readonly data: DataBindings;
  readonly locations: BindingsLocations;
  readonly diagnostics: readonly Diagnostic[];
}

export type SafeParseDataBindingsResult =
  | { readonly success: true; readonly data: DataBindings }
  | { readonly success: false; readonly error: DataBindingsError };

/** A YAML node, or null where the document has none. */
type YamlNode = unknown;

interface Context {
  readonly doc: Document;
  readonly source: SourceFile;
  readonly diagnostics: Diagnostic[];
  readonly syntax: SqlSyntax;
}

interface Read {
  readonly bindings: Binding[];
  readonly locations: BindingLocation[];
}

function spanOf(context: Context, node: YamlNode): Span {
  const range = isNode(node) ? node.range : undefined;
  return { file: context.source.name, start: range?.[0] ?? 0, end: range?.[1] ?? 0 };
}

function report(
  context: Context,
  message: string,
  node: YamlNode,
  code: DiagnosticCode = "P701",
): void {
  context.diagnostics.push(error(code, message, spanOf(context, node)));
}

function resolve(context: Context, node: YamlNode): YamlNode {
  return isAlias(node) ? node.resolve(context.doc) : node;
}

function keyText(context: Context, node: YamlNode): string {
  const key = resolve(context, node);
  if (isScalar(key)) return String(key.value);
  return isNode(key) ? String(key) : "";
}

function toJS(context: Context, node: YamlNode): unknown {
  return isNode(node) ? node.toJS(context.doc) : null;
}

function findPair(context: Context, map: YamlNode, key: string) {
  const resolved = resolve(context, map);
  return isMap(resolved)
    ? resolved.items.find((pair) => keyText(context, pair.key) === key)
    : undefined;
}

/** A signature as shown in messages: canonical when it parses, as written otherwise. */
function displaySignature(raw: string): string {
  const parsed = parseSignature(raw);
  return parsed.kind === "signature" ? formatSignature(parsed.predicate, parsed.slots) : raw;
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Turns one zod issue into messages placed on the key it concerns. */
function reportShape(context: Context, issue: z.core.$ZodIssue, data: unknown): void {
  const path = issue.path.map(String);
  const [section, key] = path;
  const topPair =
    section === undefined ? undefined : findPair(context, context.doc.contents, section);
  const entryPair = key === undefined ? undefined : findPair(context, topPair?.value, key);
  const at = entryPair?.key ?? topPair?.key ?? context.doc.contents;
  const input = valueAt(data, path);
  const unknownKeys = issue.code === "unrecognized_keys" ? issue.keys : [];
  if (section === undefined) {
    for (const unknown of unknownKeys) {
      const pair = findPair(context, context.doc.contents, unknown);
      const message = `unknown key ${tick(unknown)} in data bindings; expected \`facts\`, \`sql_types\` or \`keys\``;
      report(context, message, pair?.key ?? at, "P705");
    }
    if (issue.code !== "unrecognized_keys") {
      report(
        context,
        "data bindings must be a mapping with keys `facts`, `sql_types` and `keys`",
        at,
      );
    }
  } else if (key === undefined) {
    const what =
      section === "facts"
        ? "fact signatures to queries"
        : section === "keys"
          ? "table names to key columns"
          : "type names to SQL type names";
    report(context, `${tick(section)} must be a mapping from ${what}`, at);
  } else if (section === "sql_types") {
    report(context, `\`sql_types\` entry ${tick(key)} must be a string`, at);
  } else if (section === "keys") {
    report(context, `\`keys\` entry ${tick(key)} must be a column name or a list of them`, at);
  } else {
    const binding = `binding ${tick(displaySignature(key))}`;
    for (const unknown of unknownKeys) {
      report(context, `unknown key ${tick(unknown)} in ${binding}; expected \`query\``, at, "P705");
    }
    if (issue.code === "unrecognized_keys") return;
    if (input === undefined || input === null) report(context, `${binding} has no query`, at);
    else if (path.length === 2)
      report(context, `${binding} must be a mapping with a \`query\``, at);
    else report(context, `query of ${binding} must be a string`, at);
  }
}

function readFacts(context: Context, facts: YAMLMap): Read {
  const bindings: Binding[] = [];
  const locations: BindingLocation[] = [];
  const seen = new Set<string>();
  for (const pair of facts.items) {
    const signatureText = keyText(context, pair.key);
    const parsed = parseSignature(signatureText);
    if (parsed.kind === "error") {
      report(context, parsed.message, pair.key, "P706");
      continue;
    }
    const signature = formatSignature(parsed.predicate, parsed.slots);
    if (seen.has(signature)) {
      report(context, `duplicate binding ${tick(signature)}`, pair.key);
      continue;
    }
    seen.add(signature);
    const body = bindingBodySchema.safeParse(toJS(context, pair.value));
    if (!body.success) continue; // reported by the shape check
    const query = checkBindingQuery(body.data.query, context.syntax);
    if (query.kind === "error") {
      report(context, `query of binding ${tick(signature)} ${query.problem}`, pair.key);
      continue;
    }
    const { line } = positionOf(context.source, spanOf(context, pair.key).start);
    const { predicate, slots } = parsed;
    const scan = plainScan(query.query, context.syntax);
    const columns = slots.filter((slot) => slot.kind === "column").length;
    const fits = scan !== null && scan.items.length === columns;
    bindings.push({
      signature,
      predicate,
      slots,
      query: query.query,
      line,
      scan: fits ? scan : null,
    });
    const queryNode = findPair(context, pair.value, "query")?.value;
    locations.push({
      signature: spanOf(context, pair.key),
      signatureText,
      query: spanOf(context, resolve(context, queryNode)),
    });
  }
  return { bindings, locations };
}

function readSqlTypes(
  context: Context,
  sqlTypes: YAMLMap,
  spans: Map<string, Span>,
): Map<string, string> {
  const types = new Map<string, string>();
  for (const pair of sqlTypes.items) {
    const type = keyText(context, pair.key);
    const sqlType = toJS(context, pair.value);
    const normalized = typeof sqlType === "string" ? normalizeSqlType(sqlType) : null;
    if (!isPolarName(type)) {
      report(context, `invalid type name ${tick(type)} in \`sql_types\``, pair.key);
    } else if (isPrimitiveType(type) || isAbstractType(type)) {
      const kind = isPrimitiveType(type) ? "primitive" : "abstract";
      const message = `\`sql_types\` cannot give an SQL type to ${kind} type ${tick(type)}; list entity types`;
      report(context, message, pair.key);
    } else if (types.has(type)) {
      report(context, `duplicate type ${tick(type)} in \`sql_types\``, pair.key);
    } else if (typeof sqlType === "string" && normalized === null) {
      const message = `invalid SQL type ${tick(sqlType)} for ${tick(type)} in \`sql_types\`; expected a type name such as \`integer\`, \`uuid\` or \`varchar(64)\``;
      report(context, message, pair.key);
    } else if (normalized !== null) {
      types.set(type, normalized);
      spans.set(type, spanOf(context, pair.key));
    }
  }
  return types;
}

function readKeys(
  context: Context,
  keys: YAMLMap,
  spans: Map<string, Span>,
): Map<string, readonly string[]> {
  const read = new Map<string, readonly string[]>();
  for (const pair of keys.items) {
    const table = keyText(context, pair.key);
    const name = tableName(table, context.syntax);
    const value = toJS(context, pair.value);
    const columns = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
    if (name === null) {
      const message = `invalid table name ${tick(table)} in \`keys\`; expected \`table\` or \`schema.table\``;
      report(context, message, pair.key);
    } else if (read.has(name)) {
      report(context, `duplicate table ${tick(table)} in \`keys\``, pair.key);
    } else if (columns?.every((column) => typeof column === "string")) {
      const names = columns.map((column) => {
        const canonical = tableName(column, context.syntax);
        // A column is one name, not `table.column`.
        return canonical !== null && JSON.parse(canonical).length === 1 ? canonical : null;
      });
      const bad = columns.find((_, i) => names[i] === null);
      if (bad !== undefined) {
        report(
          context,
          `invalid column name ${tick(bad)} for ${tick(table)} in \`keys\``,
          pair.key,
        );
      } else if (columns.length > 0) {
        read.set(name, names as string[]);
        spans.set(name, spanOf(context, pair.key));
      }
    }
  }
  return read;
}

/**
 * Reads a data bindings document as far as it goes: every problem as a diagnostic, and the
 * entries that are valid with where they were written. Never throws.
 *
 *   const read = readDataBindings(yaml, { fileName: "bindings.yaml" });
 *   read.diagnostics // [] when the document is valid; then read.data is complete
 */
export function readDataBindings(
  yamlText: string,
  options: ParseDataBindingsOptions = {},
): BindingsRead {
  const source: SourceFile = { name: options.fileName ?? "data_bindings", text: yamlText };
  const doc = parseDocument(yamlText, { uniqueKeys: false, prettyErrors: false });
  const syntax = options.syntax ?? "postgres";
  const context: Context = { doc, source, diagnostics: [], syntax };
  const sqlTypeSpans = new Map<string, Span>();
  const keySpans = new Map<string, Span>();
  let facts: Read = { bindings: [], locations: [] };
  let factsKey: Span | null = null;
  let sqlTypes = new Map<string, string>();
  let keys = new Map<string, readonly string[]>();
  const done = (): BindingsRead => {
    context.diagnostics.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
    return {
      source,
      data: { bindings: facts.bindings, sqlTypes, keys, ...(syntax !== "postgres" && { syntax }) },
      locations: {
        facts: factsKey,
        bindings: facts.locations,
        sqlTypes: sqlTypeSpans,
        keys: keySpans,
      },
      diagnostics: context.diagnostics,
    };
  };
  for (const yamlError of doc.errors) {
    // The parser may place an error just past the end of the text.
    const start = Math.min(yamlError.pos[0], yamlText.length);
    const end = Math.min(Math.max(yamlError.pos[1], start), yamlText.length);
    const message = `invalid YAML in data bindings: ${lowerFirst(yamlError.message.split("\n")[0]!)}`;
    context.diagnostics.push(error("P704", message, { file: source.name, start, end }));
  }
  if (context.diagnostics.length > 0) return done();
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (thrown) {
    const message = `invalid YAML in data bindings: ${lowerFirst((thrown as Error).message)}`;
    report(context, message, doc.contents, "P704");
    return done();
  }
  const shape = dataBindingsDocumentSchema.safeParse(data);
  if (!shape.success) for (const issue of shape.error.issues) reportShape(context, issue, data);

  const root = resolve(context, doc.contents);
  const sections = new Set<string>();
  for (const pair of isMap(root) ? root.items : []) {
    const section = keyText(context, pair.key);
    const value = resolve(context, pair.value);
    if (section !== "facts" && section !== "sql_types" && section !== "keys") continue; // reported by the shape check
    if (sections.has(section))
      report(context, `duplicate key ${tick(section)} in data bindings`, pair.key);
    else if (section === "facts" && isMap(value)) facts = readFacts(context, value);
    else if (section === "sql_types" && isMap(value))
      sqlTypes = readSqlTypes(context, value, sqlTypeSpans);
    else if (section === "keys" && isMap(value)) keys = readKeys(context, value, keySpans);
    if (section === "facts" && !sections.has(section)) factsKey = spanOf(context, pair.key);
    sections.add(section);
  }
  return done();
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function check(yamlText: string, options: ParseDataBindingsOptions): SafeParseDataBindingsResult {
  const read = readDataBindings(yamlText, options);
  if (read.diagnostics.length > 0) {
    return { success: false, error: new DataBindingsError(read.diagnostics, read.source) };
  }
  return { success: true, data: read.data };
}

/**
 * Parses and validates data bindings; throws `DataBindingsError` listing every problem.
 *
 *   const { bindings, sqlTypes } = parseDataBindings(`
 *   facts:
 *     "has_relation(Ticket:_, project, Project:_)":
 *       query: SELECT id, project_id FROM tickets
 *   sql_types:
 *     Ticket: bigint
 *   `);
 *   bindings[0].signature // "has_relation(Ticket:_, String:project, Project:_)"
 *   sqlTypes.get("Ticket") // "bigint"
 */
export function parseDataBindings(
  yamlText: string,
  options: ParseDataBindingsOptions = {},
): DataBindings {
  const result = check(yamlText, options);
  if (!result.success) throw result.error;
  return result.data;
}

/**
 * Like `parseDataBindings`, but returns `{ success: true, data }` or `{ success: false, error }`.
 *
 *   const result = safeParseDataBindings("fact:\n");
 *   if (!result.success) console.log(result.error.message);
 *   // data_bindings:1:1: unknown key `fact` in data bindings; expected `facts`, `sql_types` or `keys`
 */
export function safeParseDataBindings(
  yamlText: string,
  options: ParseDataBindingsOptions = {},
): SafeParseDataBindingsResult {
  return check(yamlText, options);
}
