/**
 * An independent checker of explanations: it knows the node format (docs/explain.md) and the
 * policy, and nothing of how explanations are built. For a tree it re-checks that
 *
 * - every node that holds is a valid derivation: a fact leaf is exactly a fact of the stated
 *   source; a rule node names a clause (file, line, column, text) whose head matches the goal and
 *   whose body, under one substitution, is satisfied by the children (one child per atom of one
 *   `or` branch); a comparison, `in` or `matches` leaf is true; a `not` leaf is the clause's `not`
 *   under the substitution, and the reference evaluator finds its operand false;
 * - every call node that does not hold (and has no wildcard) is false for the reference
 *   evaluator.
 *
 * `check` returns the problems found; none means the tree checks.
 */
import { BUILTINS } from "../../src/builtins/registry.js";
import { checkPolicy } from "../../src/check/check.js";
import { type Clause, isSubtype, type Program } from "../../src/check/program.js";
import type { GroundFact, Value } from "../../src/core/value.js";
import { query } from "../../src/evaluate/index.js";
import type { Expr, Term } from "../../src/polar/ast.js";
import { positionOf } from "../../src/source/source.js";
import { type Goal, type Item, itemKey, parseGoal, safeParse } from "./explain-goals.js";

/** The node format, restated here on purpose. */
export interface CheckedNode {
  readonly goal: string;
  readonly holds: boolean;
  readonly rule?: { file: string; line: number; column: number; text: string };
  readonly fact?: { predicate: string; args: readonly Value[]; source: string };
  readonly note?: string;
  readonly children: readonly CheckedNode[];
}

export interface CheckerInput {
  readonly program: Program;
  /** Facts by source: `stored`, `context`, `local`, `setup`. */
  readonly facts: Readonly<Record<string, readonly GroundFact[]>>;
  readonly now: bigint;
}

// ---------------------------------------------------------------- the checker

type Theta = ReadonlyMap<string, Item>;

