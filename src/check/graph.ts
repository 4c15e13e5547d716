/**
 * The predicate dependency graph and its strongly connected components, for the checker
 * (stratification), the evaluator (bottom-up order) and the planner (recursive CTEs).
 */
import type { Expr } from "../polar/ast.js";
import type { Span } from "../source/source.js";
import { type PredicateKey, type Program, predicateKey } from "./program.js";
import { forEachCall } from "./walk.js";

/**
 * Strongly connected components (Tarjan, iterative), **callees first**: a component comes after
 * every component it reaches through `successors`. Nodes keep their first-seen order inside a
 * component. Linear in nodes plus edges.
 *
 * @example
 * findComponents(["a", "b", "c"], (n) => (n === "a" ? ["b"] : n === "b" ? ["a", "c"] : []));
 * // [["c"], ["a", "b"]]
 */
export function findComponents<N>(nodes: Iterable<N>, successors: (node: N) => Iterable<N>): N[][] {
  const index = new Map<N, number>();
  const low = new Map<N, number>();
  const onStack = new Set<N>();
  const stack: N[] = [];
  const components: N[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: N; iterator: Iterator<N> }[] = [];
    const enter = (node: N) => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, iterator: successors(node)[Symbol.iterator]() });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const next = frame.iterator.next();
      if (!next.done) {
        const child = next.value;
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: N[] = [];
        let member: N;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort((a, b) => index.get(a)! - index.get(b)!));
      }
    }
  }
  return components;
}

/** One call in a clause body: `from` calls `to`, under a `not` when `negative`. */
interface DependencyEdge {
  readonly from: PredicateKey;
  readonly to: PredicateKey;
  readonly negative: boolean;
  /** The call, or the whole `not …` for a negative edge. */
  readonly span: Span;
}

interface DependencyGraph {
  /** Every predicate with rules or called by a rule, in first-seen order. */
  readonly nodes: readonly PredicateKey[];
  readonly edges: ReadonlyMap<PredicateKey, readonly DependencyEdge[]>;
}

/**
 * The predicate dependency graph of a program: one edge per call in a clause body.
 *
 * @example
 * dependencyGraph(program).edges.get("allow/3"); // [{ from: "allow/3", to: "has_permission/3", … }]
 */
export function dependencyGraph(program: Pick<Program, "rules">): DependencyGraph {
  const nodes = new Set<PredicateKey>();
  const edges = new Map<PredicateKey, DependencyEdge[]>();
  for (const [key, clauses] of program.rules) {
    nodes.add(key);
    const out: DependencyEdge[] = [];
    edges.set(key, out);
    for (const clause of clauses) {
      if (!clause.body) continue;
      forEachCall(clause.body, (call, negative, negation: Expr | null) => {
        const to = predicateKey(call.name.name, call.args.length);
        nodes.add(to);
        out.push({ from: key, to, negative, span: negation?.span ?? call.span });
      });
    }
  }
  return { nodes: [...nodes], edges };
}

interface PredicateComponent {
  /** Mutually recursive predicates (one predicate when not mutually recursive). */
  readonly predicates: readonly PredicateKey[];
  /** True when some predicate of the component calls a predicate of the same component. */
  readonly recursive: boolean;
  /**
   * 0 for components that use no negation below them; otherwise one more than the highest
   * stratum reached through a negative edge (and at least the stratum of every callee).
   */
  readonly stratum: number;
}

/**
 * The components of the dependency graph, **callees first** (evaluate in this order bottom-up).
 * Data predicates (called, never defined) appear as non-recursive components of stratum 0.
 * On an unstratified program (which the checker rejects) negative edges inside a component
 * are ignored for the stratum.
 *
 * @example
 * stronglyConnectedComponents(program).map((c) => c.predicates);
 * // [["has_role/3"], ["has_permission/3"], ["allow/3"]]
 */
export function stronglyConnectedComponents(
  program: Pick<Program, "rules">,
): readonly PredicateComponent[] {
  const graph = dependencyGraph(program);
  const successors = (key: PredicateKey) => (graph.edges.get(key) ?? []).map((edge) => edge.to);
  const components = findComponents(graph.nodes, successors);
  const stratumOf = new Map<PredicateKey, number>();
  return components.map((predicates) => {
    const members = new Set(predicates);
    let recursive = false;
    let stratum = 0;
    for (const key of predicates) {
      for (const edge of graph.edges.get(key) ?? []) {
        if (members.has(edge.to)) {
          recursive = true;
          continue;
        }
        stratum = Math.max(stratum, stratumOf.get(edge.to)! + (edge.negative ? 1 : 0));
      }
    }
    for (const key of predicates) stratumOf.set(key, stratum);
    return { predicates, recursive, stratum };
  });
}

/**
 * Predicates grouped by stratum, lowest first: everything a stratum negates lies in a lower one.
 *
 * @example
 * predicateStrata(program); // [["is_hidden/1", …], ["can_view/2", …]]
 */
export function predicateStrata(program: Pick<Program, "rules">): readonly PredicateKey[][] {
  const strata: PredicateKey[][] = [];
  for (const component of stronglyConnectedComponents(program)) {
    while (strata.length <= component.stratum) strata.push([]);
    strata[component.stratum]!.push(...component.predicates);
  }
  return strata;
}
