/**
 * The types an untyped wildcard of `POST /query` may stand for. Questions over the store need
 * a concrete type per variable, so `has_role(User{"ada"}, _, _)` is asked once per type
 * combination the arguments can have. The candidates are a superset: a type too many costs a
 * question that finds nothing, a type too few would lose answers.
 *
 * Sources: stored fact shapes and context facts (exact), and each clause of the predicate: a
 * specializer or a literal in the head gives its type; a head variable takes the types that the
 * body's calls or `matches` allow; anything else may be any type.
 */
import { BUILTINS } from "../builtins/registry.js";
import { isSubtype, type Program, predicateKey } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import type { Expr, Param, Term } from "../polar/ast.js";
import type { FactShape } from "../store/facts.js";

/**
 * A set of types; `any` when unconstrained; `cycle` when only a recursive call constrains it,
 * which adds nothing to what the predicate's other clauses give.
 */
type Candidates = ReadonlySet<string> | "any" | "cycle";

export interface WildcardSources {
  readonly program: Program;
  readonly shapes: readonly FactShape[];
  readonly contextFacts: readonly GroundFact[];
}

/**
 * The concrete types argument `position` of `predicate/arity` may have.
 *
 *   candidateTypes(sources, "has_role", 3, 1); // Set { "String" }
 */
export function candidateTypes(
  sources: WildcardSources,
  predicate: string,
  arity: number,
  position: number,
): ReadonlySet<string> {
  const found = new Inference(sources).of(predicate, arity, position);
  return typeof found === "string" ? concreteTypes(sources.program) : found;
}

/**
 * Every concrete type: primitives, actors, resources and undeclared entity types.
 *
 *   concreteSubtypes(program, "Actor"); // Set { "User", "Bot" }
 */
export function concreteSubtypes(program: Program, type: string): ReadonlySet<string> {
  const found = new Set<string>();
  for (const info of program.types.values()) {
    if (info.kind !== "abstract" && isSubtype(program, info.name, type)) found.add(info.name);
  }
  return found;
}

function concreteTypes(program: Program): ReadonlySet<string> {
  return new Set(
    [...program.types.values()].filter((t) => t.kind !== "abstract").map((t) => t.name),
  );
}

/** How deep head variables are followed into the calls of bodies. */
const MAX_DEPTH = 6;

class Inference {
  /** Predicate positions being inferred: a recursive call adds nothing new to them. */
  private readonly visiting = new Set<string>();

  constructor(private readonly sources: WildcardSources) {}

  of(predicate: string, arity: number, position: number): Candidates {
    const key = `${predicateKey(predicate, arity)}#${position}`;
    if (this.visiting.has(key)) return "cycle";
    if (this.visiting.size >= MAX_DEPTH) return "any";
    this.visiting.add(key);
    try {
      const found = new Set<string>();
      const { shapes, contextFacts, program } = this.sources;
      for (const shape of shapes) {
        if (shape.predicate === predicate && shape.types.length === arity)
          found.add(shape.types[position]!);
      }
      for (const fact of contextFacts) {
        if (fact.predicate === predicate && fact.args.length === arity)
          found.add(fact.args[position]!.type);
      }
      for (const clause of program.rules.get(predicateKey(predicate, arity)) ?? []) {
        const types = this.ofParam(clause.params[position]!, clause.body);
        if (types === "any") return "any";
        if (types !== "cycle") for (const type of types) found.add(type);
      }
      return found;
    } finally {
      this.visiting.delete(key);
    }
  }

  private ofParam(param: Param, body: Expr | null): Candidates {
    switch (param.kind) {
      case "typed":
        return concreteSubtypes(this.sources.program, param.type.name);
      case "variable":
        return body ? this.ofVariable(param.name, body) : "any";
      default:
        return termType(param);
    }
  }

  /** Types the body allows for a variable. */
  private ofVariable(name: string, expr: Expr): Candidates {
    switch (expr.kind) {
      case "call": {
        const position = expr.args.findIndex((arg) => arg.kind === "variable" && arg.name === name);
        if (position < 0) return "any";
        return this.of(expr.name.name, expr.args.length, position);
      }
      case "matches":
        return expr.variable.name === name
          ? concreteSubtypes(this.sources.program, expr.type.name)
          : "any";
      case "and": {
        // Any conjunct's types are a superset of the conjunction's: keep the narrowest.
        let narrowest: Candidates = "any";
        for (const operand of expr.operands) {
          const types = this.ofVariable(name, operand);
          if (typeof types !== "string") {
            if (typeof narrowest === "string" || types.size < narrowest.size) narrowest = types;
          } else if (types === "cycle" && narrowest === "any") narrowest = "cycle";
        }
        return narrowest;
      }
      case "or": {
        const union = new Set<string>();
        for (const operand of expr.operands) {
          const types = this.ofVariable(name, operand);
          if (types === "any") return "any";
          if (types !== "cycle") for (const type of types) union.add(type);
        }
        return union;
      }
      case "not":
      case "compare":
      case "in":
      case "bool":
        return "any";
      default: {
        const _never: never = expr;
        return _never;
      }
    }
  }
}

function termType(term: Exclude<Term, { kind: "variable" }>): Candidates {
  switch (term.kind) {
    case "string":
      return new Set(["String"]);
    case "integer":
      return new Set(["Integer"]);
    case "builtin":
      return new Set([BUILTINS[term.name].type]);
    case "boolean":
      return new Set(["Boolean"]);
    case "object":
      return new Set([term.type.name]);
    default: {
      const _never: never = term;
      return _never;
    }
  }
}