export function check(input: CheckerInput, tree: CheckedNode): string[] {
  const { program } = input;
  const problems: string[] = [];
  const factKeys = new Map<string, Set<string>>();
  for (const [source, facts] of Object.entries(input.facts)) {
    factKeys.set(source, new Set(facts.map((f) => factKey(f.predicate, f.args.map(canonical)))));
  }

  /**
   * Every node once, with an explicit stack (a proof is as deep as its data): a node that holds
   * is checked as one step of a derivation whose children must hold in turn; a node that does
   * not hold is checked as a failure. A node shared by several proofs is checked once.
   */
  const walk = () => {
    const stack: { node: CheckedNode; inProof: boolean }[] = [{ node: tree, inProof: false }];
    const done = new Set<CheckedNode>();
    while (stack.length > 0) {
      const { node, inProof } = stack.pop()!;
      if (inProof && done.has(node)) continue;
      done.add(node);
      if (!node.holds) {
        if (inProof) {
          problems.push(`child ${node.goal} does not hold`);
          continue;
        }
        const problem = checkFails(node);
        if (problem) problems.push(`${node.goal}: ${problem}`);
        for (const child of node.children) stack.push({ node: child, inProof: false });
        continue;
      }
      // Inside a denied tree, a proof that would not fit is cut: it holds, with a note and no
      // children. An allowed tree is never cut.
      const cut = node.note && node.children.length === 0 && !node.rule && !node.fact;
      if (!inProof && cut && !tree.holds) continue;
      const problem = checkStep(node);
      if (problem) problems.push(`${node.goal}: ${problem}`);
      else for (const child of node.children) stack.push({ node: child, inProof: true });
    }
  };

  /**
   * One step of a derivation: a fact, a clause instance whose body the children satisfy, the
   * default allow, or a true builtin. Its children are checked apart.
   */
  function checkStep(node: CheckedNode): string | null {
    let goal: Goal;
    try {
      goal = parseGoal(node.goal);
    } catch (error) {
      return (error as Error).message;
    }
    if (node.fact) {
      if (node.children.length) return "a fact leaf has children";
      if (goal.kind !== "call" || goal.name !== node.fact.predicate) return "not the fact's goal";
      const args = node.fact.args.map(canonical);
      if (goal.args.some((a, i) => a.kind !== "value" || !sameValue(a.value, args[i]!)))
        return "goal and fact differ";
      if (goal.args.length !== args.length) return "goal and fact differ in arity";
      if (!factKeys.get(node.fact.source)?.has(factKey(node.fact.predicate, args)))
        return `no such ${node.fact.source} fact`;
      return null;
    }
    if (node.rule) {
      if (goal.kind !== "call") return "a rule node must be a call";
      const clauses = clausesAt(node.rule, goal);
      if (clauses.length === 0) return "the rule does not name a clause of this predicate";
      return clauses.some((clause) => derives(clause, goal, node.children))
        ? null
        : "the children do not satisfy the clause";
    }
    if (goal.kind === "call") {
      // Only the implicit default allow derives a call without a rule.
      const allow = program.rules.get("allow/3") ?? [];
      if (goal.name !== "allow" || goal.args.length !== 3) return "a call without rule or fact";
      if (!(allow.length === 1 && allow[0]!.origin === "default_allow"))
        return "the policy declares `allow`, so a proof must name its rule";
      const [child] = node.children;
      if (node.children.length !== 1 || !child) return "the default allow has one child";
      const inner = safeParse(child.goal);
      if (inner?.kind !== "call" || inner.name !== "has_permission") return "not has_permission";
      if (inner.args.map(itemKey).join() !== goal.args.map(itemKey).join())
        return "has_permission differs from allow";
      return null;
    }
    if (node.children.length) return "a builtin has children";
    return builtinHolds(goal, node.goal);
  }

  /**
   * A node that does not hold: a call is false for the reference evaluator, a builtin is false,
   * and a rule it names is a clause of the goal's predicate.
   */
  function checkFails(node: CheckedNode): string | null {
    const goal = safeParse(node.goal);
    if (!goal) return null; // an `or` branch: a conjunction of atoms
    if (goal.kind !== "call") {
      return goal.kind === "not" || builtinHolds(goal, node.goal) !== null
        ? null
        : "said not to hold, but it is true";
    }
    if (node.rule && clausesAt(node.rule, goal).length === 0) {
      return "the rule does not name a clause of this predicate";
    }
    if (!goal.args.every((a) => a.kind === "value")) return null;
    const values = goal.args.map((a) => (a as { value: Value }).value);
    const variables = values.map((_, i) => `v${i}`);
    const constraints = Object.fromEntries(
      values.map((v, i) => [`v${i}`, { type: v.type, ids: [v.id] }]),
    );
    const known =
      program.rules.has(`${goal.name}/${values.length}`) ||
      program.factSignatures.has(`${goal.name}/${values.length}`);
    if (!known) return null;
    const rows = query(
      program,
      allFacts(),
      { predicate: [goal.name, variables], constraints },
      {
        now: () => input.now,
      },
    );
    return rows.length > 0 ? "said not to hold, but the evaluator finds it" : null;
  }

  function builtinHolds(goal: Goal, text: string): string | null {
    switch (goal.kind) {
      case "compare": {
        if (goal.left.kind !== "value" || goal.right.kind !== "value") {
          return goal.op === "=" && itemKey(goal.left) === itemKey(goal.right)
            ? null
            : "compares a wildcard";
        }
        return compare(goal.op, goal.left.value, goal.right.value) ? null : "comparison is false";
      }
      case "in":
        return goal.list.some((e) => itemKey(e) === itemKey(goal.element)) ? null : "not in list";
      case "matches": {
        const it = goal.item;
        const types = it.kind === "value" ? [it.value.type] : it.kind === "wild" ? it.types : [];
        return types.some((t) => isSubtype(program, t, goal.type)) ? null : "does not match";
      }
      case "not":
        return probe(text) ? null : "the evaluator finds the negated operand";
      case "call":
        return "a call without rule or fact";
    }
  }

  /**
   * A `not …` text as the body of a new rule added to the policy. Polar's `matches` takes a
   * variable, so a value's `matches` is decided here first (`true` or `false`).
   */
  function probeProgram(text: string): Program | null {
    const literal = String.raw`(?:[A-Za-z_][A-Za-z0-9_]*\{"(?:[^"\\]|\\.)*"\}|"(?:[^"\\]|\\.)*"|-?[0-9]+|true|false)`;
    const decided = text.replace(
      new RegExp(`(${literal}) matches ([A-Za-z_][A-Za-z0-9_]*)`, "g"),
      (_, value: string, type: string) => {
        const parsed = parseGoal(`${value} = ${value}`) as { left: Item };
        const types = parsed.left.kind === "value" ? [parsed.left.value.type] : [];
        return String(types.some((t) => isSubtype(program, t, type)));
      },
    );
    const checked = checkPolicy([
      ...program.sources,
      { name: "explain-probe.polar", text: `explain_probe_0() if ${decided};` },
    ]);
    return checked.ok ? checked.program : null;
  }

  /** Evaluates a `not …` text with the reference evaluator. */
  function probe(text: string): boolean {
    const checked = probeProgram(text);
    if (!checked) return false;
    const rows = query(
      checked,
      allFacts(),
      { predicate: ["explain_probe_0", []], constraints: {} },
      { now: () => input.now },
    );
    return rows.length === 1;
  }

  function allFacts(): GroundFact[] {
    return Object.values(input.facts).flat();
  }

  /** Clauses of the goal's predicate that start where the rule says, with its text. */
  function clausesAt(rule: NonNullable<CheckedNode["rule"]>, goal: Goal & { kind: "call" }) {
    const clauses = program.rules.get(`${goal.name}/${goal.args.length}`) ?? [];
    return clauses.filter((clause) => {
      const source = program.sources.find((s) => s.name === clause.span.file);
      if (!source || clause.span.file !== rule.file) return false;
      const { line, column } = positionOf(source, clause.span.start);
      const text = source.text.slice(clause.span.start, clause.span.end);
      return line === rule.line && column === rule.column && text === rule.text;
    });
  }

  /** Head and body of the clause match the goal and the children under one substitution. */
  function derives(
    clause: Clause,
    goal: Goal & { kind: "call" },
    children: readonly CheckedNode[],
  ) {
    let theta: Theta | null = new Map();
    for (const [i, param] of clause.params.entries()) {
      const arg = goal.args[i]!;
      if (param.kind === "typed") {
        const types =
          arg.kind === "value" ? [arg.value.type] : arg.kind === "wild" ? arg.types : [];
        if (!types.some((t) => isSubtype(program, t, param.type.name))) return false;
        theta = bindTerm(theta, param.variable, arg);
      } else theta = bindTerm(theta, param, arg);
      if (!theta) return false;
    }
    const parsed = children.map((child) => safeParse(child.goal));
    return dnf(clause.body).some(
      (atoms) => atoms.length === children.length && assign(atoms, parsed, children, theta!),
    );
  }

  /** Matches atoms to children (any order), then checks the `not` atoms under the result. */
  function assign(
    atoms: readonly Expr[],
    parsed: readonly (Goal | null)[],
    children: readonly CheckedNode[],
    theta: Theta,
  ): boolean {
    const used = new Set<number>();
    const search = (i: number, current: Theta, negations: [Expr, number][]): boolean => {
      if (i === atoms.length)
        return negations.every(([atom, c]) => sameNegation(atom, children[c]!.goal, current));
      const atom = atoms[i]!;
      for (let c = 0; c < children.length; c++) {
        if (used.has(c)) continue;
        const child = parsed[c];
        if (!child) continue;
        const next = matchAtom(atom, child, current);
        if (!next) continue;
        used.add(c);
        const more = atom.kind === "not" ? [...negations, [atom, c] as [Expr, number]] : negations;
        if (search(i + 1, next, more)) return true;
        used.delete(c);
      }
      return false;
    };
    return search(0, theta, []);
  }

  function matchAtom(atom: Expr, goal: Goal, theta: Theta): Theta | null {
    switch (atom.kind) {
      case "call": {
        if (goal.kind !== "call" || goal.name !== atom.name.name) return null;
        if (goal.args.length !== atom.args.length) return null;
        let current: Theta | null = theta;
        atom.args.forEach((term, i) => {
          current = current && bindTerm(current, term, goal.args[i]!);
        });
        return current;
      }
      case "compare": {
        if (goal.kind !== "compare" || goal.op !== atom.op) return null;
        const left = bindTerm(theta, atom.left, goal.left);
        return left && bindTerm(left, atom.right, goal.right);
      }
      case "in": {
        if (goal.kind !== "in" || goal.list.length !== atom.list.length) return null;
        let current: Theta | null = bindTerm(theta, atom.element, goal.element);
        atom.list.forEach((term, i) => {
          current = current && bindTerm(current, term, goal.list[i]!);
        });
        return current;
      }
      case "matches": {
        if (goal.kind !== "matches" || goal.type !== atom.type.name) return null;
        return bindTerm(theta, atom.variable, goal.item);
      }
      case "not":
        return goal.kind === "not" ? theta : null;
      default:
        return null;
    }
  }

  /** The `not` text is the clause's `not` with its bound variables replaced by their values. */
  function sameNegation(atom: Expr, text: string, theta: Theta): boolean {
    const probeClause = probeProgram(text)?.rules.get("explain_probe_0/0")?.[0];
    return probeClause?.body ? sameExpr(atom, probeClause.body, theta) : false;
  }

  function sameExpr(a: Expr, b: Expr, theta: Theta): boolean {
    const bound = a.kind === "matches" ? theta.get(a.variable.name) : undefined;
    if (a.kind === "matches" && bound?.kind === "value") {
      const holds = isSubtype(program, bound.value.type, a.type.name);
      return b.kind === "bool" && b.value === holds;
    }
    if (a.kind !== b.kind) return false;
    const terms = (x: readonly Term[], y: readonly Term[]) =>
      x.length === y.length && x.every((t, i) => sameTerm(t, y[i]!, theta));
    switch (a.kind) {
      case "or":
      case "and": {
        const other = b as typeof a;
        return (
          a.operands.length === other.operands.length &&
          a.operands.every((o, i) => sameExpr(o, other.operands[i]!, theta))
        );
      }
      case "not":
        return sameExpr(a.operand, (b as typeof a).operand, theta);
      case "call": {
        const other = b as typeof a;
        return a.name.name === other.name.name && terms(a.args, other.args);
      }
      case "compare": {
        const other = b as typeof a;
        return a.op === other.op && terms([a.left, a.right], [other.left, other.right]);
      }
      case "in": {
        const other = b as typeof a;
        return terms([a.element, ...a.list], [other.element, ...other.list]);
      }
      case "matches": {
        const other = b as typeof a;
        return a.type.name === other.type.name && sameTerm(a.variable, other.variable, theta);
      }
      case "bool":
        return a.value === (b as typeof a).value;
    }
  }

  function sameTerm(a: Term, b: Term, theta: Theta): boolean {
    if (a.kind === "variable" && a.name !== "_") {
      const bound = theta.get(a.name);
      if (bound?.kind === "value")
        return termValue(b)?.id === bound.value.id && termValue(b)?.type === bound.value.type;
      return b.kind === "variable" && b.name === a.name;
    }
    if (a.kind === "variable") return b.kind === "variable" && b.name === "_";
    if (a.kind === "builtin") return b.kind === "builtin" && b.name === a.name;
    const x = termValue(a);
    const y = termValue(b);
    return x !== null && y !== null && sameValue(x, y);
  }

  function bindTerm(theta: Theta, term: Term, item: Item): Theta | null {
    switch (term.kind) {
      case "variable": {
        if (term.name === "_") return theta;
        const bound = theta.get(term.name);
        if (!bound) return new Map(theta).set(term.name, item);
        return itemKey(bound) === itemKey(item) ? theta : null;
      }
      case "builtin":
        return item.kind === "value" &&
          sameValue(item.value, BUILTINS[term.name].value({ now: input.now }))
          ? theta
          : null;
      default: {
        const literal = termValue(term);
        return literal && item.kind === "value" && sameValue(literal, item.value) ? theta : null;
      }
    }
  }

  walk();
  return problems;
}

