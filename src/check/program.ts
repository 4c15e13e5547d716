/**
 * The checked program: what every later stage (evaluator, planner, store, HTTP) consumes.
 * Plain readonly data; shorthand rules are already desugared into ordinary clauses.
 */
import type { GroundFact } from "../core/value.js";
import type { Assertion, Expr, InlineQuery, Param } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";

/** `name/arity`, e.g. `has_role/3`: the identity of a predicate. */
export type PredicateKey = `${string}/${number}`;

export function predicateKey(name: string, arity: number): PredicateKey {
  return `${name}/${arity}`;
}

export interface Clause {
  readonly predicate: PredicateKey;
  readonly name: string;
  readonly params: readonly Param[];
  /** Null for a bodiless rule (a fact, possibly universal such as `f(_: User);`). */
  readonly body: Expr | null;
  /** Where the clause came from; desugared clauses keep the span of their shorthand rule. */
  readonly origin: "rule" | "shorthand" | "default_allow";
  readonly span: Span;
}

export type TypeKind = "primitive" | "abstract" | "actor" | "resource" | "undeclared";

export interface TypeInfo {
  readonly name: string;
  readonly kind: TypeKind;
  /** Direct supertypes: `extends` targets, plus `Actor`/`Resource` as docs/policy-language.md#values-and-types says. */
  readonly supertypes: readonly string[];
  /** Reflexive, transitive supertypes (including the type itself). */
  readonly ancestors: readonly string[];
  readonly span?: Span;
}

/** Roles, permissions and relations of one block, including inherited ones (sorted). */
export interface ResourceMeta {
  readonly name: string;
  readonly kind: "actor" | "resource" | "global";
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
  /** Relation name -> target type name. */
  readonly relations: Readonly<Record<string, string>>;
}

/**
 * Which facts the store accepts for a predicate. `args[i]` null: any value; otherwise the
 * value's type (or one of its supertypes) must be in the list.
 */
export interface FactSignature {
  readonly predicate: PredicateKey;
  readonly name: string;
  readonly args: readonly (readonly string[] | null)[];
}

export interface TestCase {
  readonly name: string;
  /** Setup facts with fixtures expanded, in order. */
  readonly facts: readonly GroundFact[];
  readonly assertions: readonly Assertion[];
  readonly span: Span;
}

export interface Program {
  readonly sources: readonly SourceFile[];
  /** Clauses grouped by predicate, in source order. Includes the default `allow` when injected. */
  readonly rules: ReadonlyMap<PredicateKey, readonly Clause[]>;
  /** Every known type: primitives, `Actor`, `Resource`, declared and undeclared entity types. */
  readonly types: ReadonlyMap<string, TypeInfo>;
  /** One entry per actor/resource block plus `global` (always present). */
  readonly resources: ReadonlyMap<string, ResourceMeta>;
  readonly factSignatures: ReadonlyMap<PredicateKey, FactSignature>;
  readonly tests: readonly TestCase[];
  readonly inlineQueries: readonly InlineQuery[];
  /** Warnings found while checking (errors make checking fail). */
  readonly warnings: readonly Diagnostic[];
}

/** `sub` is `sup` or a transitive subtype of it. Unknown names are only subtypes of themselves. */
export function isSubtype(program: Pick<Program, "types">, sub: string, sup: string): boolean {
  if (sub === sup) return true;
  return program.types.get(sub)?.ancestors.includes(sup) ?? false;
}
