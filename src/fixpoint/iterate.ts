/**
 * Answering a question whose policy has recursion one SQL statement cannot express
 * (docs/fixpoint.md): the recursive families it needs are computed in the store by semi-naive
 * iteration, in one transaction, into temporary tables; the question is then compiled with
 * those families read as tables and run in the same transaction.
 *
 *   const rows = await answerByIteration(db, input, (program, bindings) =>
 *     localStatement(program, bindings, question(program, bindings), options));
 */

import { sql } from "kysely";
import { isPolarName } from "../bindings/signature.js";
import type { Binding, DataBindings } from "../bindings/types.js";
import { type PredicateKey, type Program, predicateKey } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { at, PlanError } from "../plan/errors.js";
import type { CentralFacts } from "../plan/resolve/central-facts.js";
import { printPlan, type Statement } from "../print/statement.js";
import { run } from "../store/compile.js";
import type { SqlExecutor } from "../store/executor.js";
import type { FactShape } from "../store/facts.js";
import { FACT_TABLE } from "../store/schema.js";
import {
  answerProgram,
  type Family,
  familyNonLinearRule,
  iterationProgram,
  reachableFamilies,
  splitKey,
} from "./families.js";
import { type FamilyPlans, planFamily, type ShapedPlan } from "./plan.js";
import {
  closeRound,
  createTables,
  dropTables,
  type FamilyTables,
  familyTables,
  insertAnswers,
  insertStoredFacts,
  iterationSettings,
  tableBinding,
} from "./tables.js";

/** How much work one question may spend iterating before it is refused. */
export interface FixpointBudget {
  /** Rounds per family (each round runs every step once). */
  readonly rounds: number;
  /** Rows per family. */
  readonly rows: number;
}

const DEFAULT_FIXPOINT_BUDGET: FixpointBudget = { rounds: 1000, rows: 2_000_000 };

/** A family that did not reach its fixpoint within the budget (a 400 for the caller). */
class FixpointBudgetError extends PlanError {
  override readonly name = "FixpointBudgetError";
}

interface IterationInput {
  readonly program: Program;
  /** The store's dialect: the iteration's statements are printed for it. */
  readonly dialect: Dialect;
  /** The fact table as data bindings, and its shapes (store/bindings.ts). */
  readonly bindings: DataBindings;
  readonly shapes: readonly FactShape[];
  readonly central: CentralFacts;
  readonly contextFacts: readonly GroundFact[];
  /** The predicates the question calls. */
  readonly roots: readonly PredicateKey[];
  readonly now?: () => bigint;
  readonly budget?: FixpointBudget;
}

/** The question's statement over a program and bindings in which some families are tables. */
type Ask = (program: Program, bindings: DataBindings) => Statement;

interface Prepared {
  readonly families: readonly { family: Family; tables: FamilyTables; plans: FamilyPlans }[];
  readonly statement: Statement;
}

/**
 * The families to compute and the question's statement, planned before anything runs: the
 * non-linear families first; every recursive family the question reaches if that is not
 * enough. Null when no family helps (the caller's error stands).
 */
function prepare(input: IterationInput, ask: Ask): Prepared | null {
  let failure: unknown = null;
  for (const all of [false, true]) {
    const chosen = reachableFamilies(input.program, input.roots, all);
    if (chosen.length === 0) continue;
    try {
      return prepareWith(input, chosen, ask);
    } catch (error) {
      if (!(error instanceof PlanError) || error.code !== "P703") throw error;
      failure = error;
    }
  }
  if (failure) throw failure;
  return null;
}

