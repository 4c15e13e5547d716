/**
 * Explain: why a question is allowed (a shortest proof) or denied (what was tried, bounded), as
 * a tree of goals pointing at rules and facts (docs/explain.md). It runs the reference evaluator
 * over the same facts, so its answer is `authorize`'s; it is a separate path, asked only when
 * wanted, and never touches the planner.
 */
import { type PredicateKey, type Program, predicateKey } from "../check/program.js";
import { type GroundFact, isAbstractType, stringValue, type Value } from "../core/value.js";
import { EvaluationError } from "./errors.js";
import {
  type Context,
  DEFAULT_LIMITS,
  type ExplainLimits,
  type FactLayer,
  type Goal,
  goalText,
} from "./explain-context.js";
import { callText, type ExplainNode, type Explanation, node } from "./explain-node.js";
import { createProver } from "./explain-proof.js";
import { createRefuter } from "./explain-refute.js";
import { type FactInput, indexFacts, toFactIndex } from "./facts.js";
import { checkValue } from "./query.js";
import { createSession } from "./session.js";
import { canonicalValue, intersect, type Slot } from "./slot.js";
import { callPredicate } from "./solve.js";
import type { FactLookupListener } from "./tables.js";

export interface ExplainQuestion {
  readonly actor: Value;
  readonly action: string;
  readonly resource: Value;
}

export interface ExplainOptions {
  /** Facts of this question only (source `context`). */
  readonly contextFacts?: readonly GroundFact[];
  /** Facts read through data bindings (source `local`). */
  readonly localFacts?: FactInput;
  /** The clock builtins read, in Unix seconds; defaults to the system clock. */
  readonly now?: () => bigint;
  /** Bounds of a denied tree; see `DEFAULT_LIMITS`. */
  readonly limits?: Partial<ExplainLimits>;
}

interface LayeredExplainOptions extends Omit<ExplainOptions, "contextFacts" | "localFacts"> {
  /** Told of every fact lookup: see `SessionOptions.onLookup`. */
  readonly onLookup?: FactLookupListener;
}

/**
 * Why `allow(actor, action, resource)` holds or not over `facts` (source `stored`). Validates
 * the question as `authorize` does, and `allowed` is always `authorize`'s answer.
 *
 * @example
 * explain(program, { actor: { type: "User", id: "ada" }, action: "read",
 *   resource: { type: "Doc", id: "d1" } }, facts);
 * // { allowed: true, explanation: { goal: 'allow(User{"ada"}, "read", Doc{"d1"})', … } }
 */
export function explain(
  program: Program,
  question: ExplainQuestion,
  facts: FactInput = [],
  options: ExplainOptions = {},
): Explanation {
  const actor = checkValue(question.actor, "actor");
  const resource = checkValue(question.resource, "resource");
  const layers: FactLayer[] = [{ source: "stored", facts: toFactIndex(facts) }];
  if (options.localFacts) layers.push({ source: "local", facts: toFactIndex(options.localFacts) });
  if (options.contextFacts?.length) {
    layers.push({ source: "context", facts: indexFacts(options.contextFacts) });
  }
  const { contextFacts: _context, localFacts: _local, ...rest } = options;
  return explainAllow(program, layers, { actor, action: question.action, resource }, rest);
}

/**
 * `explain` over fact layers of any source, without validating the question (the HTTP service
 * validates it as `/authorize` does).
 */
export function explainAllow(
  program: Program,
  layers: readonly FactLayer[],
  question: ExplainQuestion,
  options: LayeredExplainOptions = {},
): Explanation {
  const actor = canonicalValue(question.actor);
  const resource = canonicalValue(question.resource);
  const goal: Goal = {
    predicate: predicateKey("allow", 3),
    name: "allow",
    args: [actor, stringValue(question.action), resource],
  };
  const result = explainGoal(program, layers, goal, options);
  if (result.holds) return { allowed: true, explanation: result.node };
  const notes = [
    ...unknownTypeNotes(program, [actor.type, resource.type]),
    undeclaredActionNote(program, question.action, resource.type),
    result.node.note,
  ].filter((note): note is string => Boolean(note));
  const explanation = notes.length ? { ...result.node, note: notes.join("; ") } : result.node;
  return { allowed: false, explanation };
}

