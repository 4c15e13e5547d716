/**
 * The central service: every endpoint of the HTTP API as a plain function over the fact store.
 * Central questions are compiled by the same planner as local ones, with the fact table
 * presented as data bindings (store/bindings.ts), and executed in the store.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { DataBindings } from "../bindings/types.js";
import { checkPolicy } from "../check/check.js";
import { type Program, predicateKey } from "../check/program.js";
import { BudgetExceeded } from "../core/budget.js";
import { compareCodePoints, type GroundFact, INTEGER_MAX, type Value } from "../core/value.js";
import { answerByIteration, type FixpointBudget } from "../fixpoint/iterate.js";
import { at, PlanError } from "../plan/errors.js";
import { type Goal, goalKey } from "../plan/goal.js";
import type { Plan } from "../plan/ir.js";
import { PlanMissing, rememberPlan, withDeferredPlanning } from "../plan/plan.js";
import { type CentralFacts, NO_CENTRAL_FACTS } from "../plan/resolve/central-facts.js";
import type { Statement } from "../print/statement.js";
import type { SourceFile } from "../source/source.js";
import { StageError } from "../source/stage-error.js";
import { storeBindings } from "../store/bindings.js";
import {
  countFacts,
  type FactShape,
  factsAfter,
  matchingFacts,
  matchingFactsOfEach,
  readShapes,
} from "../store/facts.js";
import { type FactStore, openStore, type StoreOptions } from "../store/store.js";
import { type AnswerCacheLimits, createAnswerCache } from "./answer-cache.js";
import { type CompatEndpoints, compatEndpoints } from "./compat.js";
import { checkContextFacts } from "./context-facts.js";
import { explainStored } from "./explain.js";
import { budgetError, type Limits, limitError, resolveLimits } from "./limits.js";
import {
  actionsQuery,
  authorizeQuery,
  evaluateQueryLocal,
  type LocalOptions,
  listQuery,
} from "./local.js";
import { createWorkerPool, type WorkerPool } from "./pool.js";
import { previewReply } from "./preview.js";
import {
  actionsQuestion,
  authorizeQuestion,
  type EvaluateQuery,
  evaluateQuestion,
  type LocalQuestion,
  localStatement,
} from "./questions.js";
import {
  type AuthorizeBody,
  actionsBodySchema,
  authorizeBodySchema,
  listBodySchema,
  querySchema,
} from "./schemas.js";
import { ApiError, type PolarService, type Reply } from "./service.js";
import {
  authorizeResourcesBodySchema,
  batchBodySchema,
  EXPORT_PAGE_SIZE,
  exportFactsQuerySchema,
  listPageSchema,
  parseBody,
  policyBodySchema,
} from "./wire.js";
import { type Outcome, performTask, type Task } from "./work.js";

export const MIN_PAGE_SIZE = 10_000;

/** The refusal of `/list` without `page_size`, naming the switch that lifts it. */
export const UNPAGED_LIST_REFUSED =
  "`page_size` is required (at least 10000); to answer every result in one reply, as the 1.x clients expect, start the server with `--allow-unpaged-list`";

export interface ServiceOptions extends StoreOptions {
  /** Unix seconds for `@current_unix_time`; defaults to the system clock. */
  readonly now?: () => bigint;
  /**
   * `/list` without `page_size` answers every result in one reply, as the 1.x clients expect;
   * by default it is refused (400).
   */
  readonly allowUnpagedList?: boolean;
  /** Limits of recursion computed by iteration in the store (src/fixpoint). */
  readonly fixpointBudget?: FixpointBudget;
  /** Limits of requests and policies over the defaults (docs/limits.md). */
  readonly limits?: Partial<Limits>;
  /**
   * Worker threads for checking policies and planning questions off the event loop; 0 does
   * that work in place (no deadline). Default: the cores less one, at least 2, at most 4.
   */
  readonly workers?: number;
  /** Answers kept per data version; false keeps none (see `ServiceSettings`). */
  readonly answerCache?: AnswerCacheLimits | false;
}

