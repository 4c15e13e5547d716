/**
 * Fact signatures (docs/policy-language.md#rules-and-facts, docs/policy-language.md#type-inference): which argument types the store accepts for each
 * predicate the policy calls, defines or declares.
 *
 * A position's types are the union of what the policy says about it: `declare`d types, head
 * specializers and literals, `type` declarations, and the types of call arguments. A variable's
 * type inside one clause is what restricts it (specializer, `matches`, comparison or unification
 * with a literal, `in` a literal list); an unrestricted variable takes the signature types of
 * the positions it occupies. The two feed each other, so this runs to a fixpoint. A position
 * nothing says anything about accepts any value (null).
 */
import { BUILTINS } from "../builtins/registry.js";
import type { Expr, Head, Item, Param, Term } from "../polar/ast.js";
import { forEachAtom } from "../polar/expr.js";
import type { Clause, FactSignature, PredicateKey } from "./program.js";
import { predicateKey } from "./program.js";

/** `has_role/2,3`, `has_permission/2,3`, `has_relation/3` accept any arguments (docs/policy-language.md#project-decisions, decision 4). */
const OPEN_PREDICATES: ReadonlyMap<PredicateKey, number> = new Map([
  ["has_role/2", 2],
  ["has_role/3", 3],
  ["has_permission/2", 2],
  ["has_permission/3", 3],
  ["has_relation/3", 3],
]);

/** A predicate position together with what fills it there: fixed types or a variable class. */
interface Use {
  readonly predicate: PredicateKey;
  readonly position: number;
  readonly types?: readonly string[];
  readonly variableClass?: number;
}

/** One clause, assertion or query: its variable classes and the positions they fill. */
interface Unit {
  /** Per class: the types restricting it (empty when unrestricted). */
  readonly restrictions: readonly Set<string>[];
  readonly uses: readonly Use[];
}

/**
 * Infers the fact signature of every predicate mentioned by the clauses or items.
 *
 * @example
 * // declare has_tag(User, String);
 * inferSignatures(clauses, items).get("has_tag/2")?.args; // [["User"], ["String"]]
 */
export function inferSignatures(
  clauses: readonly Clause[],
  items: readonly Item[],
): Map<PredicateKey, FactSignature> {
  const positions = new Map<PredicateKey, { name: string; sets: Set<string>[] }>();
  const ensure = (name: string, arity: number): PredicateKey => {
    const key = predicateKey(name, arity);
    if (!positions.has(key)) {
      positions.set(key, { name, sets: Array.from({ length: arity }, () => new Set<string>()) });
    }
    return key;
  };
  for (const [key, arity] of OPEN_PREDICATES) ensure(key.slice(0, key.indexOf("/")), arity);

  const units: Unit[] = [];
  const add = (unit: Unit | null) => {
    if (unit) units.push(unit);
  };
  for (const clause of clauses) {
    add(buildUnit({ name: clause.name, params: clause.params }, clause.body, ensure));
  }
  for (const item of items) {
    switch (item.kind) {
      case "declare": {
        const entry = positions.get(ensure(item.name.name, item.types.length))!;
        item.types.forEach((type, i) => {
          entry.sets[i]!.add(type.name);
        });
        break;
      }
      case "rule_type":
        add(buildUnit(headOf(item.head), null, ensure));
        break;
      case "inline_query":
        add(buildUnit(null, item.expr, ensure));
        break;
      case "test":
        for (const assertion of item.assertions) {
          add(buildUnit(headOf(assertion.query), assertion.iff, ensure));
        }
        break;
      case "block":
      case "rule":
      case "fixture":
        break;
      default: {
        const _never: never = item;
        return _never;
      }
    }
  }

  const open = (key: PredicateKey) => OPEN_PREDICATES.has(key);
  const readers = new Map<PredicateKey, Unit[]>();
  for (const unit of units) {
    for (const use of unit.uses) {
      if (open(use.predicate)) continue;
      if (use.types) for (const type of use.types) addType(positions, use, type);
      if (use.variableClass !== undefined && unit.restrictions[use.variableClass]!.size === 0) {
        const list = readers.get(use.predicate) ?? [];
        if (list[list.length - 1] !== unit) list.push(unit);
        readers.set(use.predicate, list);
      }
    }
  }

  const queued = new Set<Unit>(units);
  const queue = [...units];
  while (queue.length > 0) {
    const unit = queue.pop()!;
    queued.delete(unit);
    const classTypes = typesOfClasses(unit, positions, open);
    for (const use of unit.uses) {
      if (use.variableClass === undefined || open(use.predicate)) continue;
      let grew = false;
      for (const type of classTypes[use.variableClass]!) {
        if (addType(positions, use, type)) grew = true;
      }
      if (!grew) continue;
      for (const reader of readers.get(use.predicate) ?? []) {
        if (reader !== unit && !queued.has(reader)) {
          queued.add(reader);
          queue.push(reader);
        }
      }
    }
  }

  const signatures = new Map<PredicateKey, FactSignature>();
  for (const [key, entry] of positions) {
    signatures.set(key, {
      predicate: key,
      name: entry.name,
      args: entry.sets.map((set) => (open(key) || set.size === 0 ? null : [...set].sort())),
    });
  }
  return signatures;
}