function prepareWith(input: IterationInput, chosen: readonly Family[], ask: Ask): Prepared {
  const computed = new Set<PredicateKey>();
  for (const family of chosen) for (const key of family.predicates) computed.add(key);
  const isComputed = (binding: Binding) =>
    computed.has(predicateKey(binding.predicate, binding.slots.length));
  const base: Binding[] = input.bindings.bindings.filter((binding) => !isComputed(binding));
  const done = new Set<PredicateKey>();
  const families: Prepared["families"][number][] = [];
  chosen.forEach((family, index) => {
    const members = new Set(family.predicates);
    const width = Math.max(...family.predicates.map((key) => splitKey(key).arity));
    const tables = familyTables(index, width);
    const stored = input.shapes
      .filter(
        (s) =>
          members.has(predicateKey(s.predicate, s.types.length)) &&
          s.types.length > 0 &&
          isPolarName(s.predicate) &&
          s.types.every(isPolarName),
      )
      .map((s) => ({ predicate: predicateKey(s.predicate, s.types.length), types: s.types }));
    const program = iterationProgram(input.program, family, done);
    const plans = planFamily(input.dialect, program, family, tables, base, stored);
    for (const shape of plans.shapes) {
      base.push(tableBinding(input.dialect, tables.full, shape, splitKey(shape.predicate).name));
    }
    for (const key of family.predicates) done.add(key);
    families.push({ family, tables, plans });
  });
  const bindings: DataBindings = { ...input.bindings, bindings: base };
  return { families, statement: ask(answerProgram(input.program, done), bindings) };
}

function printed(input: IterationInput, plans: FamilyPlans, shaped: ShapedPlan): Statement {
  const names = shaped.shape.types.map((_, i) => `c${i}`);
  return printPlan(
    shaped.plan,
    plans.bindings,
    new Map(),
    { kind: "select", names },
    {
      sources: input.program.sources,
      dialect: input.dialect,
      central: input.central,
      contextFacts: input.contextFacts,
      writing: "parameters",
      cacheText: false,
      ...(input.now && { now: input.now }),
    },
  );
}

/**
 * Computes the families the question needs and answers it, in one transaction; null when the
 * question reaches no recursive family (iteration cannot help).
 */
export async function answerByIteration<Row>(
  db: SqlExecutor,
  input: IterationInput,
  ask: Ask,
): Promise<Row[] | null> {
  const prepared = prepare(input, ask);
  if (!prepared) return null;
  const budget = input.budget ?? DEFAULT_FIXPOINT_BUDGET;
  const settings = iterationSettings(input.dialect);
  return db.transaction(async (tx) => {
    for (const statement of settings.during) await run(tx, statement);
    try {
      return await iterate(tx, prepared);
    } finally {
      for (const statement of settings.after) await run(tx, statement);
    }
  });

  async function iterate(tx: SqlExecutor, prepared: Prepared): Promise<Row[]> {
    for (const { family, tables, plans } of prepared.families) {
      for (const statement of createTables(input.dialect, tables)) await run(tx, statement);
      const runPlans = async (list: readonly ShapedPlan[]) => {
        for (const shaped of list) {
          const answers = printed(input, plans, shaped);
          const insert = insertAnswers(input.dialect, tables, shaped.shape, answers);
          await tx.query(insert.sql, [...insert.parameters]);
        }
      };
      for (const key of family.predicates) {
        await run(tx, insertStoredFacts(tables, FACT_TABLE, key));
      }
      await runPlans(plans.exits);
      let rows = 0;
      for (let round = 0; ; round++) {
        for (const statement of closeRound(input.dialect, tables)) await run(tx, statement);
        const [counted] = await run(
          tx,
          sql<{ n: number }>`SELECT CAST(count(*) AS integer) AS n FROM ${sql.id(tables.delta)}`,
        );
        const added = counted?.n ?? 0;
        rows += added;
        if (added === 0 || plans.steps.length === 0) break;
        const predicates = family.predicates.map((key) => splitKey(key).name);
        const where = at(familyNonLinearRule(input.program, family)?.span, input.program.sources);
        if (round >= budget.rounds) {
          throw new FixpointBudgetError(
            { code: "P712", kind: "fixpoint-rounds", predicates, rounds: budget.rounds },
            where,
          );
        }
        if (rows > budget.rows) {
          throw new FixpointBudgetError(
            { code: "P712", kind: "fixpoint-rows", predicates, rows: budget.rows },
            where,
          );
        }
        await runPlans(plans.steps);
      }
    }
    const { sql: text, parameters } = prepared.statement;
    const rows = await tx.query<Row>(text, [...parameters]);
    for (const { tables } of prepared.families) {
      for (const statement of dropTables(input.dialect, tables)) await run(tx, statement);
    }
    return rows;
  }
}
