/**
 * Reads the data bindings YAML (docs/local-authorization.md#data-bindings): the `yaml` package parses the document
 * with source positions, zod checks its shape, and each signature, query and SQL type name is
 * then checked on the YAML nodes so that every problem names its signature and line.
 */
import { type Document, isAlias, isMap, isNode, isScalar, parseDocument, type YAMLMap } from "yaml";
import type { z } from "zod";
import { isAbstractType, isPrimitiveType } from "../core/value.js";
import { DEFAULT_DIALECT, type DialectName } from "../dialects/registry.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { formatDiagnosticLine } from "../source/format.js";
import type { Problem } from "../source/problems.js";
import { positionOf, type SourceFile, type Span } from "../source/source.js";
import { StageError } from "../source/stage-error.js";
import { normalizeSqlType } from "../sql/sql-type.js";
import { type BindingsProblem, bindingsDiagnostic } from "./problems.js";
import { plainScan, readBindingQuery, tableName } from "./query.js";
import { bindingBodySchema, dataBindingsDocumentSchema } from "./schema.js";
import { formatSignature, isPolarName, readSignature } from "./signature.js";
import type { Binding, DataBindings } from "./types.js";

interface ParseDataBindingsOptions {
  /** File name used in spans and messages; default `data_bindings`. */
  readonly fileName?: string;
  /** The SQL syntax of the binding queries (the application's engine); default `postgres`. */
  readonly syntax?: DialectName;
}

/**
 * Invalid data bindings (code P701): a `StageError` whose span is the first error's; the
 * message lists every error as `file:line:col: error[code]: …`. `diagnostics` holds the
 * errors and any warnings.
 */
export class DataBindingsError extends StageError {
  override readonly name = "DataBindingsError";
  declare readonly code: "P701";
  declare readonly problem: Extract<Problem, { kind: "invalid-data-bindings" }>;
  constructor(
    readonly diagnostics: readonly Diagnostic[],
    source: SourceFile,
  ) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    const first = errors[0];
    super(
      {
        code: "P701",
        kind: "invalid-data-bindings",
        first: first?.message ?? null,
        errors: errors.length,
      },
      first?.span ? { span: first.span, sources: [source] } : null,
      errors.map((d) => formatDiagnosticLine(d, [source], { code: true })).join("\n"),
    );
  }
}

/** Where each entry of a data bindings document was written. */
interface BindingsLocations {
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

type SafeParseDataBindingsResult =
  | { readonly success: true; readonly data: DataBindings }
  | { readonly success: false; readonly error: DataBindingsError };

/** A YAML node, or null where the document has none. */
type YamlNode = unknown;

interface Context {
  readonly doc: Document;
  readonly source: SourceFile;
  readonly diagnostics: Diagnostic[];
  readonly syntax: DialectName;
}

interface Read {
  readonly bindings: Binding[];
  readonly locations: BindingLocation[];
}

function spanOf(context: Context, node: YamlNode): Span {
  const range = isNode(node) ? node.range : undefined;
  return { file: context.source.name, start: range?.[0] ?? 0, end: range?.[1] ?? 0 };
}

function report(context: Context, problem: BindingsProblem, node: YamlNode): void {
  context.diagnostics.push(bindingsDiagnostic(problem, spanOf(context, node)));
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
  const parsed = readSignature(raw);
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
      report(context, { code: "P705", kind: "unknown-section", key: unknown }, pair?.key ?? at);
    }
    if (issue.code !== "unrecognized_keys") {
      report(context, { code: "P701", kind: "document-not-mapping" }, at);
    }
  } else if (key === undefined) {
    const known = section === "facts" || section === "keys" ? section : "sql_types";
    report(context, { code: "P701", kind: "section-not-mapping", section: known }, at);
  } else if (section === "sql_types") {
    report(context, { code: "P701", kind: "sql-type-not-string", type: key }, at);
  } else if (section === "keys") {
    report(context, { code: "P701", kind: "key-not-columns", table: key }, at);
  } else {
    const signature = displaySignature(key);
    for (const unknown of unknownKeys) {
      report(context, { code: "P705", kind: "unknown-binding-key", key: unknown, signature }, at);
    }
    if (issue.code === "unrecognized_keys") return;
    const kind =
      input === undefined || input === null
        ? "binding-without-query"
        : path.length === 2
          ? "binding-not-mapping"
          : "query-not-string";
    report(context, { code: "P701", kind, signature }, at);
  }
}

function readFacts(context: Context, facts: YAMLMap): Read {
  const bindings: Binding[] = [];
  const locations: BindingLocation[] = [];
  const seen = new Set<string>();
  for (const pair of facts.items) {
    const signatureText = keyText(context, pair.key);
    const parsed = readSignature(signatureText);
    if (parsed.kind === "error") {
      report(context, parsed.problem, pair.key);
      continue;
    }
    const signature = formatSignature(parsed.predicate, parsed.slots);
    if (seen.has(signature)) {
      report(context, { code: "P701", kind: "duplicate-binding", signature }, pair.key);
      continue;
    }
    seen.add(signature);
    const body = bindingBodySchema.safeParse(toJS(context, pair.value));
    if (!body.success) continue; // reported by the shape check
    const query = readBindingQuery(body.data.query, context.syntax);
    if (query.kind === "error") {
      const problem = {
        code: "P701",
        kind: "invalid-query",
        signature,
        defect: query.defect,
      } as const;
      report(context, problem, pair.key);
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
      report(context, { code: "P701", kind: "invalid-type-name", type }, pair.key);
    } else if (isPrimitiveType(type) || isAbstractType(type)) {
      const abstract = !isPrimitiveType(type);
      report(context, { code: "P701", kind: "sql-type-for-builtin", type, abstract }, pair.key);
    } else if (types.has(type)) {
      report(context, { code: "P701", kind: "duplicate-sql-type", type }, pair.key);
    } else if (typeof sqlType === "string" && normalized === null) {
      report(context, { code: "P701", kind: "invalid-sql-type", sqlType, type }, pair.key);
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
      report(context, { code: "P701", kind: "invalid-key-table", table }, pair.key);
    } else if (read.has(name)) {
      report(context, { code: "P701", kind: "duplicate-key-table", table }, pair.key);
    } else if (columns?.every((column) => typeof column === "string")) {
      const names = columns.map((column) => {
        const canonical = tableName(column, context.syntax);
        // A column is one name, not `table.column`.
        return canonical !== null && JSON.parse(canonical).length === 1 ? canonical : null;
      });
      const bad = columns.find((_, i) => names[i] === null);
      if (bad !== undefined) {
        report(context, { code: "P701", kind: "invalid-key-column", column: bad, table }, pair.key);
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
  const syntax = options.syntax ?? DEFAULT_DIALECT;
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
      data: {
        bindings: facts.bindings,
        sqlTypes,
        keys,
        ...(syntax !== DEFAULT_DIALECT && { syntax }),
      },
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
    const reason = lowerFirst(yamlError.message.split("\n")[0]!);
    const span = { file: source.name, start, end };
    context.diagnostics.push(
      bindingsDiagnostic({ code: "P704", kind: "invalid-yaml", reason }, span),
    );
  }
  if (context.diagnostics.length > 0) return done();
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (thrown) {
    const reason = lowerFirst((thrown as Error).message);
    report(context, { code: "P704", kind: "invalid-yaml", reason }, doc.contents);
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
      report(context, { code: "P701", kind: "duplicate-section", section }, pair.key);
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