/** What `serviceOver` needs besides the store. */
export interface ServiceSettings extends Pick<LocalOptions, "now"> {
  /**
   * Answers of central questions kept per data version (src/api/answer-cache.ts); false keeps
   * none. Default: 20,000 answers, 200,000 rows.
   */
  readonly answerCache?: AnswerCacheLimits | false;
  readonly allowUnpagedList?: boolean;
  readonly fixpointBudget?: FixpointBudget;
  readonly limits?: Partial<Limits>;
  readonly workers?: number;
  /**
   * A pool to judge policies and plan questions in, instead of one of `workers` threads of
   * its own; the service does not close it.
   */
  readonly pool?: WorkerPool;
}

/**
 * Opens the store and returns the service.
 *
 *   const service = await createService({ dataDir: "./data" });
 *   await service.authorize({ actor_type: "User", actor_id: "ada", action: "read",
 *     resource_type: "Doc", resource_id: "d1" }); // { body: { allowed: true } }
 */
export async function createService(options: ServiceOptions = {}): Promise<PolarService> {
  const store = await openStore(options);
  return serviceOver(store, {
    ...(options.now && { now: options.now }),
    ...(options.allowUnpagedList && { allowUnpagedList: true }),
    ...(options.fixpointBudget && { fixpointBudget: options.fixpointBudget }),
    ...(options.limits && { limits: options.limits }),
    ...(options.workers !== undefined && { workers: options.workers }),
    ...(options.answerCache !== undefined && { answerCache: options.answerCache }),
  });
}

/** The fallback policy when none was stored: no rules, so every answer is negative. */
const EMPTY_PROGRAM: Program = (() => {
  const result = checkPolicy([{ name: "empty.polar", text: "" }]);
  if (!result.ok) throw new Error("the empty policy does not check");
  return result.program;
})();

