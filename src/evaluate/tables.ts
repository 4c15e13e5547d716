/**
 * Goal-directed evaluation with tabling (SLG resolution with local scheduling, for Datalog).
 *
 * Every call `p(pattern)` — a slot per argument, concrete or wildcard — gets a table of answers,
 * computed once per question from the facts and the clauses of `p`. A caller that reads a table
 * still in progress (recursion) also leaves a listener: a continuation that receives every later
 * answer through a task queue, so each (continuation, answer) pair runs exactly once and no
 * clause is ever re-run. Tables that wait on each other form a strongly connected component,
 * found with Tarjan's low links over the table stack; its lowest table runs the component's
 * tasks until none is left, then marks all of it complete. Finitely many patterns and answers
 * (set semantics) make this terminate on cyclic data, and the result is the least fixpoint
 * restricted to the calls the question needs.
 *
 * Stratification guarantees that what a `not` reads never waits on a table outside the `not`,
 * so the `not` completes everything it started before it answers (checked, not assumed).
 * Beyond `MAX_EAGER_DEPTH` nested tables, a new table is started from the task queue instead of
 * recursively, which keeps the JavaScript stack shallow on long chains.
 */
import type { BuiltinInputs } from "../builtins/builtin.js";
import { type BuiltinName, builtinValues } from "../builtins/registry.js";
import type { PredicateKey, Program } from "../check/program.js";
import type { Value } from "../core/value.js";
import { unbounded } from "./errors.js";
import { type FactIndex, matchFacts } from "./facts.js";
import { type Slot, tupleKey } from "./slot.js";

export type Tuple = readonly Slot[];

export interface Table {
  readonly predicate: PredicateKey;
  readonly pattern: Tuple;
  readonly answers: Tuple[];
  readonly answerKeys: Set<string>;
  /** Continuations waiting for answers added from now on (only while incomplete). */
  listeners: Listener[];
  complete: boolean;
  /** Position on the table stack, and the lowest position this table (transitively) reads. */
  readonly index: number;
  low: number;
}

interface Listener {
  /** Tasks for this listener run when the component at or below this height is completed. */
  readonly owner: number;
  readonly resume: (answer: Tuple) => void;
}

interface Task {
  readonly owner: number;
  readonly order: number;
  readonly run: () => void;
}

/** Who is asking: the table whose clause runs (null at the top level) and the task scope. */
export interface Caller {
  readonly table: Table | null;
  readonly owner: number;
}

/** The evaluation state of one question: facts, the clock reading and the tables. */
export interface Session {
  readonly program: Program;
  readonly facts: readonly FactIndex[];
  /** What builtins read of the question (its clock, read once). */
  readonly inputs: BuiltinInputs;
  /** Each builtin's value for the question. */
  readonly builtins: Readonly<Record<BuiltinName, Value>>;
  readonly tables: Map<string, Table>;
  readonly stack: Table[];
  /** Pending tasks, a max-heap on `owner` (then first in, first out). */
  readonly tasks: Task[];
  taskCount: number;
  /** Tables being started by nested JavaScript calls. */
  depth: number;
  /** Stack height when the innermost `not` started: it must not read tables below. */
  negationFloor: number;
  /** Told of every fact lookup (see `SessionOptions.onLookup`). */
  readonly onLookup: FactLookupListener | undefined;
  /** Runs the clauses of a table (src/evaluate/solve.ts `runClauses`, wired by session.ts). */
  readonly runClauses: ClauseRunner;
}

/** Runs each clause of `table.predicate` once for `table.pattern`, passing answers to `add`. */
export type ClauseRunner = (
  session: Session,
  table: Table,
  caller: Caller,
  add: (tuple: Tuple) => void,
) => void;

/** Told which facts a question reads: a predicate and a pattern (slots may be wildcards). */
export type FactLookupListener = (predicate: PredicateKey, pattern: Tuple) => void;

export interface SessionOptions {
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
  /**
   * Called before facts are read for a table: lets a caller load facts on demand (explain over
   * the fact store records the lookups it could not answer yet and asks again).
   */
  readonly onLookup?: FactLookupListener;
}

const MAX_EAGER_DEPTH = 150;

export const TOP: Caller = { table: null, owner: 0 };

/**
 * A fresh evaluation of one question over `facts` (stored facts, then context facts); callers
 * use `createSession` of session.ts, which supplies the clause runner.
 */
export function openSession(
  program: Program,
  facts: readonly FactIndex[],
  options: SessionOptions,
  runClauses: ClauseRunner,
): Session {
  const seconds = options.now ? options.now() : BigInt(Math.floor(Date.now() / 1000));
  const inputs: BuiltinInputs = { now: seconds };
  return {
    program,
    facts,
    inputs,
    builtins: builtinValues(inputs),
    tables: new Map(),
    stack: [],
    tasks: [],
    taskCount: 0,
    depth: 0,
    negationFloor: 0,
    onLookup: options.onLookup,
    runClauses,
  };
}