function addType(
  positions: Map<PredicateKey, { sets: Set<string>[] }>,
  use: Use,
  type: string,
): boolean {
  const set = positions.get(use.predicate)!.sets[use.position]!;
  if (set.has(type)) return false;
  set.add(type);
  return true;
}

/** Restricted classes keep their restriction; the others take the types of their positions. */
function typesOfClasses(
  unit: Unit,
  positions: ReadonlyMap<PredicateKey, { sets: Set<string>[] }>,
  open: (key: PredicateKey) => boolean,
): ReadonlySet<string>[] {
  const result: Set<string>[] = unit.restrictions.map((r) => (r.size > 0 ? r : new Set()));
  for (const use of unit.uses) {
    const id = use.variableClass;
    if (id === undefined || unit.restrictions[id]!.size > 0 || open(use.predicate)) continue;
    for (const type of positions.get(use.predicate)!.sets[use.position]!) result[id]!.add(type);
  }
  return result;
}

function headOf(head: Head): { name: string; params: readonly Param[] } {
  return { name: head.name.name, params: head.params };
}

/**
 * The type of a literal term (`"a"` String, `3` Integer, `User{"a"}` User), null otherwise.
 *
 * @example
 * literalType({ kind: "boolean", value: true, span }); // "Boolean"
 */
