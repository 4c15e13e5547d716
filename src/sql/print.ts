/**
 * From a cached plan to SQL for one request: resolve the request's values (params, central
 * and context facts, the clock), then emit the statement with Kysely.
 */
import { type RawBuilder, sql } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { GroundFact, Value } from "../core/value.js";
import type { Branch, Plan, SourceRef, Term } from "../plan/ir.js";
import { mapBranch } from "../plan/rewrite.js";
import { type CentralFacts, factRows, NO_CENTRAL_FACTS } from "./central-facts.js";
import {
  emitStatement,
  type Shape,
  TEMPLATE_MARK,
  type TemplateSlot,
  type ValueOrigin,
  type ValueWriting,
} from "./emit.js";
import { postgres } from "./kysely.js";
import { LiteralError, parameterText, renderTypedLiteral, renderValue } from "./literal.js";
import { conditionTerms, resolvePlan, staticValue } from "./resolve.js";
import { factsFor } from "./rows.js";
import { mergeKeyedScans } from "./scans.js";

export interface PrintOptions {
  readonly central?: CentralFacts;
  readonly contextFacts?: readonly GroundFact[];
  /** Unix seconds for `@current_unix_time`; defaults to the system clock. */
  readonly now?: () => bigint;
  /**
   * Collects the statement's values as `$n` parameters instead of inlining them: the central
   * store prepares one statement per text. Only for bindings whose columns have the SQL types
   * of their Polar types (as the fact table's do).
   */
  readonly parameters?: string[];
  /** False prints afresh, neither reusing nor keeping a text printed for the shape. */
  readonly cacheText?: boolean;
}