export function serviceOver(store: FactStore, settings: ServiceSettings = {}): PolarService {
  const clock: Pick<LocalOptions, "now"> = settings.now ? { now: settings.now } : {};
  const limits = resolveLimits(settings.limits);
  const ownPool =
    settings.pool || settings.workers === 0 ? null : createWorkerPool({ size: settings.workers });
  const pool = settings.pool ?? ownPool;

  /** A task in the pool within the request deadline, or in place without a pool. */
  async function perform(task: Task): Promise<Outcome> {
    return pool ? pool.run(task, limits.requestMs) : performTask(task);
  }

  /**
   * The goals used last (the question shapes in use), least recent first: a new policy has
   * them planned before it becomes active (`prepareFor`).
   */
  const recentGoals = new Map<string, { bindings: DataBindings; goal: Goal }>();

  function noteGoal(bindings: DataBindings, goal: Goal): void {
    const key = goalKey(goal);
    recentGoals.delete(key);
    recentGoals.set(key, { bindings, goal });
    if (recentGoals.size > RECENT_GOALS) recentGoals.delete(recentGoals.keys().next().value!);
  }

  function planTask({ program, bindings, goal }: PlanRequest): Task {
    return { kind: "plan", sources: program.sources, bindings, goal, limits };
  }

  /** Plans being made, by goal: concurrent requests of one shape share one task. */
  const inFlight = new Map<string, { missing: PlanRequest; outcome: Promise<Outcome> }>();
  function planning(missing: PlanRequest): Promise<Outcome> {
    const key = goalKey(missing.goal);
    noteGoal(missing.bindings, missing.goal);
    const known = inFlight.get(key);
    if (
      known &&
      known.missing.program === missing.program &&
      known.missing.bindings === missing.bindings
    ) {
      return known.outcome;
    }
    const outcome = perform(planTask(missing));
    const entry = { missing, outcome };
    inFlight.set(key, entry);
    const done = () => {
      if (inFlight.get(key) === entry) inFlight.delete(key);
    };
    outcome.then(done, done);
    return outcome;
  }

  /**
   * Runs synchronous compiling work with every plan it needs made off the event loop: a plan
   * missing from the cache is made by the pool, remembered, and the work runs again.
   */
  async function offLoop<T>(work: () => T): Promise<T> {
    for (;;) {
      let missing: PlanMissing;
      try {
        return withDeferredPlanning(work);
      } catch (error) {
        if (!(error instanceof PlanMissing)) throw error;
        missing = error;
      }
      const outcome = await planning(missing);
      rememberPlan(
        missing.program,
        missing.bindings,
        missing.goal,
        planOf(outcome, missing.program.sources),
      );
    }
  }

  /**
   * Called with a posted policy's program before it becomes active: every worker checks it,
   * and the question shapes used last are planned for it, most recent first, as background
   * tasks (src/api/pool.ts: a question's own plan never waits behind them). The post waits
   * `PREPARE_MS` at most; plans made later are remembered when they arrive. Without a pool,
   * planning would hold the event loop: questions plan on demand.
   */
  async function prepareFor(program: Program): Promise<void> {
    if (!pool) return;
    pool.warm(program.sources);
    const plans = [...recentGoals.values()].reverse().map(async ({ bindings, goal }) => {
      try {
        const outcome = await pool.run(
          planTask({ program, bindings, goal }),
          limits.requestMs,
          true,
        );
        rememberPlan(program, bindings, goal, planOf(outcome, program.sources));
      } catch {
        // Refused (a budget, the deadline): the question that needs it plans it and says so.
      }
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PREPARE_MS);
    });
    await Promise.race([Promise.all(plans), waited]);
    clearTimeout(timer);
  }

  const answers = settings.answerCache === false ? null : createAnswerCache(settings.answerCache);
  let shapesAt = -1;
  let bindings = storeBindings([], store.dialect);
  let bindingsShapes = "[]";
  let central: CentralFacts = NO_CENTRAL_FACTS;
  let secret: Buffer | null = null;
  /** Stored facts loaded for local questions, by lookup; valid for one data version. */
  let loaded: LoadedFacts = { version: -1, lookups: new Map(), rows: 0, stored: null };

  /** The fact table as data bindings, refreshed when the data version changes. */
  async function storeQuestionContext(): Promise<{
    program: Program;
    bindings: DataBindings;
    central: CentralFacts;
    version: number;
  }> {
    const program = (await store.program()) ?? EMPTY_PROGRAM;
    const version = await store.dataVersion();
    if (version !== shapesAt) {
      const shapes = await readShapes(store.db);
      // Zero-argument facts cannot be written as bindings; they are few, so inline them.
      const facts: GroundFact[] = [];
      for (const shape of shapes) {
        if (shape.types.length === 0)
          facts.push(...(await matchingFacts(store.db, shape.predicate, 0)));
      }
      // Plans are kept per bindings object: a write that adds no shape keeps them all.
      const shapesKey = JSON.stringify(shapes.map((shape) => [shape.predicate, shape.types]));
      if (shapesKey !== bindingsShapes) {
        bindings = storeBindings(shapes, store.dialect);
        bindingsShapes = shapesKey;
      }
      // Without zero-argument facts there are no central facts: printing then skips every
      // fact lookup.
      central =
        facts.length === 0
          ? NO_CENTRAL_FACTS
          : {
              facts: (predicate, arity) =>
                arity === 0 ? facts.filter((fact) => fact.predicate === predicate) : [],
            };
      shapesAt = version;
    }
    return { program, bindings, central, version };
  }

  /**
   * Compiles a question over the fact table with its values as parameters and runs it as a
   * prepared statement: the same question for other ids reuses PostgreSQL's plan.
   */
  async function run<Row>(
    question: (program: Program, bindings: DataBindings) => LocalQuestion,
  ): Promise<Row[]> {
    const { program, bindings, central, version } = await storeQuestionContext();
    let statement: Statement & { literal: boolean };
    try {
      statement = await offLoop(() => {
        const asked = question(program, bindings);
        noteGoal(bindings, asked.goal);
        // A param list is one array parameter (src/print/statement.ts `longestList`).
        const options = {
          ...clock,
          dialect: store.dialect,
          central,
          writing: "parameters",
        } as const;
        const printed = localStatement(program, bindings, asked, options);
        // PostgreSQL binds at most 65,535 parameters: a statement with more (many context
        // facts) is written with its values as quoted literals (src/print/postgres-literal.ts).
        if (printed.parameters.length <= MAX_BOUND_PARAMETERS)
          return { ...printed, literal: false };
        const literal = { ...options, writing: "literals", cacheText: false } as const;
        return { ...localStatement(program, bindings, asked, literal), literal: true };
      });
    } catch (error) {
      // Recursion one statement cannot express: iterate it in the store (src/fixpoint).
      if (!(error instanceof PlanError) || error.code !== "P703") throw error;
      const options = {
        ...clock,
        dialect: store.dialect,
        central,
        writing: "parameters",
      } as const;
      const asked = question(program, bindings);
      const rows = await answerByIteration<Row>(
        store.db,
        {
          program,
          dialect: store.dialect,
          bindings,
          shapes: await readShapes(store.db),
          central,
          contextFacts: asked.contextFacts,
          roots: asked.goal.calls.map((call) => predicateKey(call.name, call.args.length)),
          ...clock,
          ...(settings.fixpointBudget && { budget: settings.fixpointBudget }),
        },
        (inner, innerBindings) =>
          localStatement(inner, innerBindings, question(inner, innerBindings), options),
      );
      if (rows === null) throw error;
      return rows;
    }
    if (statement.literal) return store.db.query<Row>(statement.sql);
    const { sql, parameters } = statement;
    // An id array is a table without an index (SQLite indexes it for the statement).
    const hints = { joinsUnindexedRows: statement.longestList !== undefined };
    // A long id list is planned for its length each time, and its answer is not kept (the
    // cache bounds answers and rows, not the size of their keys); the rest is prepared.
    if ((statement.longestList ?? 0) > PREPARED_LIST_IDS)
      return store.db.query<Row>(sql, [...parameters], hints);
    const kept = answers?.get<Row>(version, sql, parameters);
    if (kept) return kept;
    const rows = await store.db.prepared<Row>(sql, [...parameters], hints);
    return answers ? answers.put(version, sql, parameters, rows) : rows;
  }

  async function allowed(query: AuthorizeBody): Promise<boolean> {
    const [row] = await run<{ allowed: boolean | number }>((program) =>
      authorizeQuestion(program, query),
    );
    // SQLite answers 1 for true (src/print/sqlite.ts).
    return row?.allowed === true || row?.allowed === 1;
  }

  const service: Omit<PolarService, keyof CompatEndpoints> = {
    async getPolicy() {
      const policy = await store.policy();
      return { body: { policy: policy && { filename: policy.filename ?? "", src: policy.src } } };
    },

    async postPolicy(body, query) {
      const { src, filename } = parseBody(policyBodySchema, body);
      const current = await store.policy();
      if (current?.src === src) {
        return {
          status: 202,
          body: { message: "policy unchanged" },
          dataVersion: await store.dataVersion(),
        };
      }
      const sources = [{ name: filename || "policy.polar", text: src }];
      const verdict = await perform({
        kind: "policy",
        sources,
        limits,
        now: clock.now ? clock.now().toString() : null,
        failFast: query.fail_fast === "true",
      });
      if (verdict.kind !== "policy") throw refusalOf(verdict);
      const suffix = verdict.warnings;
      const outcome = await store.setPolicy(src, filename, prepareFor);
      return {
        status: outcome === "unchanged" ? 202 : 200,
        body: { message: `policy ${outcome}${suffix}` },
        dataVersion: await store.dataVersion(),
      };
    },

    async policyMetadata() {
      const program = (await store.program()) ?? EMPTY_PROGRAM;
      const resources: Record<string, unknown> = {};
      for (const [name, meta] of program.resources) {
        resources[name] = {
          roles: meta.roles,
          permissions: meta.permissions,
          relations: meta.relations,
        };
      }
      return { body: { metadata: { resources } } };
    },

    async authorize(body) {
      const query = parseBody(authorizeBodySchema, body);
      return { body: { allowed: await guard(() => allowed(query)) } };
    },

    async explain(body) {
      const request = parseBody(authorizeBodySchema, body);
      const explained = await guard(async () => {
        const program = (await store.program()) ?? EMPTY_PROGRAM;
        const contextFacts = checkContextFacts(program, request.context_facts);
        return explainStored(store.db, program, request, contextFacts, clock);
      });
      return { body: explained };
    },

    async authorizeResources(body) {
      const request = parseBody(authorizeResourcesBodySchema, body);
      const permitted = new Set<string>();
      const byType = new Map<string, string[]>();
      for (const r of request.resources) {
        const ids = byType.get(r.type);
        if (ids) ids.push(r.id);
        else byType.set(r.type, [r.id]);
      }
      for (const [type, ids] of byType) {
        const query: EvaluateQuery = {
          predicate: ["allow", ["actor", "action", "resource"]],
          calls: [],
          constraints: {
            actor: { type: request.actor_type, ids: [request.actor_id] },
            action: { type: "String", ids: [request.action] },
            resource: { type, ids: [...new Set(ids)] },
          },
          context_facts: request.context_facts,
        };
        const ok = await guard(() =>
          run<{ c0: unknown }>((program, bindings) =>
            evaluateQuestion(program, bindings, query, selectMode(["resource"])),
          ),
        );
        for (const row of ok) {
          if (row.c0 === null) for (const id of ids) permitted.add(`${type}\u0000${id}`);
          else permitted.add(`${type}\u0000${String(row.c0)}`);
        }
      }
      const results = request.resources.filter((r) => permitted.has(`${r.type}\u0000${r.id}`));
      return { body: { results } };
    },

    async list(body) {
      const request = parseBody(listBodySchema, body);
      const page = parseBody(listPageSchema, body);
      const queryHash = hashOf(
        JSON.stringify([
          request.actor_type,
          request.actor_id,
          request.action,
          request.resource_type,
          request.context_facts,
        ]),
      );
      // Null: every result in one reply (`allowUnpagedList`).
      let pageSize: number | null;
      let after: string | null = null;
      if (page.page_token) {
        const token = await readToken(page.page_token);
        if (token.q !== queryHash)
          throw new ApiError(400, "`page_token` belongs to a different list query");
        pageSize = token.n;
        after = token.a;
      } else if (page.page_size == null) {
        if (!settings.allowUnpagedList) throw new ApiError(400, UNPAGED_LIST_REFUSED);
        pageSize = null;
      } else {
        if (page.page_size < MIN_PAGE_SIZE) {
          throw new ApiError(400, `\`page_size\` must be at least ${MIN_PAGE_SIZE}`);
        }
        pageSize = page.page_size;
      }
      const query: EvaluateQuery = {
        predicate: ["allow", ["actor", "action", "resource"]],
        calls: [],
        constraints: {
          actor: { type: request.actor_type, ids: [request.actor_id] },
          action: { type: "String", ids: [request.action] },
          resource: { type: request.resource_type, ids: null },
        },
        context_facts: request.context_facts,
      };
      const found = await guard(() =>
        run<{ id: string }>((program, bindings) => {
          const question = evaluateQuestion(program, bindings, query, selectMode(["resource"]));
          // The first page has no `after`: the empty string precedes every id.
          // Unpaged: the largest limit, so that both share one prepared statement.
          const limit = pageSize === null ? INTEGER_MAX : BigInt(pageSize) + 1n;
          const params = new Map(question.params)
            .set(PAGE_AFTER, [after ?? ""])
            .set(PAGE_LIMIT, [limit.toString()]);
          return {
            ...question,
            params,
            shape: { kind: "page", after: PAGE_AFTER, limit: PAGE_LIMIT },
          };
        }),
      );
      if (pageSize === null) return { body: { results: found.map((row) => row.id) } };
      const results = found.slice(0, pageSize).map((row) => row.id);
      if (found.length <= pageSize) return { body: { results } };
      const token = { q: queryHash, a: results[results.length - 1]!, n: pageSize };
      return { body: { results, next_page_token: await writeToken(token) } };
    },

    async actions(body) {
      const query = parseBody(actionsBodySchema, body);
      const found = await guard(() =>
        run<{ actions: string | null }>((program) => actionsQuestion(program, query)),
      );
      const results = [...new Set(found.map((row) => row.actions ?? "*"))].sort(compareCodePoints);
      return { body: { results } };
    },

    async evaluateQuery(body) {
      const query = parseBody(querySchema, body);
      // A repeated call counts once: the conjunction holds it once (questions.ts).
      const calls = new Set([query.predicate, ...query.calls].map((call) => JSON.stringify(call)));
      if (calls.size > limits.callsPerQuery) {
        const found = `the query has ${calls.size} different calls`;
        throw limitError("callsPerQuery", limits.callsPerQuery, found);
      }
      const variables = Object.keys(query.constraints);
      const mode = selectMode(variables);
      const found = await guard(async () => ({
        rows: await run<Record<string, unknown>>((program, bindings) =>
          evaluateQuestion(program, bindings, query, mode),
        ),
        names: mode.query_vars_to_output_column_names,
      }));
      if (variables.length === 0) {
        const [row] = found.rows as { result?: boolean }[];
        return { body: { results: row?.result ? [{}] : [] } };
      }
      const results: Record<string, string | null>[] = [];
      for (const row of found.rows) {
        // A wildcard for a variable with an ids list becomes one row per listed id.
        let expanded: Record<string, string | null>[] = [{}];
        for (const variable of variables) {
          const value = row[found.names[variable]!];
          const { type, ids } = query.constraints[variable]!;
          const options =
            value === null || value === undefined ? (ids ?? [null]) : [wireId(value, type)];
          expanded = expanded.flatMap((partial) =>
            options.map((id) => ({ ...partial, [variable]: id })),
          );
        }
        results.push(...expanded);
      }
      return { body: { results } };
    },

    async batch(body) {
      const changesets = parseBody(batchBodySchema, body);
      const version = await guard(() =>
        store.applyBatch(
          changesets.map((c) =>
            "inserts" in c
              ? { inserts: c.inserts.map((f) => ({ predicate: f.predicate, args: f.args })) }
              : { deletes: c.deletes },
          ),
        ),
      );
      const count = changesets.length;
      return {
        body: { message: `${count} changeset${count === 1 ? "" : "s"} applied` },
        dataVersion: version,
      };
    },

    async getFacts(query) {
      let predicate: string | undefined;
      const positions = new Map<number, { type?: string; id?: string }>();
      for (const [key, value] of query) {
        if (key === "predicate") {
          predicate = value;
          continue;
        }
        const match = /^args\.(\d{1,3})\.(type|id)$/.exec(key);
        if (!match) throw new ApiError(400, `unknown query parameter \`${key}\``);
        const index = Number(match[1]);
        positions.set(index, { ...positions.get(index), [match[2]!]: value });
      }
      if (!predicate) throw new ApiError(400, "`predicate` is required");
      for (const [index, arg] of positions) {
        if (arg.id !== undefined && arg.type === undefined) {
          throw new ApiError(400, `\`args.${index}.id\` needs \`args.${index}.type\``);
        }
      }
      return { body: await store.readFacts({ predicate, positions }) };
    },

    async exportFacts(query) {
      const { page_size, page_token } = parseBody(exportFactsQuerySchema, query);
      const size = page_size === undefined ? EXPORT_PAGE_SIZE.default : Number(page_size);
      if (size < 1 || size > EXPORT_PAGE_SIZE.max) {
        throw new ApiError(400, `\`page_size\` must be a number from 1 to ${EXPORT_PAGE_SIZE.max}`);
      }
      // A token is the key of the last fact sent: a fact key, never anything else.
      if (page_token !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(page_token)) {
        throw new ApiError(400, "`page_token` is not a valid page token");
      }
      const found = await factsAfter(store.db, page_token ?? null, size + 1);
      const page = found.slice(0, size);
      const next = found.length > size ? page.at(-1)!.key : null;
      return { body: { facts: page.map((entry) => entry.fact), next_page_token: next } };
    },

    async clearData() {
      const version = await store.clear();
      return { body: { message: "all facts deleted" }, dataVersion: version };
    },

    // The library functions validate their bodies; the wire gives untyped JSON.
    authorizeQuery: (body) => localReply(body, authorizeQuery as LocalCompile),
    actionsQuery: (body) => localReply(body, actionsQuery as LocalCompile),
    listQuery: (body) => localReply(body, listQuery as LocalCompile),
    evaluateQueryLocal: (body) => localReply(body, evaluateQueryLocal as LocalCompile),

    previewPolicy: (body) => previewReply({ store, limits, ...clock }, body),

    catchUp: (version) => store.catchUp(version),

    async close() {
      await ownPool?.close();
      await store.close();
    },
  };
  const all: PolarService = {
    ...service,
    ...compatEndpoints(service, {
      program: async () => (await store.program()) ?? EMPTY_PROGRAM,
      shapes: () => readShapes(store.db),
      counts: () => countFacts(store.db),
    }),
  };
  return withIdLimit(all, limits.idsPerRequest);

  /**
   * A local question asked of the service: stored facts are its central facts. The compiler
   * asks for the facts it needs by (predicate, arity, pattern, types); compile, load what it
   * asked for from the store, and compile again until it asks for nothing new. What was
   * loaded is kept until the data version changes.
   */
  async function localReply(body: unknown, compile: LocalCompile): Promise<Reply> {
    const program = (await store.program()) ?? EMPTY_PROGRAM;
    const version = await store.dataVersion();
    if (loaded.version !== version || loaded.rows > MAX_LOADED_ROWS) {
      loaded = { version, lookups: new Map(), rows: 0, stored: null };
    }
    const current = loaded;
    current.stored ??= storedShapes(await readShapes(store.db));
    const { lookups, stored } = current;
    for (let round = 0; ; round++) {
      const wanted = new Map<string, Lookup>();
      const central: CentralFacts = {
        facts(predicate, arity, pattern = [], types = []) {
          // After a few rounds, load whole predicates: a superset is still correct.
          const lookup = round < 8 ? { predicate, arity, pattern, types } : { predicate, arity };
          // No stored fact holds a NUL (PostgreSQL text cannot): nothing to look up.
          if (pattern.some((value) => value?.id.includes("\u0000"))) return [];
          // Nor is there anything to read where no stored fact has the shape (rules' heads).
          if (!stored(predicate, arity, pattern, types)) return [];
          const key = JSON.stringify(lookup);
          const known = lookups.get(key);
          if (known) return known;
          wanted.set(key, lookup);
          return [];
        },
        complete: () => wanted.size === 0,
      };
      const reply = await guard(() => offLoop(() => compile(program, body, { ...clock, central })));
      if (wanted.size === 0) return { body: reply };
      // Every lookup of the round in one round trip.
      const found = await matchingFactsOfEach(store.db, [...wanted.values()]);
      [...wanted.keys()].forEach((key, index) => {
        lookups.set(key, found[index]!);
        current.rows += found[index]!.length;
      });
    }
  }

  async function tokenSecret(): Promise<Buffer> {
    if (!secret) {
      const [row] = await store.db.query<{ value: string }>(
        "SELECT value FROM polar_meta WHERE key = 'token_secret'",
      );
      secret = Buffer.from(row!.value, "utf8");
    }
    return secret;
  }

  async function writeToken(token: PageToken): Promise<string> {
    const payload = Buffer.from(JSON.stringify(token)).toString("base64url");
    const mac = createHmac("sha256", await tokenSecret())
      .update(payload)
      .digest("base64url");
    return `${payload}.${mac}`;
  }

  async function readToken(text: string): Promise<PageToken> {
    const invalid = new ApiError(400, "`page_token` is not a valid page token");
    const [payload, mac, ...rest] = text.split(".");
    if (!payload || !mac || rest.length > 0) throw invalid;
    const expected = createHmac("sha256", await tokenSecret())
      .update(payload)
      .digest();
    const given = Buffer.from(mac, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
    const token = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as PageToken;
    if (typeof token.q !== "string" || typeof token.a !== "string" || !Number.isInteger(token.n))
      throw invalid;
    return token;
  }
}