function literalType(term: Term): string | null {
  switch (term.kind) {
    case "string":
      return "String";
    case "integer":
      return "Integer";
    case "builtin":
      return BUILTINS[term.name].type;
    case "boolean":
      return "Boolean";
    case "object":
      return term.type.name;
    case "variable":
      return null;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

type Ensure = (name: string, arity: number) => PredicateKey;

/** A predicate position and the term that fills it (with the specializer type, if any). */
interface RawUse {
  readonly predicate: PredicateKey;
  readonly position: number;
  readonly term: Term;
  readonly typed?: string;
}

/**
 * The unit of a clause, assertion or query; null when it fills no position of a predicate
 * with a signature of its own (it then cannot contribute anything).
 */
function buildUnit(
  head: { name: string; params: readonly Param[] } | null,
  body: Expr | null,
  ensure: Ensure,
): Unit | null {
  const uses: RawUse[] = [];
  if (head) {
    const predicate = ensure(head.name, head.params.length);
    if (!OPEN_PREDICATES.has(predicate)) {
      head.params.forEach((param, position) => {
        if (param.kind === "typed") {
          uses.push({ predicate, position, term: param.variable, typed: param.type.name });
        } else {
          uses.push({ predicate, position, term: param });
        }
      });
    }
  }
  if (body) collectCalls(body, uses, ensure);
  if (uses.length === 0) return null;

  const classes = variableClasses();
  const restrictions = new Map<string, Set<string>>();
  const restrict = (name: string, type: string) => {
    if (name === "_") return;
    let set = restrictions.get(name);
    if (!set) {
      set = new Set();
      restrictions.set(name, set);
    }
    set.add(type);
  };
  if (head) {
    for (const param of head.params) {
      if (param.kind === "typed") restrict(param.variable.name, param.type.name);
    }
  }
  if (body) collectRestrictions(body, classes, restrict);

  const ids = new Map<string, number>();
  const idOf = (name: string) => {
    const root = classes.find(name);
    let id = ids.get(root);
    if (id === undefined) {
      id = ids.size;
      ids.set(root, id);
    }
    return id;
  };
  const unitUses: Use[] = [];
  for (const { predicate, position, term, typed } of uses) {
    if (typed) {
      unitUses.push({ predicate, position, types: [typed] });
    } else if (term.kind === "variable") {
      if (term.name !== "_") unitUses.push({ predicate, position, variableClass: idOf(term.name) });
    } else {
      unitUses.push({ predicate, position, types: [literalType(term)!] });
    }
  }
  const classRestrictions: Set<string>[] = Array.from({ length: ids.size }, () => new Set());
  for (const [name, types] of restrictions) {
    const id = ids.get(classes.find(name));
    if (id === undefined) continue; // restricts a variable that fills no position
    for (const type of types) classRestrictions[id]!.add(type);
  }
  return { restrictions: classRestrictions, uses: unitUses };
}

/** Calls of predicates with a signature of their own; every called predicate is ensured. */
function collectCalls(expr: Expr, uses: RawUse[], ensure: Ensure): void {
  forEachAtom(expr, (atom) => {
    if (atom.kind !== "call") return;
    const predicate = ensure(atom.name.name, atom.args.length);
    if (OPEN_PREDICATES.has(predicate)) return;
    atom.args.forEach((term, position) => {
      uses.push({ predicate, position, term });
    });
  });
}

/** Restrictions from positive atoms, and classes of variables unified or compared. */
function collectRestrictions(
  expr: Expr,
  classes: VariableClasses,
  restrict: (name: string, type: string) => void,
): void {
  forEachAtom(expr, (atom, negation) => {
    if (negation !== null) return;
    switch (atom.kind) {
      case "compare": {
        if (atom.op === "!=") return;
        const { left, right } = atom;
        if (left.kind === "variable" && right.kind === "variable") {
          classes.union(left.name, right.name);
        } else if (left.kind === "variable") restrict(left.name, literalType(right)!);
        else if (right.kind === "variable") restrict(right.name, literalType(left)!);
        return;
      }
      case "in": {
        if (atom.element.kind !== "variable") return;
        for (const element of atom.list) {
          if (element.kind === "variable") classes.union(atom.element.name, element.name);
          else restrict(atom.element.name, literalType(element)!);
        }
        return;
      }
      case "matches":
        restrict(atom.variable.name, atom.type.name);
        return;
      case "call":
      case "bool":
        return;
      default: {
        const _never: never = atom;
        throw new Error(`unexpected node ${String(_never)}`);
      }
    }
  });
}

/** Union-find over variable names; `_` never joins a class. */
interface VariableClasses {
  readonly find: (name: string) => string;
  readonly union: (a: string, b: string) => void;
}

function variableClasses(): VariableClasses {
  const parent = new Map<string, string>();
  const find = (name: string): string => {
    let root = name;
    for (let up = parent.get(root); up !== undefined; up = parent.get(root)) root = up;
    if (root !== name) parent.set(name, root);
    return root;
  };
  const union = (a: string, b: string) => {
    if (a === "_" || b === "_") return;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  return { find, union };
}
