/**
 * From a cached plan to SQL for one request: resolve the request's values (params, central and
 * context facts, the clock), merge keyed scans, lower to the SQL tree and print it in the
 * dialect. When nothing but params and the clock differs between requests of a shape, the
 * statement is printed once as a template and each request only fills in its values. Literal
 * statements of plans that read no clock go further: requests whose central and context rows
 * differ only in the ids of free values share a template too (free-values.ts).
 */
import type { OperationNode } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import { type GroundFact, isPrimitiveType, type Value } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { DEFAULT_DIALECT, DIALECTS } from "../dialects/registry.js";
import { type Lowered, lowerStatement, type Shape } from "../lower/lower.js";
import { isSqlIds, type SqlIds, type SqlValue } from "../lower/sql-value.js";
import { type Branch, isSubquery, type Plan, type SourceRef, type Term } from "../plan/ir.js";
import { type CentralFacts, factRows, NO_CENTRAL_FACTS } from "../plan/resolve/central-facts.js";
import { resolvePlan } from "../plan/resolve/resolve.js";
import { factsFor } from "../plan/resolve/rows.js";
import { conditionTerms } from "../plan/resolve/runtime.js";
import { mergeKeyedScans } from "../plan/resolve/scans.js";
import { mapBranch } from "../plan/rewrite.js";
import type { SourceFile } from "../source/source.js";
import { type FreeValues, freeValues, lookupAnswers } from "./free-values.js";
import { printTree, type ValueRuntime } from "./printer.js";
import { fillTemplate, parameterTexts, type Template, templateOf } from "./template.js";

interface PrintOptions {
  /** The policy's files: a refusal of the dialect points into them (its rule's span). */
  readonly sources: readonly SourceFile[];
  /** The engine the statement is for; the default dialect when absent. */
  readonly dialect?: Dialect;
  readonly central?: CentralFacts;
  readonly contextFacts?: readonly GroundFact[];
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
  /**
   * `parameters` writes every value as a cast placeholder (`$1`, …) and returns the values
   * apart: the central store prepares one statement per text. Only for bindings whose columns
   * have the SQL types of their Polar types (as the fact table's do). Literals by default.
   */
  readonly writing?: "literals" | "parameters";
  /** False prints afresh, neither reusing nor keeping a text printed for the shape. */
  readonly cacheText?: boolean;
}

/** SQL text, and the parameter values when printed with parameters. */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly string[];
  /**
   * The most ids one array parameter holds; absent when no parameter holds a param list. The
   * same text serves any number of ids, so a long list had better be planned for its length
   * than run by a prepared statement's generic plan, made for no length in particular
   * (bench/RESULTS.md, "Id lists as one array parameter").
   */
  readonly longestList?: number;
}

/** What printing answers when central facts are incomplete: nothing to run. */
const UNUSED_STATEMENT: Statement = { sql: "", parameters: [] };