/**
 * Only whether `allow(…)` holds over the layers, without building a tree: explain over the fact
 * store uses it to find every fact the answer needs before it builds the tree.
 */
export function allowHolds(
  program: Program,
  layers: readonly FactLayer[],
  question: ExplainQuestion,
  options: LayeredExplainOptions = {},
): boolean {
  const session = sessionOver(program, layers, options);
  const args = [
    canonicalValue(question.actor),
    stringValue(question.action),
    canonicalValue(question.resource),
  ];
  return callPredicate(session, predicateKey("allow", 3), args).length > 0;
}

/**
 * Any call: a proof of one solution when it has some, else why it has none (the policy test
 * runner explains failed assertions with this). Wildcard slots stand for any value.
 *
 * @example
 * explainCall(program, [{ source: "setup", facts }], "has_role", [ada, ANY, w1]).holds;
 */
export function explainCall(
  program: Program,
  layers: readonly FactLayer[],
  name: string,
  args: readonly Slot[],
  options: LayeredExplainOptions = {},
): { holds: boolean; node: ExplainNode } {
  const goal: Goal = { predicate: predicateKey(name, args.length), name, args };
  return explainGoal(program, layers, goal, options);
}

function explainGoal(
  program: Program,
  layers: readonly FactLayer[],
  goal: Goal,
  options: LayeredExplainOptions,
): { holds: boolean; node: ExplainNode } {
  const session = sessionOver(program, layers, options);
  const context: Context = {
    program,
    session,
    layers,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    edges: new Map(),
  };
  const answers = callPredicate(session, goal.predicate as PredicateKey, goal.args);
  const prover = createProver(context);
  const [first] = answers;
  if (first) {
    // The first solution, as specific as the question.
    const args = goal.args.map((slot, i) => intersect(program, slot, first[i]!) ?? slot);
    const proof = prover.prove({ ...goal, args });
    return {
      holds: true,
      node: proof ?? node(goalText(goal), true, [], { note: "holds; no proof was found" }),
    };
  }
  try {
    return { holds: false, node: createRefuter(context, prover).refute(goal) };
  } catch (error) {
    // The answer stands; only the search for its reason met what the evaluator refuses.
    if (!(error instanceof EvaluationError)) throw error;
    const note = `denied; what was tried cannot be shown: ${error.message}`;
    return { holds: false, node: node(goalText(goal), false, [], { note }) };
  }
}

/**
 * The denial of a question about an abstract type (`Actor`, `Resource`), which the service's
 * `authorize` denies without evaluating; null for a concrete question.
 */
export function abstractDenial(question: ExplainQuestion): Explanation | null {
  const abstract = [question.actor.type, question.resource.type].find(isAbstractType);
  if (!abstract) return null;
  const goal = callText("allow", [question.actor, stringValue(question.action), question.resource]);
  const note = `\`${abstract}\` is an abstract type; ask about a concrete type`;
  return { allowed: false, explanation: node(goal, false, [], { note }) };
}

function sessionOver(
  program: Program,
  layers: readonly FactLayer[],
  options: LayeredExplainOptions,
) {
  return createSession(
    program,
    layers.map((layer) => layer.facts),
    {
      ...(options.now && { now: options.now }),
      ...(options.onLookup && { onLookup: options.onLookup }),
    },
  );
}

function unknownTypeNotes(program: Program, types: readonly string[]): string[] {
  return [...new Set(types)]
    .filter((type) => !program.types.has(type))
    .map((type) => `the policy does not know the type \`${type}\``);
}

function undeclaredActionNote(program: Program, action: string, type: string): string | null {
  const meta = program.resources.get(type);
  if (!meta || meta.kind === "global" || meta.permissions.includes(action)) return null;
  if (meta.permissions.length === 0) {
    return `\`${type}\` declares no permissions, so not \`${action}\``;
  }
  const permissions = meta.permissions.map((name) => `\`${name}\``).join(", ");
  return `\`${type}\` does not declare the permission \`${action}\`; its permissions are ${permissions}`;
}