type LocalCompile = (program: Program, body: unknown, options: LocalOptions) => { sql: string };

/** Facts a local question asked for: see `CentralFacts`. */
interface Lookup {
  readonly predicate: string;
  readonly arity: number;
  readonly pattern?: readonly (Value | null)[];
  readonly types?: readonly (string | null)[];
}

/** Parameters of one statement beyond which its values are written as literals. */
const MAX_BOUND_PARAMETERS = 30_000;

/**
 * Ids of an array parameter up to which a statement is prepared: beyond, a prepared
 * statement's generic plan, made for short lists, probes an index per id where a hash join
 * reads the list once (bench/RESULTS.md, "Id lists as one array parameter").
 */
const PREPARED_LIST_IDS = 100;

/** Stored facts held for local questions before the cache starts over. */
const MAX_LOADED_ROWS = 500_000;

/** Stored facts loaded for local questions, by lookup, for one data version. */
interface LoadedFacts {
  readonly version: number;
  readonly lookups: Map<string, GroundFact[]>;
  rows: number;
  /** Whether any stored fact can match a lookup (by predicate, arity and fixed types). */
  stored: StoredShapes | null;
}

type StoredShapes = (
  predicate: string,
  arity: number,
  pattern: readonly (Value | null)[],
  types: readonly (string | null)[],
) => boolean;

