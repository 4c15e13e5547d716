/**
 * Proofs of goals that hold, by iterative deepening over the edges of explain-context.ts: a goal
 * is proved within height k by a fact (k >= 1) or by an edge whose calls are all proved within
 * k - 1. The first k that proves the goal gives a shortest derivation, and a proof never loops
 * because heights strictly decrease along every path. Results are kept per goal: the least
 * height proved so far, and the greatest height known to fail.
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

export function createProver(context: Context): Prover {
  const proved = new Map<string, { height: number; node: ExplainNode }>();
  const failed = new Map<string, number>();

  function within(goal: Goal, height: number): ExplainNode | null {
    if (height < 1) return null;
    const key = goalKey(goal);
    const known = proved.get(key);
    if (known && known.height <= height) return known.node;
    if ((failed.get(key) ?? 0) >= height) return null;
    for (const edge of edgesOf(context, goal)) {
      const found = edgeProof(goal, edge, height);
      if (found) {
        proved.set(key, { height, node: found });
        return found;
      }
    }
    failed.set(key, height);
    return null;
  }

  function edgeProof(goal: Goal, edge: Edge, height: number): ExplainNode | null {
    if (edge.kind === "fact") {
      const fact = { predicate: goal.name, args: edge.args, source: edge.source };
      return node(goalText(goal), true, [], { fact });
    }
    const children: ExplainNode[] = [];
    for (const atom of edge.atoms) {
      const child =
        atom.kind === "call"
          ? within(callGoal(context, atom, edge.env), height - 1)
          : leaf(atom, edge.env);
      if (!child) return null;
      children.push(child);
    }
    return node(goalText(goal), true, children, { rule: ruleOf(context.program, edge.clause) });
  }

  function leaf(atom: Atom, env: Env): ExplainNode {
    return node(atomText(context, atom, env), true, []);
  }

  function prove(goal: Goal): ExplainNode | null {
    // A shortest proof repeats no goal along a path, so it is no higher than the number of
    // goals it can reach; stop once the height passes every goal seen.
    for (let height = 1; height <= context.edges.size + 1; height++) {
      const found = within(goal, height);
      if (found) return found;
    }
    return null;
  }

  return {
    prove,
    atomProof: (atom, env) =>
      atom.kind === "call" ? prove(callGoal(context, atom, env)) : leaf(atom, env),
  };
}
