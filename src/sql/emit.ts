/**
 * Prints a resolved plan as one PostgreSQL statement or fragment (api-and-local-sql §5.2),
 * built with Kysely's `sql` template. Literals come only from `literal.ts`; generated names
 * (`polar_c0`, `f0`, `arg1`) are fixed ASCII; the caller's column text is pasted verbatim.
 */
import { type RawBuilder, sql } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import { isPrimitiveType, type Value } from "../core/value.js";
import type {
  Branch,
  Condition,
  CteColumn,
  LiteralTerm,
  Output,
  ParamTerm,
  PlanOutput,
  RecursiveCte,
  SourceRef,
  Term,
  TimeTerm,
} from "../plan/ir.js";
import { argColumn, termType } from "../plan/ir.js";
import {
  quoteIdentifier,
  renderParameter,
  renderTypedLiteral,
  renderTypedNull,
  renderValue,
  sqlTypeOf,
} from "./literal.js";
import { type ResolvedPlan, staticValue } from "./resolve.js";

/** What the statement returns. */
export type Shape =
  /** One row, one boolean column (`allowed` for authorize_query, `result` for select mode). */
  | { readonly kind: "exists"; readonly column: "allowed" | "result" }
  /** One row per distinct value of the single output, column `actions`. */
  | { readonly kind: "actions" }
  /** `<column> IN (…)` over the single output. */
  | { readonly kind: "filter"; readonly column: string }
  /** Distinct rows, one named column per output. */
  | { readonly kind: "select"; readonly names: readonly string[] };

type Sql = RawBuilder<unknown>;

/** Where a parameter's value comes from: a constant, a question param, or the clock. */
export type ValueOrigin = LiteralTerm | ParamTerm | TimeTerm;

/**
 * How request values are written, when not as inlined literals: as `$n` parameters (`$1`
 * first, with their origins), or as marks `TEMPLATE_MARK n TEMPLATE_MARK` for slot `n`, where
 * a printed template takes each request's literals.
 */
export type ValueWriting =
  | { readonly kind: "parameters"; readonly values: string[]; readonly origins: ValueOrigin[] }
  | { readonly kind: "template"; readonly slots: TemplateSlot[] };

export interface TemplateSlot {
  readonly origin: ValueOrigin;
  /** Written with `renderTypedLiteral` rather than `renderValue`. */
  readonly typed: boolean;
}

/** Cannot occur in a statement: PostgreSQL text holds no NUL (callers' text is checked). */
export const TEMPLATE_MARK = "\u0000";

const raw = (text: string): Sql => sql.raw(text);
const join = (parts: readonly Sql[], separator: string): Sql => sql.join(parts, raw(separator));

interface Context {
  readonly bindings: DataBindings;
  readonly plan: ResolvedPlan;
  readonly outputs: readonly PlanOutput[];
  readonly shape: Shape;
  /** Names of the binding CTEs by binding index, and of the recursive CTEs by plan index. */
  readonly bindingNames: ReadonlyMap<number, string>;
  readonly cteNames: ReadonlyMap<number, string>;
  readonly aliasPrefix: string;
  /** Rendered literals of this statement (the same ids recur in many branches). */
  readonly literals: Map<string, string>;
  /** How request values are written; inlined literals when undefined. */
  readonly writing: ValueWriting | undefined;
}

/**
 * The statement for a resolved plan.
 *
 *   emitStatement(resolved, plan.outputs, bindings, { kind: "exists", column: "allowed" })
 *   // SELECT EXISTS (SELECT 1 FROM polar_c0 AS f0 WHERE f0.arg0 = 17) AS allowed
 */
export function emitStatement(
  plan: ResolvedPlan,
  outputs: readonly PlanOutput[],
  bindings: DataBindings,
  shape: Shape,
  writing?: ValueWriting,
): Sql {
  const context = namesFor(plan, outputs, bindings, shape, writing);
  switch (shape.kind) {
    case "exists":
      return emitExists(context, shape.column);
    case "actions":
      return emitActions(context);
    case "filter":
      return emitFilter(context, shape.column);
    case "select":
      return emitSelect(context, shape.names);
    default: {
      const _never: never = shape;
      return _never;
    }
  }
}

// ---------------------------------------------------------------- names