/**
 * Feeds every answer of `predicate(pattern)` to `onAnswer`: the current ones now, later ones
 * (while the table is in progress) through the task queue. Returns true when `onAnswer` asked
 * to stop.
 */
export function consume(
  session: Session,
  caller: Caller,
  predicate: PredicateKey,
  pattern: Tuple,
  onAnswer: (answer: Tuple) => boolean,
): boolean {
  const key = `${predicate}\u0002${tupleKey(pattern)}`;
  let table = session.tables.get(key);
  if (!table) {
    table = {
      predicate,
      pattern,
      answers: [],
      answerKeys: new Set(),
      listeners: [],
      complete: false,
      index: session.stack.length,
      low: session.stack.length,
    };
    session.tables.set(key, table);
    session.stack.push(table);
    if (session.depth < MAX_EAGER_DEPTH) evaluate(session, table);
    else {
      const started = table;
      schedule(session, started.index, () => nested(session, () => start(session, started)));
    }
  }
  if (!table.complete) {
    if (table.low < session.negationFloor) {
      // Only an unstratified program gets here; the checker rejects those.
      throw unbounded({ code: "P602", kind: "negation-cycle", predicate });
    }
    if (caller.table) caller.table.low = Math.min(caller.table.low, table.low);
    table.listeners.push({ owner: caller.owner, resume: onAnswer });
  }
  const count = table.answers.length;
  for (let i = 0; i < count; i++) {
    if (onAnswer(table.answers[i]!)) return true;
  }
  return false;
}

function evaluate(session: Session, table: Table): void {
  nested(session, () => {
    start(session, table);
    if (table.low === table.index) completeFrom(session, table.index);
  });
}

/** Counts JavaScript nesting: every path into deeper tables passes through here. */
function nested(session: Session, run: () => void): void {
  session.depth++;
  try {
    run();
  } finally {
    session.depth--;
  }
}

/** Adds the table's facts and runs each of its clauses once. */
function start(session: Session, table: Table): void {
  session.onLookup?.(table.predicate, table.pattern);
  for (const facts of session.facts) {
    matchFacts(session.program, facts, table.predicate, table.pattern, (tuple) =>
      addAnswer(session, table, tuple),
    );
  }
  session.runClauses(session, table, { table, owner: table.index }, (tuple) =>
    addAnswer(session, table, tuple),
  );
}

function addAnswer(session: Session, table: Table, tuple: Tuple): void {
  const key = tupleKey(tuple);
  if (table.answerKeys.has(key)) return;
  table.answerKeys.add(key);
  table.answers.push(tuple);
  for (const listener of table.listeners) {
    schedule(session, listener.owner, () => listener.resume(tuple));
  }
}

/**
 * Runs every task at or above `height`, then, unless a table there reads a table below it,
 * marks the tables from `height` up complete and pops them. Returns whether it completed.
 */
export function completeFrom(session: Session, height: number): boolean {
  const { stack, tasks } = session;
  while (tasks.length > 0 && tasks[0]!.owner >= height) popTask(session).run();
  let low = height;
  for (let i = height; i < stack.length; i++) low = Math.min(low, stack[i]!.low);
  if (low < height) {
    const leader = stack[height];
    if (leader) leader.low = Math.min(leader.low, low);
    return false;
  }
  for (let i = height; i < stack.length; i++) {
    stack[i]!.complete = true;
    stack[i]!.listeners = [];
  }
  stack.length = height;
  return true;
}

// ---------------------------------------------------------------- task heap

function schedule(session: Session, owner: number, run: () => void): void {
  const { tasks } = session;
  tasks.push({ owner, order: session.taskCount++, run });
  let i = tasks.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(tasks[i]!, tasks[parent]!)) break;
    [tasks[i], tasks[parent]] = [tasks[parent]!, tasks[i]!];
    i = parent;
  }
}

function popTask(session: Session): Task {
  const { tasks } = session;
  const top = tasks[0]!;
  const last = tasks.pop()!;
  if (tasks.length > 0) {
    tasks[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let next = i;
      if (left < tasks.length && before(tasks[left]!, tasks[next]!)) next = left;
      if (right < tasks.length && before(tasks[right]!, tasks[next]!)) next = right;
      if (next === i) break;
      [tasks[i], tasks[next]] = [tasks[next]!, tasks[i]!];
      i = next;
    }
  }
  return top;
}

/** Higher owners first (innermost components), then first in, first out. */
function before(a: Task, b: Task): boolean {
  return a.owner !== b.owner ? a.owner > b.owner : a.order < b.order;
}
