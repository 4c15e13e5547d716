/**
 * Why a goal does not hold: for each clause whose head fits it, the atoms that held and the first
 * one that failed (in the order the evaluator runs them), explained in turn. A missing fact is
 * named. The tree is bounded by `ExplainLimits`; a goal already explained, or being explained
 * further up (recursion), is not expanded again.
 */
import type { Clause } from "../check/program.js";
import type { Atom, Conjunction, NotAtom } from "./compile.js";
import { compileClause } from "./compile.js";
import {
  atomText,
  type Context,
  callGoal,
  type Goal,
  goalKey,
  goalText,
  nameAnonymous,
  namedConjunctions,
} from "./explain-context.js";
import { countNodes } from "./explain-json.js";
import { type ExplainNode, node, ruleOf, slotText } from "./explain-node.js";
import type { Prover } from "./explain-proof.js";
import { isWildcard, slotKey } from "./slot.js";
import { type Env, matchHead, pickNext, solveTop } from "./solve.js";

const GRANTED_BY_FACTS = new Set(["has_role", "has_relation"]);

/** Bindings of a conjunction's prefix kept while looking for the atom that fails. */
const MAX_BINDINGS = 64;

interface Refuter {
  refute(goal: Goal): ExplainNode;
}

export function createRefuter(context: Context, prover: Prover): Refuter {
  return new Refutation(context, prover);
}

/** One denied tree being built: goals explained so far, the path to the current one, nodes. */
class Refutation implements Refuter {
  private readonly explained = new Set<string>();
  private readonly path = new Set<string>();
  private nodes = 0;

  constructor(
    private readonly context: Context,
    private readonly prover: Prover,
  ) {}

  private overBudget(): boolean {
    return this.nodes >= this.context.limits.maxNodes;
  }

  refute(goal: Goal, depth = 0): ExplainNode {
    this.nodes++;
    const text = goalText(goal);
    const key = goalKey(goal);
    if (this.path.has(key)) {
      return node(text, false, [], { note: "recursion: this goal is being explained above" });
    }
    if (this.explained.has(key)) return node(text, false, [], { note: "explained above" });
    if (depth >= this.context.limits.maxDepth || this.overBudget()) {
      return node(text, false, [], { note: this.cutNote() });
    }
    this.explained.add(key);
    this.path.add(key);
    try {
      return this.refuteGoal(goal, text, depth);
    } finally {
      this.path.delete(key);
    }
  }

  private cutNote(): string {
    return `not expanded: a denied tree shows at most ${this.context.limits.maxDepth} levels and ${this.context.limits.maxNodes} nodes`;
  }

  private refuteGoal(goal: Goal, text: string, depth: number): ExplainNode {
    const clauses = (this.context.program.rules.get(goal.predicate) ?? []).filter(
      (clause) => matchHead(this.context.session, compileClause(clause), goal.args) !== null,
    );
    const factNote = this.mayBeFact(goal) ? this.missingFact(goal) : undefined;
    if (clauses.length === 0) {
      const none = this.context.program.rules.has(goal.predicate)
        ? `no rule for \`${goal.name}\` applies to these arguments`
        : undefined;
      return node(text, false, [], { note: joinNotes(factNote ?? none) });
    }
    if (clauses.length === 1) {
      const attempt = this.refuteClause(goal, clauses[0]!, text, depth);
      const note = joinNotes(factNote, attempt.note);
      return { ...attempt, ...(note && { note }) };
    }
    const shown = clauses.slice(0, this.context.limits.maxBranches);
    const more = clauses.length - shown.length;
    const moreNote = more > 0 ? `${more} more rules not shown` : undefined;
    const children = shown.map((clause) => this.refuteClause(goal, clause, text, depth));
    return node(text, false, children, { note: joinNotes(factNote, moreNote) });
  }

  /**
   * Whether to name the missing fact: for a predicate without rules, and for roles and
   * relations, which facts grant (a derived predicate's facts would only be noise).
   */
  private mayBeFact(goal: Goal): boolean {
    return !this.context.program.rules.has(goal.predicate) || GRANTED_BY_FACTS.has(goal.name);
  }

  /** One clause tried: each `or` branch of its body, or the one conjunction directly. */
  private refuteClause(goal: Goal, clause: Clause, text: string, depth: number): ExplainNode {
    this.nodes++;
    const compiled = compileClause(clause);
    const head = matchHead(this.context.session, compiled, goal.args)!;
    const rule = ruleOf(this.context.program, clause);
    const branches = namedConjunctions(compiled);
    if (branches.length === 0) return node(text, false, [], { rule, note: "its body is false" });
    if (branches.length === 1) {
      const failure = this.conjunctionFailure(branches[0]!, head.env, depth);
      return node(text, false, failure.children, { rule, note: failure.note });
    }
    const shown = branches.slice(0, this.context.limits.maxBranches);
    const children = shown.map((atoms) => {
      const failure = this.conjunctionFailure(atoms, head.env, depth);
      // A branch of one condition is that condition's node.
      const [only] = failure.children;
      if (atoms.length === 1 && only && failure.children.length === 1 && !failure.note) return only;
      this.nodes++;
      const branch = atoms.map((atom) => atomText(this.context, atom, head.env)).join(" and ");
      return node(branch, false, failure.children, { note: failure.note });
    });
    const more = branches.length - shown.length;
    const note = more > 0 ? `${more} more \`or\` branches not shown` : undefined;
    return node(text, false, children, { rule, note });
  }