function usedBindings(plan: ResolvedPlan): number[] {
  const used: number[] = [];
  const visit = (branch: Branch) => {
    for (const ref of branch.sources) {
      if (ref.source.kind === "binding" && !used.includes(ref.source.binding)) {
        used.push(ref.source.binding);
      }
    }
    for (const condition of branch.conditions) {
      if (condition.kind === "not_exists") condition.branches.forEach(visit);
    }
  };
  for (const cte of plan.ctes) if (cte) [...cte.seeds, ...cte.steps].forEach(visit);
  plan.branches.forEach(visit);
  return used;
}

function identifierTokens(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9_$]+/)
      .filter(Boolean),
  );
}

const lowercased = new WeakMap<DataBindings, readonly string[]>();

function lowercaseQueries(bindings: DataBindings): readonly string[] {
  let queries = lowercased.get(bindings);
  if (!queries) {
    queries = bindings.bindings.map((binding) => binding.query.toLowerCase());
    lowercased.set(bindings, queries);
  }
  return queries;
}

function namesFor(
  plan: ResolvedPlan,
  outputs: readonly PlanOutput[],
  bindings: DataBindings,
  shape: Shape,
  writing: ValueWriting | undefined,
): Context {
  const used = usedBindings(plan);
  const queries = lowercaseQueries(bindings);
  let prefix = "polar_";
  for (let n = 1; used.some((i) => queries[i]!.includes(prefix)); n++) prefix = `polar${n}_`;
  const bindingNames = new Map(used.map((index, n) => [index, `${prefix}c${n}`]));
  const cteNames = new Map<number, string>();
  plan.ctes.forEach((cte, index) => {
    if (cte) cteNames.set(index, `${prefix}r${cteNames.size}`);
  });
  // Our aliases must not capture the caller's column text inside correlated subqueries.
  const clash =
    shape.kind === "filter" &&
    [...identifierTokens(shape.column)].some((t) => /^(f\d+|q\d+|rec|step)$/.test(t));
  return {
    bindings,
    plan,
    outputs,
    shape,
    bindingNames,
    cteNames,
    aliasPrefix: clash ? prefix : "",
    literals: new Map(),
    writing,
  };
}

function withClause(context: Context): Sql | null {
  const parts: string[] = [];
  for (const [index, name] of context.bindingNames) {
    const binding = context.bindings.bindings[index]!;
    const columns = binding.slots.flatMap((slot, i) => (slot.kind === "column" ? [`arg${i}`] : []));
    const header = columns.length > 0 ? `${name}(${columns.join(", ")})` : name;
    // The line break ends a trailing `--` comment of the binding query before our `)`.
    parts.push(`  ${header} AS NOT MATERIALIZED (${binding.query}\n  )`);
  }
  let recursive = false;
  context.plan.ctes.forEach((cte, index) => {
    if (!cte) return;
    recursive ||= cte.steps.length > 0;
    parts.push(recursiveCteText(context, cte, context.cteNames.get(index)!));
  });
  if (parts.length === 0) return null;
  return raw(`${recursive ? "WITH RECURSIVE\n" : "WITH\n"}${parts.join(",\n")}\n`);
}

function withPrefix(context: Context, body: Sql): Sql {
  const clause = withClause(context);
  return clause ? sql`${clause}${body}` : body;
}

// ---------------------------------------------------------------- terms

function sqlTypeFor(context: Context, type: string): string | undefined {
  return context.bindings.sqlTypes.get(type);
}

function alias(context: Context, name: string): string {
  return `${context.aliasPrefix}${name}`;
}

/**
 * A value's SQL: a literal (untyped, or `typed` where PostgreSQL cannot infer a type), a `$n`
 * parameter, or a template mark. Parameters and marks are shared by origin (a param or the
 * clock is one `$n` however often it is read), literals by value.
 */