function systemNow(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

/** Whether a literal for this value can exist in a column of its type (else it matches nothing). */
export function renderableIn(bindings: DataBindings): (value: Value) => boolean {
  let known = renderableCache.get(bindings);
  if (!known) {
    known = new Map();
    renderableCache.set(bindings, known);
  }
  const answers = known;
  return (value) => {
    const key = `${value.type}\u0000${value.id}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = isRenderable(value, bindings.sqlTypes.get(value.type));
      if (answers.size >= MAX_RENDERABLE_ANSWERS) answers.clear();
      answers.set(key, answer);
    }
    return answer;
  };
}

/** Answers of `renderableIn` per bindings: central facts recur in every request. */
const renderableCache = new WeakMap<DataBindings, Map<string, boolean>>();
const MAX_RENDERABLE_ANSWERS = 20_000;

function isRenderable(value: Value, sqlType: string | undefined): boolean {
  try {
    return renderValue(value, sqlType) !== null;
  } catch (error) {
    if (error instanceof LiteralError) return false;
    throw error;
  }
}

/**
 * The statement for `plan` with this request's values, as a Kysely expression.
 *
 *   printPlan(plan, bindings, new Map([["actor", ["17"]]]), { kind: "exists", column: "allowed" })
 */
export function printPlan(
  plan: Plan,
  bindings: DataBindings,
  params: ReadonlyMap<string, readonly string[]>,
  shape: Shape,
  options: PrintOptions = {},
): RawBuilder<unknown> {
  const now = (options.now ?? systemNow)();
  const renderable = renderableIn(bindings);
  const facts = factRows(options.central ?? NO_CENTRAL_FACTS, options.contextFacts ?? []);
  const emit = (writing?: ValueWriting) => {
    const resolved = resolvePlan(plan, {
      params,
      facts,
      now,
      renderable,
      bindings,
      strictOutputs: shape.kind === "select",
    });
    const scans = mergeKeyedScans(resolved, bindings);
    return emitStatement(scans.plan, plan.outputs, scans.bindings, shape, writing);
  };
  const parameters = options.parameters;
  const cacheable =
    options.cacheText !== false &&
    (parameters === undefined || parameters.length === 0) &&
    !holdsMark(bindings, shape) &&
    sameTextForEveryValue(plan, params, { facts, params, now, bindings }, renderable);
  if (!cacheable) {
    return emit(parameters && { kind: "parameters", values: parameters, origins: [] });
  }
  // Print once per shape; then each request only writes its values into the text.
  const key = JSON.stringify([
    parameters ? "parameters" : "literals",
    shape,
    [...params].map(([name, ids]) => [name, ids.length]),
  ]);
  let texts = printedTexts.get(plan);
  if (!texts) {
    texts = new Map();
    printedTexts.set(plan, texts);
  }
  let printed = texts.get(key);
  if (printed === undefined) {
    printed = parameters ? printParameterized(emit) : printTemplate(emit);
    // A text printed while central lookups went unanswered may be wrong: use it, keep it not.
    if (options.central?.complete?.() !== false) {
      if (texts.size >= MAX_TEXTS_PER_PLAN) texts.clear();
      texts.set(key, printed);
    }
  }
  if (printed === null) return emit();
  const requestValue = (origin: ValueOrigin) => staticValue(origin, { params, now })!;
  if (parameters) {
    for (const { origin } of printed.slots) {
      const value = requestValue(origin);
      parameters.push(parameterText(value, bindings.sqlTypes.get(value.type))!);
    }
    return sql.raw(printed.parts[0]!);
  }
  let text = printed.parts[0]!;
  printed.slots.forEach(({ origin, typed }, i) => {
    const value = requestValue(origin);
    const sqlType = bindings.sqlTypes.get(value.type);
    text += (typed ? renderTypedLiteral(value, sqlType) : renderValue(value, sqlType))!;
    text += printed.parts[i + 1]!;
  });
  return sql.raw(text);
}

/**
 * A statement printed once for a shape: text parts with the request's values between them
 * (`parts.length === slots.length + 1`), or for parameters the whole text and the origin of
 * each `$n`.
 */
interface PrintedText {
  readonly parts: readonly string[];
  readonly slots: readonly TemplateSlot[];
}

function printParameterized(emit: (writing: ValueWriting) => RawBuilder<unknown>): PrintedText {
  const writing = { kind: "parameters" as const, values: [], origins: [] as ValueOrigin[] };
  const text = sqlText(emit(writing));
  return { parts: [text], slots: writing.origins.map((origin) => ({ origin, typed: false })) };
}

/** Whether the caller's text (binding queries, filter column) holds the mark character. */
function holdsMark(bindings: DataBindings, shape: Shape): boolean {
  let known = bindingsWithMark.get(bindings);
  if (known === undefined) {
    known = bindings.bindings.some((binding) => binding.query.includes(TEMPLATE_MARK));
    bindingsWithMark.set(bindings, known);
  }
  return known || (shape.kind === "filter" && shape.column.includes(TEMPLATE_MARK));
}

const bindingsWithMark = new WeakMap<DataBindings, boolean>();

/** The template, or null when its marks do not parse (a safeguard: `holdsMark` ran first). */
function printTemplate(emit: (writing: ValueWriting) => RawBuilder<unknown>): PrintedText | null {
  const writing = { kind: "template" as const, slots: [] as TemplateSlot[] };
  const pieces = sqlText(emit(writing)).split(TEMPLATE_MARK);
  // Marks come in pairs around a slot number: text, n, text, n, …, text.
  const numbers = pieces.filter((_, i) => i % 2 === 1);
  if (pieces.length % 2 === 0 || !numbers.every((n) => /^\d+$/.test(n))) return null;
  const slots = numbers.map((n) => writing.slots[Number(n)]);
  if (slots.some((slot) => slot === undefined)) return null;
  return { parts: pieces.filter((_, i) => i % 2 === 0), slots: slots as TemplateSlot[] };
}

const printedTexts = new WeakMap<Plan, Map<string, PrintedText | null>>();
const MAX_TEXTS_PER_PLAN = 16;

/** What resolving a plan reads besides params and the clock, when that is all it reads. */
interface ValueReads {
  readonly paramTypes: ReadonlyMap<string, string>;
  /** Sources of central and context facts, with the branch that filters them. */
  readonly facts: readonly { readonly branch: Branch; readonly ref: SourceRef }[];
}

const valueReads = new WeakMap<Plan, ValueReads | null>();

/**
 * Whether, with every value written as a parameter or a template slot, this request prints
 * the same text as any other of its shape. Resolution then keeps or drops parts of the plan
 * by shape alone: no param list rows and no condition decided from params or the clock alone
 * (checked once per plan), no central or context fact rows for any source (asked exactly as
 * resolution asks), and every param id writable.
 */
function sameTextForEveryValue(
  plan: Plan,
  params: ReadonlyMap<string, readonly string[]>,
  runtime: Parameters<typeof factsFor>[2],
  renderable: (value: Value) => boolean,
): boolean {
  let reads = valueReads.get(plan);
  if (reads === undefined) {
    reads = readsOf(plan);
    valueReads.set(plan, reads);
  }
  if (!reads) return false;
  for (const [name, type] of reads.paramTypes) {
    if (!(params.get(name) ?? []).every((id) => renderable({ type, id }))) return false;
  }
  return reads.facts.every(({ branch, ref }) => factsFor(branch, ref, runtime).length === 0);
}

function readsOf(plan: Plan): ValueReads | null {
  const paramTypes = new Map<string, string>();
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
        case "values":
          return false;
        default:
          break;
      }
    }
    for (const condition of branch.conditions) {
      if (condition.kind === "not_exists") {
        if (!condition.branches.every(shapeOnly)) return false;
        continue;
      }
      const { terms } = conditionTerms(condition)!;
      const decided = terms.every(
        (t) => t.kind === "literal" || t.kind === "param" || t.kind === "time",
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
  return { paramTypes, facts };
}

/** The SQL text of a statement built by `printPlan` (values inlined unless printed as parameters). */
export function sqlText(statement: RawBuilder<unknown>): string {
  return statement.compile(postgres).sql;
}