/**
 * A test of a lookup against the shapes of the stored facts (a superset: shapes outlive their
 * facts), so that questions over rules' heads and unstored predicates ask the store nothing.
 */
function storedShapes(shapes: readonly FactShape[]): StoredShapes {
  const byPredicate = new Map<string, (readonly string[])[]>();
  for (const shape of shapes) {
    const list = byPredicate.get(shape.predicate) ?? [];
    list.push(shape.types);
    byPredicate.set(shape.predicate, list);
  }
  return (predicate, arity, pattern, types) =>
    (byPredicate.get(predicate) ?? []).some(
      (shape) =>
        shape.length === arity &&
        shape.every((type, i) => {
          const fixed = pattern[i]?.type ?? types[i];
          return fixed === undefined || fixed === null || fixed === type;
        }),
    );
}

/** A list page token: query hash, last id returned, page size. Signed, so it cannot be forged. */
interface PageToken {
  readonly q: string;
  readonly a: string;
  readonly n: number;
}

function hashOf(text: string): string {
  return createHmac("sha256", "polar-sql-list").update(text).digest("base64url").slice(0, 22);
}

/** Params of a central list page's statement (never names of question variables). */
const PAGE_AFTER = "page after";
const PAGE_LIMIT = "page limit";

/** `evaluate_query` in select mode, output columns `c0`, `c1`, … by variable. */
function selectMode(variables: readonly string[]) {
  const names = Object.fromEntries(variables.map((v, i) => [v, `c${i}`]));
  return { mode: "select", query_vars_to_output_column_names: names } as const;
}