// ---------------------------------------------------------------- helpers

function dnf(expr: Expr | null): Expr[][] {
  if (expr === null) return [[]];
  switch (expr.kind) {
    case "or":
      return expr.operands.flatMap(dnf);
    case "and":
      return expr.operands.reduce<Expr[][]>(
        (acc, operand) => acc.flatMap((left) => dnf(operand).map((right) => [...left, ...right])),
        [[]],
      );
    case "bool":
      return expr.value ? [[]] : [];
    default:
      return [[expr]];
  }
}

function termValue(term: Term): Value | null {
  switch (term.kind) {
    case "string":
      return { type: "String", id: term.value };
    case "integer":
      return { type: "Integer", id: term.value.toString() };
    case "boolean":
      return { type: "Boolean", id: String(term.value) };
    case "object": {
      const type = term.type.name;
      const raw = term.value.value;
      if (type === "Integer") return { type, id: BigInt(raw as bigint).toString() };
      return { type, id: String(raw) };
    }
    default:
      return null;
  }
}

function canonical(value: Value): Value {
  if (value.type !== "Integer" || !/^[+-]?[0-9]+$/.test(value.id)) return value;
  return { type: "Integer", id: BigInt(value.id).toString() };
}

function sameValue(a: Value, b: Value): boolean {
  const x = canonical(a);
  const y = canonical(b);
  return x.type === y.type && x.id === y.id;
}

function factKey(predicate: string, args: readonly Value[]): string {
  return JSON.stringify([predicate, args.map((a) => [a.type, a.id])]);
}

function compare(op: string, a: Value, b: Value): boolean {
  if (op === "=") return sameValue(a, b);
  if (op === "!=") return !sameValue(a, b);
  let order: number;
  if (a.type === "Integer" && b.type === "Integer") {
    const x = BigInt(a.id);
    const y = BigInt(b.id);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.type === "String" && b.type === "String") {
    const x = [...a.id].map((c) => c.codePointAt(0)!);
    const y = [...b.id].map((c) => c.codePointAt(0)!);
    order = 0;
    for (let i = 0; i < Math.min(x.length, y.length) && order === 0; i++) order = x[i]! - y[i]!;
    if (order === 0) order = x.length - y.length;
  } else return false;
  return op === "<" ? order < 0 : op === "<=" ? order <= 0 : op === ">" ? order > 0 : order >= 0;
}
