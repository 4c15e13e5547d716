/**
 * From a cached plan to SQL for one request: resolve the request's values (params, central
 * and context facts, the clock), then emit the statement with Kysely.
 */
import { type RawBuilder, sql } from "kysely";
import type { DataBindings } from "../bindings/types.js";
import type { GroundFact, Value } from "../core/value.js";
import type { Branch, Plan, Term } from "../plan/ir.js";
import { mapBranch } from "../plan/rewrite.js";
import { type CentralFacts, factRows, NO_CENTRAL_FACTS } from "./central-facts.js";
import { emitStatement, type Parameters, type Shape, type ValueOrigin } from "./emit.js";
import { postgres } from "./kysely.js";
import { LiteralError, parameterText, renderValue } from "./literal.js";
import { conditionTerms, resolvePlan, staticValue } from "./resolve.js";

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
}

function systemNow(): bigint {
  return BigInt(Math.floor(Date.now() / 1000));
}

/** Whether a literal for this value can exist in a column of its type (else it matches nothing). */
export function renderableIn(bindings: DataBindings): (value: Value) => boolean {
  return (value) => {
    try {
      return renderValue(value, bindings.sqlTypes.get(value.type)) !== null;
    } catch (error) {
      if (error instanceof LiteralError) return false;
      throw error;
    }
  };
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
  const emit = (parameters?: Parameters) => {
    const resolved = resolvePlan(plan, {
      params,
      facts: factRows(options.central ?? NO_CENTRAL_FACTS, options.contextFacts ?? []),
      now,
      renderable,
      bindings,
      strictOutputs: shape.kind === "select",
    });
    return emitStatement(resolved, plan.outputs, bindings, shape, parameters);
  };
  if (!options.parameters) return emit();
  const paramTypes = shapeOnlyParams(plan);
  if (!paramTypes || !paramsRenderable(paramTypes, params, renderable)) {
    return emit({ values: options.parameters, origins: [] });
  }
  // The text is the same for every request of this shape: print once, then fill in values.
  const key = JSON.stringify([shape, [...params].map(([name, ids]) => [name, ids.length])]);
  let texts = printedTexts.get(plan);
  if (!texts) {
    texts = new Map();
    printedTexts.set(plan, texts);
  }
  let printed = texts.get(key);
  if (!printed) {
    const parameters: Parameters = { values: [], origins: [] };
    printed = { text: sqlText(emit(parameters)), origins: parameters.origins };
    if (texts.size >= MAX_TEXTS_PER_PLAN) texts.clear();
    texts.set(key, printed);
  }
  for (const origin of printed.origins) {
    const value = staticValue(origin, { params, now })!;
    options.parameters.push(parameterText(value, bindings.sqlTypes.get(value.type))!);
  }
  return sql.raw(printed.text);
}

interface PrintedText {
  readonly text: string;
  readonly origins: readonly ValueOrigin[];
}

const printedTexts = new WeakMap<Plan, Map<string, PrintedText>>();
const MAX_TEXTS_PER_PLAN = 16;

const shapeOnly = new WeakMap<Plan, ReadonlyMap<string, string> | null>();

/**
 * Whether resolving the plan can only keep or drop its parts by the shape of a request, never
 * by its values: no central, context or param rows to read, and no condition decided from
 * params or the clock alone. Then, with every value written as a parameter, the statement
 * text is one per shape. Returns the types of the params it reads, or null.
 */
function shapeOnlyParams(plan: Plan): ReadonlyMap<string, string> | null {
  let known = shapeOnly.get(plan);
  if (known === undefined) {
    const branches = [...plan.branches, ...plan.ctes.flatMap((c) => [...c.seeds, ...c.steps])];
    const types = new Map<string, string>();
    const collect = {
      alias: (alias: string) => alias,
      term: (term: Term) => {
        if (term.kind === "param") types.set(term.name, term.type);
        return term;
      },
    };
    const ok = branches.every((branch) => {
      mapBranch(branch, collect);
      return branchDependsOnlyOnShape(branch);
    });
    known = ok ? types : null;
    shapeOnly.set(plan, known);
  }
  return known;
}

function branchDependsOnlyOnShape(branch: Branch): boolean {
  for (const { source } of branch.sources) {
    switch (source.kind) {
      case "facts":
      case "param":
      case "values":
        return false;
      case "binding":
        if (source.facts || source.rows) return false;
        break;
      default:
        break;
    }
  }
  for (const condition of branch.conditions) {
    if (condition.kind === "not_exists") {
      if (!condition.branches.every(branchDependsOnlyOnShape)) return false;
      continue;
    }
    const { terms } = conditionTerms(condition)!;
    const decided = terms.every(
      (t) => t.kind === "literal" || t.kind === "param" || t.kind === "time",
    );
    if (decided && terms.some((t) => t.kind !== "literal")) return false;
  }
  return true;
}

/** Whether every param id can be written for its type (else resolution drops branches). */
function paramsRenderable(
  types: ReadonlyMap<string, string>,
  params: ReadonlyMap<string, readonly string[]>,
  renderable: (value: Value) => boolean,
): boolean {
  for (const [name, type] of types) {
    if (!(params.get(name) ?? []).every((id) => renderable({ type, id }))) return false;
  }
  return true;
}

/** The SQL text of a statement built by `printPlan` (values inlined unless printed as parameters). */
export function sqlText(statement: RawBuilder<unknown>): string {
  return statement.compile(postgres).sql;
}
