/**
 * Shortest proofs of goals that hold. The goals a goal can reach through the call atoms of its
 * edges (explain-context.ts) form a graph; a goal's height is 1 for a fact (or a clause without
 * calls) and otherwise 1 + the greatest height among the calls of its best edge. Heights are
 * found for the whole graph at once, lowest first (Knuth's generalization of Dijkstra's
 * algorithm): an edge becomes usable when the last of its calls gets its height, which is then
 * the greatest. The proof follows each goal's best edge, so it has the least height, and it
 * never loops, since heights strictly decrease along it.
 */
import type { Atom } from "./compile.js";
import {
  atomText,
  type Context,
  callGoal,
  type Edge,
  edgesOf,
  type Goal,
  goalKey,
  goalText,
} from "./explain-context.js";
import { type ExplainNode, node, ruleOf } from "./explain-node.js";
import type { Env } from "./solve.js";

export interface Prover {
  /** A shortest proof of a goal that holds; null when it does not hold. */
  prove(goal: Goal): ExplainNode | null;
  /** The proof node of one atom that holds under `env` (a call is proved, the rest are leaves). */
  atomProof(atom: Atom, env: Env): ExplainNode | null;
}

interface Step {
  readonly goal: Goal;
  readonly edge: Edge;
  /** The calls' goals, by key. */
  readonly calls: readonly Goal[];
}

interface Pending {
  readonly step: Step;
  readonly head: string;
  /** Calls without a height yet. */
  remaining: number;
  /** The greatest height among the calls that have one. */
  highest: number;
}

export function createProver(context: Context): Prover {
  /** Goals seen so far, and for those that hold, their height and best step. */
  const seen = new Set<string>();
  const best = new Map<string, { height: number; step: Step }>();
  const proofs = new Map<string, ExplainNode>();

  /** Finds the heights of every goal reachable from `root` that has none yet. */
  function measure(root: Goal): void {
    const rootKey = goalKey(root);
    if (seen.has(rootKey)) return;
    seen.add(rootKey);
    const pending: Pending[] = [];
    const waiting = new Map<string, Pending[]>();
    const stack = [root];
    while (stack.length > 0) {
      const goal = stack.pop()!;
      const head = goalKey(goal);
      for (const edge of edgesOf(context, goal)) {
        const calls =
          edge.kind === "fact"
            ? []
            : edge.atoms.flatMap((atom) =>
                atom.kind === "call" ? [callGoal(context, atom, edge.env)] : [],
              );
        const item: Pending = { step: { goal, edge, calls }, head, remaining: 0, highest: 0 };
        for (const key of new Set(calls.map(goalKey))) {
          const known = best.get(key);
          if (known) item.highest = Math.max(item.highest, known.height);
          else {
            item.remaining++;
            const list = waiting.get(key);
            if (list) list.push(item);
            else waiting.set(key, [item]);
          }
        }
        pending.push(item);
        for (const call of calls) {
          const key = goalKey(call);
          if (!seen.has(key)) {
            seen.add(key);
            stack.push(call);
          }
        }
      }
    }
    // Candidates by height; a goal keeps the first (lowest) height it is popped with.
    const buckets: Pending[][] = [];
    const offer = (item: Pending) => {
      const height = item.highest + 1;
      const bucket = buckets[height];
      if (bucket) bucket.push(item);
      else buckets[height] = [item];
    };
    for (const item of pending) if (item.remaining === 0) offer(item);
    for (let height = 1; height < buckets.length; height++) {
      for (const item of buckets[height] ?? []) {
        if (best.has(item.head)) continue;
        best.set(item.head, { height, step: item.step });
        for (const user of waiting.get(item.head) ?? []) {
          user.highest = Math.max(user.highest, height);
          if (--user.remaining === 0) offer(user);
        }
      }
    }
  }

  /**
   * The proof of a goal that has a height: its best step's proofs first, children before
   * parents, with an explicit stack (a proof is as deep as the data). Heights fall along best
   * steps, so this ends.
   */
  function proofOf(rootKey: string): ExplainNode {
    const stack = [rootKey];
    while (stack.length > 0) {
      const key = stack.at(-1)!;
      if (proofs.has(key)) {
        stack.pop();
        continue;
      }
      const { step } = best.get(key)!;
      const missing = step.calls.map(goalKey).filter((call) => !proofs.has(call));
      if (missing.length > 0) {
        stack.push(...missing);
        continue;
      }
      stack.pop();
      proofs.set(key, stepProof(step));
    }
    return proofs.get(rootKey)!;
  }

  /** The node of one step whose calls are proved already. */
  function stepProof({ goal, edge }: Step): ExplainNode {
    if (edge.kind === "fact") {
      const fact = { predicate: goal.name, args: edge.args, source: edge.source };
      return node(goalText(goal), true, [], { fact });
    }
    const children = edge.atoms.map((atom) =>
      atom.kind === "call"
        ? proofs.get(goalKey(callGoal(context, atom, edge.env)))!
        : leaf(atom, edge.env),
    );
    return node(goalText(goal), true, children, { rule: ruleOf(context.program, edge.clause) });
  }

  function leaf(atom: Atom, env: Env): ExplainNode {
    return node(atomText(context, atom, env), true, []);
  }

  function prove(goal: Goal): ExplainNode | null {
    measure(goal);
    const key = goalKey(goal);
    return best.has(key) ? proofOf(key) : null;
  }

  return {
    prove,
    atomProof: (atom, env) =>
      atom.kind === "call" ? prove(callGoal(context, atom, env)) : leaf(atom, env),
  };
}