function valueSql(
  context: Context,
  value: Value,
  origin: ValueOrigin = { kind: "literal", value },
  typed = false,
): string {
  const writing = context.writing;
  const variable = origin.kind !== "literal";
  const originKey = origin.kind === "param" ? `\u0001${origin.name}` : "\u0002";
  const valueKey = `${value.type}\u0000${value.id}`;
  const key =
    writing?.kind === "parameters"
      ? variable
        ? originKey
        : valueKey
      : writing?.kind === "template" && variable
        ? `${originKey}${typed ? "t" : ""}`
        : `${typed ? "t" : ""}${valueKey}`;
  let text = context.literals.get(key);
  if (text === undefined) {
    const sqlType = sqlTypeFor(context, value.type);
    let rendered: string | null;
    if (writing?.kind === "parameters") {
      rendered = renderParameter(value, sqlType, writing.values);
      if (rendered !== null) writing.origins.push(origin);
    } else if (writing?.kind === "template" && variable) {
      writing.slots.push({ origin, typed });
      rendered = `${TEMPLATE_MARK}${writing.slots.length - 1}${TEMPLATE_MARK}`;
    } else {
      rendered = typed ? renderTypedLiteral(value, sqlType) : renderValue(value, sqlType);
    }
    if (rendered === null)
      throw new Error(`internal: unrenderable literal ${value.type} ${value.id}`);
    text = rendered;
    context.literals.set(key, text);
  }
  return text;
}

const literalSql = (context: Context, value: Value, origin?: ValueOrigin) =>
  valueSql(context, value, origin, false);

/** Parameters always carry their type; literals get one where PostgreSQL cannot infer it. */
const typedLiteralSql = (context: Context, value: Value, origin?: ValueOrigin) =>
  valueSql(context, value, origin, true);