/** SQL results back to wire ids: integers and booleans as their text (SQLite's are 1/0). */
function wireId(value: unknown, type: string): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (type === "Boolean" && (value === 1 || value === 0)) return value === 1 ? "true" : "false";
  return String(value);
}

/** Every endpoint that takes a body refuses one with more strings than `limit` first. */
function withIdLimit(service: PolarService, limit: number): PolarService {
  const limited: Record<string, unknown> = { ...service };
  for (const [name, endpoint] of Object.entries(service)) {
    if (typeof endpoint !== "function" || BODILESS.has(name)) continue;
    limited[name] = async (body: unknown, ...rest: unknown[]) => {
      const count = countStrings(body, limit);
      if (count > limit) {
        throw limitError("idsPerRequest", limit, `the request has more than ${limit} ids`);
      }
      return (endpoint as (...args: unknown[]) => unknown).call(service, body, ...rest);
    };
  }
  return limited as unknown as PolarService;
}

const BODILESS = new Set([
  "getPolicy",
  "policyMetadata",
  "getFacts",
  "clearData",
  "exportFacts",
  "stats",
  "catchUp",
  "close",
]);

/** The strings in a JSON value, counted without recursion up to just past `stop`. */
function countStrings(value: unknown, stop: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= stop) {
    const next = pending.pop();
    if (typeof next === "string") count++;
    else if (next !== null && typeof next === "object") {
      for (const item of Array.isArray(next) ? next : Object.values(next)) pending.push(item);
    }
  }
  return count;
}