function systemNow(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

/** The request's values, and where the plan's constants are written for a refusal of one. */
function valueRuntime(
  plan: Plan,
  params: ReadonlyMap<string, readonly string[]>,
  options: PrintOptions,
): ValueRuntime {
  const spans = { constants: plan.constants ?? [], sources: options.sources };
  return { params, now: (options.now ?? systemNow)(), spans };
}

/**
 * Whether a value can be written for a column of its type in this dialect (else it matches
 * nothing). Answers are kept per bindings: central facts recur in every request.
 */
function renderableIn(bindings: DataBindings, dialect: Dialect): (value: Value) => boolean {
  let byDialect = renderableCache.get(bindings);
  if (!byDialect) {
    byDialect = new Map();
    renderableCache.set(bindings, byDialect);
  }
  const kept = byDialect.get(dialect.name);
  if (kept) return kept;
  // One function per bindings and dialect: resolution keeps work per function (rows.ts).
  const known = new Map<string, boolean>();
  const renderable = (value: Value) => {
    const key = `${value.type}\u0000${value.id}`;
    let answer = known.get(key);
    if (answer === undefined) {
      answer = dialect.canWrite(value, bindings.sqlTypes.get(value.type));
      if (known.size >= MAX_RENDERABLE_ANSWERS) known.clear();
      known.set(key, answer);
    }
    return answer;
  };
  byDialect.set(dialect.name, renderable);
  return renderable;
}

/**
 * Whether a value, appended to a binding's rows, is read safely as its column's type: typed
 * values are, and ids without `sql_types` that the dialect compares untyped.
 */
function unionSafeIn(bindings: DataBindings, dialect: Dialect): (value: Value) => boolean {
  // One function per bindings and dialect: splitting rows keeps its work per function.
  let byDialect = unionSafeCache.get(bindings);
  if (!byDialect) {
    byDialect = new Map();
    unionSafeCache.set(bindings, byDialect);
  }
  let test = byDialect.get(dialect.name);
  if (!test) {
    test = (value) =>
      isPrimitiveType(value.type) ||
      bindings.sqlTypes.has(value.type) ||
      (dialect.comparesUntyped?.(value.id) ?? false);
    byDialect.set(dialect.name, test);
  }
  return test;
}

const unionSafeCache = new WeakMap<DataBindings, Map<string, (value: Value) => boolean>>();

const renderableCache = new WeakMap<DataBindings, Map<string, (value: Value) => boolean>>();
const MAX_RENDERABLE_ANSWERS = 20_000;

/**
 * The statement for `plan` with this request's values.
 *
 *   printPlan(plan, bindings, new Map([["actor", ["17"]]]), { kind: "exists", column: "allowed" },
 *     { sources: program.sources })
 *   // { sql: "with\n  polar_c0(arg0) as not materialized (…)\n select exists (…) as allowed", parameters: [] }
 */
export function printPlan(
  plan: Plan,
  bindings: DataBindings,
  params: ReadonlyMap<string, readonly string[]>,
  shape: Shape,
  options: PrintOptions,
): Statement {
  const dialect = options.dialect ?? DIALECTS[DEFAULT_DIALECT];
  const runtime = valueRuntime(plan, params, options);
  const renderable = renderableIn(bindings, dialect);
  const facts = factRows(options.central ?? NO_CENTRAL_FACTS, options.contextFacts ?? []);
  const writing = options.writing ?? "literals";
  // Parameters: a param list is one array parameter where the dialect reads arrays.
  const idArrays =
    writing === "parameters" &&
    dialect.idsTable !== undefined &&
    dialect.idsParameter !== undefined;
  // Null when some central lookup went unanswered: the caller loads it and asks again, so
  // the statement would not be used (src/core/central-facts.ts).
  const lower = (): Lowered | null => {
    const resolved = resolvePlan(plan, {
      ...runtime,
      facts,
      renderable,
      bindings,
      strictOutputs: shape.kind === "select",
      unionSafe: unionSafeIn(bindings, dialect),
      sources: options.sources,
      idArrays,
    });
    if (options.central?.complete?.() === false) return null;
    const scans = mergeKeyedScans(resolved, bindings);
    return lowerStatement(
      scans.plan,
      plan.outputs,
      scans.bindings,
      shape,
      dialect,
      options.sources,
    );
  };
  const answers =
    writing === "literals" && options.cacheText !== false
      ? lookupAnswers(plan, bindings, { ...runtime, facts })
      : null;
  if (answers) {
    if (options.central?.complete?.() === false) return UNUSED_STATEMENT;
    const comparesUntyped = (id: string) => dialect.comparesUntyped?.(id) ?? false;
    const free = freeValues(answers, params, { renderable, comparesUntyped });
    if (free) return printWithFreeValues(plan, shape, dialect, runtime, free, lower);
  }
  const cacheable =
    options.cacheText !== false &&
    sameTextForEveryValue(plan, params, { facts, bindings, ...runtime }, idArrays, (value) =>
      // Asked directly: a request's ids rarely recur, and keeping each answer cost more
      // (~3 µs an id) than the check itself (`renderable` keeps central facts' answers).
      dialect.canWrite(value, bindings.sqlTypes.get(value.type)),
    );
  if (!cacheable) {
    const lowered = lower();
    if (!lowered) return UNUSED_STATEMENT;
    if (writing === "literals")
      return { sql: literalText(dialect, lowered, runtime), parameters: [] };
    const { node, callerNames } = lowered;
    const printed = printTree(dialect, node, { kind: "parameters" }, callerNames, runtime.spans);
    return {
      sql: printed.sql,
      parameters: parameterTexts(dialect, printed.parameters, runtime),
      ...withLongestList(printed.parameters, params),
    };
  }
  // Print once per shape; then each request only writes its values into the text.
  const key = templateKey(dialect, writing, shape, params, idArrays ? listParams(plan) : NO_LISTS);
  let templates = printedTemplates.get(plan);
  if (!templates) {
    templates = new Map();
    printedTemplates.set(plan, templates);
  }
  let template = templates.get(key);
  if (template === undefined) {
    const lowered = lower();
    if (!lowered) return UNUSED_STATEMENT;
    const { node, callerNames } = lowered;
    const how = writing === "literals" ? TEMPLATE : PARAMETERS;
    template = templateOf(writing, printTree(dialect, node, how, callerNames, runtime.spans));
    // A text printed while central lookups went unanswered may be wrong: use it, keep it not.
    if (options.central?.complete?.() !== false) {
      if (templates.size >= MAX_TEMPLATES_PER_PLAN) templates.clear();
      templates.set(key, template);
    }
  }
  const filled = fillTemplate(dialect, template, runtime);
  return template.kind === "parameters"
    ? { ...filled, ...withLongestList(template.values, params) }
    : filled;
}

/**
 * What decides a parameters or literals template's text besides the plan: the dialect, the
 * writing, the shape, and for each param whether each id compares untyped (the text around it
 * differs, src/lower/untyped-ids.ts), or for a param read as one array only whether it has ids.
 * Every part is length-prefixed, so no two different keys are equal (a `filter` column is the
 * caller's SQL, any text). Built per request: no JSON of the shape and params.
 */
export function templateKey(
  dialect: Dialect,
  writing: "literals" | "parameters",
  shape: Shape,
  params: ReadonlyMap<string, readonly string[]>,
  arrays: ReadonlySet<string>,
): string {
  let key = `${dialect.name}|${writing}|${shapeKey(shape)}`;
  for (const [name, ids] of params) {
    let flags = "";
    if (arrays.has(name)) flags = ids.length > 0 ? "a" : "0";
    else for (const id of ids) flags += dialect.comparesUntyped?.(id) ? "u" : "t";
    key += `|${name.length}:${name}${flags.length}:${flags}`;
  }
  return key;
}

function shapeKey(shape: Shape): string {
  switch (shape.kind) {
    case "exists":
      return `e${shape.column}`;
    case "actions":
      return "a";
    case "filter":
      return `f${shape.column.length}:${shape.column}`;
    case "select":
      return `s${JSON.stringify(shape.names)}`;
    case "page":
      return `p${JSON.stringify([shape.after, shape.limit])}`;
    default: {
      const _never: never = shape;
      return _never;
    }
  }
}

const TEMPLATE = { kind: "template", free: new Map<string, number>() } as const;
const PARAMETERS = { kind: "parameters" } as const;

function literalText(dialect: Dialect, lowered: Lowered, runtime: ValueRuntime): string {
  const { node, callerNames } = lowered;
  return printTree(dialect, node, { kind: "literals", runtime }, callerNames, runtime.spans).sql;
}

/**
 * The statement of a request whose lookups are all answered, from the template printed for
 * its key (print/free-values.ts); printed first when there is none. Null in the map: the key's
 * text cannot be a template (a literal composed of free values), so it is printed every time.
 */
function printWithFreeValues(
  plan: Plan,
  shape: Shape,
  dialect: Dialect,
  runtime: ValueRuntime,
  free: FreeValues,
  lower: () => Lowered | null,
): Statement {
  const key = `${dialect.name}\u0000${JSON.stringify(shape)}\u0000${free.key}`;
  let templates = freeTemplates.get(plan);
  if (!templates) {
    templates = new Map();
    freeTemplates.set(plan, templates);
  }
  const known = templates.get(key);
  if (known) return fillTemplate(dialect, known, runtime, free.values);
  const lowered = lower();
  if (!lowered) return UNUSED_STATEMENT;
  if (known === undefined) {
    const how = { kind: "template", free: free.indexes } as const;
    const printed = printTree(dialect, lowered.node, how, lowered.callerNames, runtime.spans);
    const template = printed.templatable ? templateOf("literals", printed) : null;
    // The oldest key goes first: a plan meets a few dozen keys over and over.
    if (templates.size >= MAX_FREE_TEMPLATES_PER_PLAN) {
      templates.delete(templates.keys().next().value!);
    }
    templates.set(key, template);
    if (template) return fillTemplate(dialect, template, runtime, free.values);
  }
  return { sql: literalText(dialect, lowered, runtime), parameters: [] };
}

const freeTemplates = new WeakMap<Plan, Map<string, Template | null>>();
const MAX_FREE_TEMPLATES_PER_PLAN = 256;

/** `longestList` of a statement whose parameters are these. */
function withLongestList(
  values: readonly (SqlValue | SqlIds)[],
  params: ReadonlyMap<string, readonly string[]>,
): { longestList?: number } {
  let longest: number | undefined;
  for (const value of values) {
    if (isSqlIds(value)) longest = Math.max(longest ?? 0, params.get(value.name)?.length ?? 0);
  }
  return longest === undefined ? {} : { longestList: longest };
}

/**
 * The lowered statement for `plan` with this request's values, as a tree for composing into a
 * caller's Kysely query (values are still plan values; see compose.ts).
 */
export function lowerPlan(
  plan: Plan,
  bindings: DataBindings,
  params: ReadonlyMap<string, readonly string[]>,
  shape: Shape,
  options: PrintOptions,
): { node: OperationNode; runtime: ValueRuntime } {
  const dialect = options.dialect ?? DIALECTS[DEFAULT_DIALECT];
  const runtime = valueRuntime(plan, params, options);
  const resolved = resolvePlan(plan, {
    ...runtime,
    facts: factRows(options.central ?? NO_CENTRAL_FACTS, options.contextFacts ?? []),
    renderable: renderableIn(bindings, dialect),
    bindings,
    strictOutputs: shape.kind === "select",
    unionSafe: unionSafeIn(bindings, dialect),
    sources: options.sources,
  });
  const scans = mergeKeyedScans(resolved, bindings);
  const { node } = lowerStatement(
    scans.plan,
    plan.outputs,
    scans.bindings,
    shape,
    dialect,
    options.sources,
  );
  return { node, runtime };
}

const printedTemplates = new WeakMap<Plan, Map<string, Template>>();
const MAX_TEMPLATES_PER_PLAN = 16;

/** What resolving a plan reads besides params and the clock, when that is all it reads. */
interface ValueReads {
  readonly paramTypes: ReadonlyMap<string, string>;
  /** Params read as lists (`param` sources): rows of their ids unless `idArrays`. */
  readonly lists: ReadonlySet<string>;
  /** Sources of central and context facts, with the branch that filters them. */
  readonly facts: readonly { readonly branch: Branch; readonly ref: SourceRef }[];
}

const valueReads = new WeakMap<Plan, ValueReads | null>();

/**
 * Whether, with every value written as a parameter or a template slot, this request prints
 * the same text as any other of its shape. Resolution then keeps or drops parts of the plan
 * by shape alone: no param list rows and no condition decided from params or the clock alone
 * (checked once per plan), no central or context fact rows for any source (asked exactly as
 * resolution asks), and every param id writable. Param lists print the same text only as
 * array parameters (`idArrays`).
 */
function sameTextForEveryValue(
  plan: Plan,
  params: ReadonlyMap<string, readonly string[]>,
  runtime: Parameters<typeof factsFor>[2],
  idArrays: boolean,
  writable: (value: Value) => boolean,
): boolean {
  const reads = readsOfPlan(plan);
  if (!reads || (reads.lists.size > 0 && !idArrays)) return false;
  for (const [name, type] of reads.paramTypes) {
    for (const id of params.get(name) ?? []) if (!writable({ type, id })) return false;
  }
  return reads.facts.every(({ branch, ref }) => factsFor(branch, ref, runtime).length === 0);
}

function readsOfPlan(plan: Plan): ValueReads | null {
  let reads = valueReads.get(plan);
  if (reads === undefined) {
    reads = readsOf(plan);
    valueReads.set(plan, reads);
  }
  return reads;
}

/** The params a plan reads as lists (a template key reads it only after the plan's reads). */
function listParams(plan: Plan): ReadonlySet<string> {
  return readsOfPlan(plan)?.lists ?? NO_LISTS;
}

const NO_LISTS: ReadonlySet<string> = new Set();

function readsOf(plan: Plan): ValueReads | null {
  const paramTypes = new Map<string, string>();
  const lists = new Set<string>();
  const facts: ValueReads["facts"][number][] = [];
  const collect = {
    alias: (alias: string) => alias,
    term: (term: Term) => {
      if (term.kind === "param") paramTypes.set(term.name, term.type);
      return term;
    },
  };
  const shapeOnly = (branch: Branch): boolean => {
    for (const ref of branch.sources) {
      const source = ref.source;
      switch (source.kind) {
        case "facts":
          facts.push({ branch, ref });
          break;
        case "binding":
          if (source.rows) return false;
          if (source.facts) facts.push({ branch, ref });
          break;
        case "param":
          lists.add(source.name);
          break;
        case "values":
          return false;
        default:
          break;
      }
    }
    for (const condition of branch.conditions) {
      if (isSubquery(condition)) {
        if (!condition.branches.every(shapeOnly)) return false;
        continue;
      }
      const { terms } = conditionTerms(condition)!;
      const decided = terms.every(
        (t) => t.kind === "literal" || t.kind === "param" || t.kind === "builtin",
      );
      if (decided && terms.some((t) => t.kind !== "literal")) return false;
    }
    return true;
  };
  const branches = [...plan.branches, ...plan.ctes.flatMap((c) => [...c.seeds, ...c.steps])];
  for (const branch of branches) {
    mapBranch(branch, collect);
    if (!shapeOnly(branch)) return null;
  }
  return { paramTypes, lists, facts };
}