function termSql(context: Context, term: Term): string {
  switch (term.kind) {
    case "column":
      return `${alias(context, term.alias)}.${term.column}`;
    case "literal":
      return literalSql(context, term.value);
    case "outer":
      if (context.shape.kind !== "filter")
        throw new Error("internal: caller column outside filter mode");
      return context.shape.column;
    case "param":
    case "time":
      return literalSql(context, staticValue(term, context.plan)!, term);
    case "null":
      return renderTypedNull(term.type, sqlTypeFor(context, term.type));
    case "input":
      throw new Error(`internal: unresolved ${term.kind} term`);
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

/** A value in a select list, where PostgreSQL cannot infer literal types. */
function selectedSql(context: Context, output: Output, type: string): string {
  if (output.kind === "any") return renderTypedNull(type, sqlTypeFor(context, type));
  const value = staticValue(output, context.plan);
  if (value) return typedLiteralSql(context, value, output as ValueOrigin);
  return termSql(context, output);
}

/** A CTE column value, cast to the column's SQL type when it is known (or a literal). */
function cteValueSql(context: Context, output: Output, column: CteColumn): string {
  if (output.kind === "any") throw new Error("internal: wildcard in a recursive CTE");
  const declared = sqlTypeFor(context, column.type);
  const text =
    output.kind === "literal" ? literalSql(context, output.value) : termSql(context, output);
  if (
    output.kind === "null" ||
    (declared === undefined && !isPrimitiveType(column.type) && output.kind !== "literal")
  )
    return text;
  return `CAST(${text} AS ${sqlTypeOf(column.type, declared)})`;
}

// ---------------------------------------------------------------- branches
// A branch is printed as one piece of text (every part is generated or rendered by
// literal.ts); Kysely's `sql` assembles the statement from the pieces.

function conditionText(context: Context, condition: Condition): string {
  switch (condition.kind) {
    case "compare": {
      const op = condition.op === "!=" ? "<>" : condition.op;
      const ordering = op !== "=" && op !== "<>";
      // Code point order, as the evaluator compares strings (reference §5).
      const collate = ordering && termType(condition.left) === "String" ? ' COLLATE "C"' : "";
      return `${termSql(context, condition.left)}${collate} ${op} ${termSql(context, condition.right)}`;
    }
    case "in":
      return `${termSql(context, condition.term)} IN (${condition.values.map((v) => termSql(context, v)).join(", ")})`;
    case "not_exists":
      return `NOT EXISTS (${condition.branches.map((b) => branchText(context, b, ["1"])).join(" UNION ALL ")})`;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

function sourceText(context: Context, ref: SourceRef): string {
  const name = alias(context, ref.alias);
  const source = ref.source;
  switch (source.kind) {
    case "binding": {
      const cte = context.bindingNames.get(source.binding)!;
      if (!source.rows?.length) return `${cte} AS ${name}`;
      const columns = context.bindings.bindings[source.binding]!.slots.flatMap((slot, i) =>
        slot.kind === "column" ? [`arg${i}`] : [],
      );
      return `(SELECT * FROM ${cte} UNION ALL ${bindingRowsText(context, source.rows)}) AS ${name}(${columns.join(", ")})`;
    }
    case "cte":
      return `${context.cteNames.get(source.cte)!} AS ${name}`;
    case "values": {
      const rows = source.rows.map(
        (row) => `(${row.map((value) => typedLiteralSql(context, value)).join(", ")})`,
      );
      return `(VALUES ${rows.join(", ")}) AS ${name}(${source.columns.map((c) => c.name).join(", ")})`;
    }
    case "facts":
    case "param":
    case "recref":
    case "reccall":
      throw new Error(`internal: unresolved ${source.kind} source`);
    default: {
      const _never: never = source;
      return _never;
    }
  }
}

/**
 * `SELECT v, … UNION ALL SELECT …` for fact rows read with a binding. Untyped literals take
 * the types of the binding's columns in the UNION. Printed with literals, the text depends
 * only on the rows and the SQL types: kept per rows array (the same central rows recur in
 * every request that reads them).
 */
function bindingRowsText(context: Context, rows: readonly (readonly Value[])[]): string {
  const print = () =>
    rows
      .map((row) => `SELECT ${row.map((v) => literalSql(context, v)).join(", ")}`)
      .join(" UNION ALL ");
  if (context.writing?.kind === "parameters") return print();
  let byBindings = rowsTexts.get(rows);
  if (!byBindings) {
    byBindings = new WeakMap();
    rowsTexts.set(rows, byBindings);
  }
  let text = byBindings.get(context.bindings);
  if (text === undefined) {
    text = print();
    byBindings.set(context.bindings, text);
  }
  return text;
}

const rowsTexts = new WeakMap<object, WeakMap<DataBindings, string>>();

/**
 * `IS NOT NULL` for binding columns no top-level condition constrains: a row holding NULL
 * matches nothing (api-and-local-sql §4.1), also when the column is only output or unused.
 */
function nullGuards(context: Context, branch: Branch): string[] {
  const constrains = (alias: string, column: string) => {
    const is = (term: Term) =>
      term.kind === "column" && term.alias === alias && term.column === column;
    return branch.conditions.some((c) =>
      c.kind === "compare" ? is(c.left) || is(c.right) : c.kind === "in" && is(c.term),
    );
  };
  const guards: string[] = [];
  for (const ref of branch.sources) {
    if (ref.source.kind !== "binding") continue;
    const slots = context.bindings.bindings[ref.source.binding]!.slots;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i]!.kind === "column" && !constrains(ref.alias, argColumn(i))) {
        guards.push(`${alias(context, ref.alias)}.arg${i} IS NOT NULL`);
      }
    }
  }
  return guards;
}

/** `SELECT <list> [FROM …] [WHERE …]`; `leading` sources come first (a CTE's self reference). */
function branchText(
  context: Context,
  branch: Branch,
  list: readonly string[],
  leading: readonly string[] = [],
  distinct = false,
): string {
  const sources = [...leading, ...branch.sources.map((ref) => sourceText(context, ref))];
  const conditions = [
    ...branch.conditions.map((c) => conditionText(context, c)),
    ...nullGuards(context, branch),
  ];
  let text = `${distinct ? "SELECT DISTINCT " : "SELECT "}${list.join(", ")}`;
  if (sources.length > 0) text += ` FROM ${sources.join(", ")}`;
  if (conditions.length > 0) text += ` WHERE ${conditions.join(" AND ")}`;
  return text;
}

function branchSql(
  context: Context,
  branch: Branch,
  list: readonly string[],
  leading: readonly string[] = [],
  distinct = false,
): Sql {
  return raw(branchText(context, branch, list, leading, distinct));
}

function isTrivial(branch: Branch): boolean {
  return branch.sources.length === 0 && branch.conditions.length === 0;
}

function recursiveCteText(context: Context, cte: RecursiveCte, name: string): string {
  const header = `${name}(${cte.columns.map((c) => c.name).join(", ")})`;
  const outputsOf = (branch: Branch) =>
    branch.outputs.map((output, i) => cteValueSql(context, output, cte.columns[i]!));
  const seeds = cte.seeds.map((seed) => branchText(context, seed, outputsOf(seed)));
  const self = `${name} AS ${alias(context, cte.self)}`;
  let body = seeds.join("\n  UNION ");
  if (cte.steps.length > 0) {
    // One recursive term (PostgreSQL allows one self reference) that runs every step for
    // each new row. `OFFSET 0` keeps each step a per-row subquery: PostgreSQL badly
    // overestimates recursive CTEs and would otherwise scan whole tables on every iteration
    // instead of probing their indexes with the row's values.
    const lateral = alias(context, "step");
    const columns = cte.columns.map((c) => c.name);
    const steps = cte.steps.map(
      (step) => `(${branchText(context, step, outputsOf(step))} OFFSET 0)`,
    );
    const list = columns.map((c) => `${lateral}.${c}`);
    const union = steps.length === 1 ? steps[0]!.slice(1, -1) : steps.join(" UNION ALL ");
    body += `\n  UNION SELECT ${list.join(", ")} FROM ${self} CROSS JOIN LATERAL (${union}) AS ${lateral}(${columns.join(", ")})`;
  }
  return `  ${header} AS (${body})`;
}

// ---------------------------------------------------------------- shapes

function emitExists(context: Context, column: "allowed" | "result"): Sql {
  const branches = context.plan.branches;
  if (branches.length === 0) return raw(`SELECT false AS ${column}`);
  if (branches.some(isTrivial)) return raw(`SELECT true AS ${column}`);
  const parts = branches.map((branch) => branchSql(context, branch, ["1"]));
  return withPrefix(context, sql`SELECT EXISTS (${join(parts, "\nUNION ALL ")}) AS ${raw(column)}`);
}

function emitActions(context: Context): Sql {
  const branches = context.plan.branches;
  if (branches.length === 0) return raw("SELECT CAST(NULL AS text) AS actions WHERE false");
  const type = context.outputs[0]!.type;
  const parts = branches.map((branch) => {
    const output = branch.outputs[0]!;
    const value = output.kind === "any" ? `CAST('*' AS text)` : selectedSql(context, output, type);
    return branchSql(context, branch, [value]);
  });
  return withPrefix(
    context,
    sql`SELECT DISTINCT a.actions FROM (${join(parts, "\nUNION ALL ")}) AS a(actions)`,
  );
}

function emitFilter(context: Context, column: string): Sql {
  const branches = context.plan.branches;
  const wildcard = (output: Output) => output.kind === "any" || output.kind === "outer";
  if (branches.length === 0) return raw(`${column} IN (SELECT ${column} WHERE false)`);
  if (branches.some((b) => isTrivial(b) && wildcard(b.outputs[0]!))) {
    return raw(`${column} IN (SELECT ${column})`);
  }
  const type = context.outputs[0]!.type;
  const parts = branches.map((branch) => {
    const output = branch.outputs[0]!;
    if (!wildcard(output)) return branchSql(context, branch, [selectedSql(context, output, type)]);
    // Every row of the caller qualifies when the branch holds: keep the correlated form.
    if (branch.sources.length === 0) {
      const conditions = branch.conditions.map((c) => conditionText(context, c));
      return raw(`SELECT ${column} WHERE ${conditions.join(" AND ")}`);
    }
    return raw(`SELECT ${column} WHERE EXISTS (${branchText(context, branch, ["1"])})`);
  });
  return sql`${raw(column)} IN (${withPrefix(context, join(parts, "\nUNION ALL "))})`;
}

function emitSelect(context: Context, names: readonly string[]): Sql {
  const branches = context.plan.branches;
  const quoted = names.map(quoteIdentifier);
  if (branches.length === 0) {
    const nulls = context.outputs.map(
      (output, i) =>
        `${renderTypedNull(output.type, sqlTypeFor(context, output.type))} AS ${quoted[i]}`,
    );
    return raw(`SELECT ${nulls.join(", ")} WHERE false`);
  }
  const parts = branches.map((branch) =>
    branchSql(
      context,
      branch,
      branch.outputs.map(
        (output, i) => `${selectedSql(context, output, context.outputs[i]!.type)} AS ${quoted[i]}`,
      ),
      [],
      branches.length === 1,
    ),
  );
  return withPrefix(context, join(parts, "\nUNION "));
}