/** A goal to plan for a program and data bindings (a cache miss, or a shape in use). */
type PlanRequest = Pick<PlanMissing, "program" | "bindings" | "goal">;

/** How many question shapes in use a new policy has planned before it becomes active. */
const RECENT_GOALS = 64;
/** How long a policy post waits for those plans. */
const PREPARE_MS = 1000;

/** A plan made by the pool, or the planner's refusal to remember; other refusals are thrown. */
function planOf(outcome: Outcome, sources: readonly SourceFile[]): Plan | PlanError {
  switch (outcome.kind) {
    case "plan":
      return outcome.plan;
    case "plan-error":
      return new PlanError(outcome.problem, at(outcome.span, sources));
    case "policy":
    case "refused":
      throw refusalOf(outcome);
    default: {
      const _never: never = outcome;
      return _never;
    }
  }
}

function refusalOf(outcome: Outcome): ApiError {
  if (outcome.kind === "refused")
    return new ApiError(outcome.status, outcome.message, outcome.body);
  return new ApiError(500, `unexpected outcome \`${outcome.kind}\` of a task`);
}

/**
 * Refusals of the compiler and the store become 400s: every stage's coded refusal (a
 * `StageError`: invalid policies and bindings, the question, planning, lowering, evaluation,
 * iteration, literals, the store's refusals of a write). Budgets are 422s; anything else
 * stays a 500.
 */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    // Bindings, policy, literal and store refusals are StageErrors too.
    if (cause instanceof StageError) throw new ApiError(400, cause.message);
    if (cause instanceof BudgetExceeded) throw budgetError(cause);
    throw cause;
  }
}