  /**
   * Runs the atoms in the evaluator's order, keeping every binding of the prefix, until one
   * atom has no solution for any of them: the atoms that held, then that one.
   */
  private conjunctionFailure(
    atoms: Conjunction,
    start: Env,
    depth: number,
  ): { children: ExplainNode[]; note?: string } {
    let bindings: Env[] = [start];
    let truncated = false;
    const held: Atom[] = [];
    const pending = [...atoms];
    while (pending.length > 0) {
      const index = pickNext(this.context.session, pending, bindings[0]!);
      const atom = pending.splice(index, 1)[0]!;
      const next: Env[] = [];
      for (const env of bindings) {
        solveTop(this.context.session, [atom], env, (solution) => {
          next.push(solution);
          return next.length >= MAX_BINDINGS;
        });
        if (next.length >= MAX_BINDINGS) {
          truncated = true;
          break;
        }
      }
      if (next.length === 0) {
        const env = bindings[0]!;
        const children = held
          .filter((before) => this.shown(before, env))
          .map((before) => this.heldNode(before, env));
        children.push(this.failedNode(atom, env, depth));
        return { children, note: this.alternativesNote(bindings, atoms, truncated) };
      }
      held.push(atom);
      bindings = next;
    }
    // Every atom held: the clause only gives answers that do not cover the goal.
    const env = bindings[0]!;
    return {
      children: held.map((atom) => this.heldNode(atom, env)),
      note: "its body holds only for other values than these",
    };
  }

  /** A `matches` that only narrowed a still unbound variable says nothing worth a line. */
  private shown(atom: Atom, env: Env): boolean {
    if (atom.kind !== "matches" || atom.variable.kind !== "var") return true;
    const slot = env.get(atom.variable.name);
    return slot !== undefined && !isWildcard(slot);
  }

  private alternativesNote(bindings: Env[], atoms: Conjunction, truncated: boolean) {
    if (bindings.length < 2) return undefined;
    const names = [...new Set(atoms.flatMap(variablesOf))].filter(
      (name) => !name.startsWith("_#") && differs(bindings, name),
    );
    const values = names.map(
      (name) =>
        `${name} = ${bindings
          .slice(1, 4)
          .map((env) => slotText(env.get(name)!))
          .join(", ")}${bindings.length > 4 ? ", …" : ""}`,
    );
    const count = truncated ? `the first ${bindings.length}` : `all ${bindings.length}`;
    return `fails for ${count} bindings; shown for the first${values.length ? ` (others: ${values.join("; ")})` : ""}`;
  }

  private heldNode(atom: Atom, env: Env): ExplainNode {
    this.nodes++;
    if (this.overBudget()) {
      return node(atomText(this.context, atom, env), true, [], { note: "holds (proof not shown)" });
    }
    const proof = this.prover.atomProof(atom, env);
    // Proofs share nodes: counted as written, up to what the budget can still take.
    this.nodes += proof ? countNodes(proof, this.context.limits.maxNodes + 1) - 1 : 0;
    return proof ?? node(atomText(this.context, atom, env), true, []);
  }

  private failedNode(atom: Atom, env: Env, depth: number): ExplainNode {
    switch (atom.kind) {
      case "call":
        return this.refute(callGoal(this.context, atom, env), depth + 1);
      case "not":
        return this.negationNode(atom, env);
      case "unify":
      case "compare":
      case "in":
      case "matches":
        this.nodes++;
        return node(atomText(this.context, atom, env), false, []);
      default: {
        const _never: never = atom;
        return _never;
      }
    }
  }

  /** A `not` that failed: its operand holds; show one proof of it. */
  private negationNode(atom: NotAtom, env: Env): ExplainNode {
    this.nodes++;
    const text = atomText(this.context, atom, env);
    for (const conjunction of atom.body) {
      const atoms = nameAnonymous(conjunction);
      let solution: Env | null = null;
      solveTop(this.context.session, atoms, env, (found) => {
        solution = found;
        return true;
      });
      if (solution) {
        const inner = solution as Env;
        const children = atoms.map((inside) => this.heldNode(inside, inner));
        return node(text, false, children, { note: "its operand holds" });
      }
    }
    return node(text, false, []);
  }

  private missingFact(goal: Goal): string {
    const text = goalText(goal);
    return goal.args.some(isWildcard) ? `no fact matches \`${text}\`` : `no fact \`${text}\``;
  }
}

function variablesOf(atom: Atom): string[] {
  const names: string[] = [];
  const add = (term: { kind: string; name?: string }) => {
    if (term.kind === "var" && term.name) names.push(term.name);
  };
  switch (atom.kind) {
    case "call":
      atom.args.forEach(add);
      break;
    case "unify":
    case "compare":
      add(atom.left);
      add(atom.right);
      break;
    case "in":
      add(atom.element);
      atom.list.forEach(add);
      break;
    case "matches":
      add(atom.variable);
      break;
    case "not":
      break;
    default: {
      const _never: never = atom;
      return _never;
    }
  }
  return names;
}

function differs(bindings: readonly Env[], name: string): boolean {
  const key = (env: Env) => {
    const slot = env.get(name);
    return slot ? slotKey(slot) : "";
  };
  const first = key(bindings[0]!);
  return bindings.some((env) => key(env) !== first);
}

function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const present = notes.filter((note): note is string => Boolean(note));
  return present.length ? present.join("; ") : undefined;
}
