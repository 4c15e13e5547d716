/**
 * The Polar AST: plain readonly data with a `kind` tag and a half-open source span.
 * Spans never take part in equality (see `stripSpans` in test helpers).
 */
import type { BuiltinName } from "../builtins/registry.js";
import type { CompareOp } from "../core/value.js";
import type { Span } from "../source/source.js";

export interface Ident {
  readonly kind: "ident";
  readonly name: string;
  readonly span: Span;
}

// ---------------------------------------------------------------- terms

export interface StringLit {
  readonly kind: "string";
  readonly value: string;
  readonly span: Span;
}
export interface IntegerLit {
  readonly kind: "integer";
  readonly value: bigint;
  readonly span: Span;
}
export interface BooleanLit {
  readonly kind: "boolean";
  readonly value: boolean;
  readonly span: Span;
}
/** `User{"ada"}`, `Integer{3}`: an entity (type, id) or a wrapped primitive. */
export interface ObjectLit {
  readonly kind: "object";
  readonly type: Ident;
  readonly value: StringLit | IntegerLit | BooleanLit;
  readonly span: Span;
}
/** A builtin value, read once per question (src/builtins/registry.ts). */
interface BuiltinRef {
  readonly kind: "builtin";
  readonly name: BuiltinName;
  readonly span: Span;
}
/** A variable; `_` and `_`-prefixed names are anonymous. */
export interface Variable {
  readonly kind: "variable";
  readonly name: string;
  readonly span: Span;
}

type Literal = StringLit | IntegerLit | BooleanLit | ObjectLit;
export type Term = Literal | BuiltinRef | Variable;

/** `x: T` or `_: T` in a rule head. */
export interface TypedParam {
  readonly kind: "typed";
  readonly variable: Variable;
  readonly type: Ident;
  readonly span: Span;
}
export type Param = Term | TypedParam;

// ---------------------------------------------------------------- expressions

export interface Or {
  readonly kind: "or";
  readonly operands: readonly Expr[];
  readonly span: Span;
}
export interface And {
  readonly kind: "and";
  readonly operands: readonly Expr[];
  readonly span: Span;
}
export interface Not {
  readonly kind: "not";
  readonly operand: Expr;
  readonly span: Span;
}
export interface Call {
  readonly kind: "call";
  readonly name: Ident;
  readonly args: readonly Term[];
  readonly span: Span;
}
export type { CompareOp };
export interface Compare {
  readonly kind: "compare";
  readonly op: CompareOp;
  readonly left: Term;
  readonly right: Term;
  readonly span: Span;
}
export interface In {
  readonly kind: "in";
  readonly element: Term;
  readonly list: readonly Term[];
  readonly span: Span;
}
export interface Matches {
  readonly kind: "matches";
  readonly variable: Variable;
  readonly type: Ident;
  /** Written `matches!` (treated as `matches`, with a warning). */
  readonly bang: boolean;
  readonly span: Span;
}
/** Bare `true` / `false` used as a condition. */
export interface BoolAtom {
  readonly kind: "bool";
  readonly value: boolean;
  readonly span: Span;
}

export type Expr = Or | And | Not | Call | Compare | In | Matches | BoolAtom;

// ---------------------------------------------------------------- shorthand bodies

/** `"x"`, `role`, `"x" on "rel"`, `role on "rel"` inside a block. */
export interface ShorthandRef {
  readonly kind: "shorthand_ref";
  readonly term: StringLit | Variable;
  readonly on: StringLit | Variable | null;
  readonly span: Span;
}
/** `global "g"` inside a block. */
interface ShorthandGlobal {
  readonly kind: "shorthand_global";
  readonly term: StringLit | Variable;
  readonly span: Span;
}
interface SOr {
  readonly kind: "or";
  readonly operands: readonly ShorthandExpr[];
  readonly span: Span;
}
interface SAnd {
  readonly kind: "and";
  readonly operands: readonly ShorthandExpr[];
  readonly span: Span;
}
interface SNot {
  readonly kind: "not";
  readonly operand: ShorthandExpr;
  readonly span: Span;
}
export type ShorthandExpr = SOr | SAnd | SNot | Call | ShorthandRef | ShorthandGlobal;

// ---------------------------------------------------------------- blocks

export interface ListValue {
  readonly kind: "list";
  readonly elements: readonly Term[];
  readonly span: Span;
}
export interface DictField {
  readonly kind: "field";
  readonly name: Ident;
  readonly type: Ident | null;
  readonly span: Span;
}
export interface DictValue {
  readonly kind: "dict";
  readonly fields: readonly DictField[];
  readonly span: Span;
}
/** `roles = [...]`, `permissions = [...]`, `relations = {...}` (any key parses). */
export interface Declaration {
  readonly kind: "declaration";
  readonly key: Ident;
  readonly value: ListValue | DictValue;
  readonly span: Span;
}
export interface Shorthand {
  readonly kind: "shorthand";
  readonly flags: readonly Ident[];
  readonly head: StringLit | Variable;
  readonly body: ShorthandExpr;
  readonly span: Span;
}
export interface Block {
  readonly kind: "block";
  readonly blockKind: "actor" | "resource" | "global";
  /** Null for `global`. */
  readonly name: Ident | null;
  readonly extends: readonly Ident[];
  readonly declarations: readonly Declaration[];
  readonly shorthands: readonly Shorthand[];
  readonly span: Span;
}

// ---------------------------------------------------------------- rules and declarations

export interface Head {
  readonly kind: "head";
  readonly name: Ident;
  readonly params: readonly Param[];
  readonly span: Span;
}
export interface Rule {
  readonly kind: "rule";
  readonly flags: readonly Ident[];
  readonly head: Head;
  /** Null for a bodiless rule (a fact). */
  readonly body: Expr | null;
  readonly span: Span;
}
/** `type f(x: T, ...);` */
export interface RuleType {
  readonly kind: "rule_type";
  readonly head: Head;
  readonly span: Span;
}
/** `declare f(T1, T2);` */
export interface Declare {
  readonly kind: "declare";
  readonly name: Ident;
  readonly types: readonly Ident[];
  readonly span: Span;
}
/** `?= expr;` */
export interface InlineQuery {
  readonly kind: "inline_query";
  readonly expr: Expr;
  readonly span: Span;
}

// ---------------------------------------------------------------- tests

/** A fact in a fixture or setup; the checker enforces that arguments are ground. */
export interface Fact {
  readonly kind: "fact";
  readonly name: Ident;
  readonly args: readonly Term[];
  readonly span: Span;
}
export interface FixtureRef {
  readonly kind: "fixture_ref";
  readonly name: Ident;
  readonly span: Span;
}
export interface Fixture {
  readonly kind: "fixture";
  readonly name: Ident;
  readonly facts: readonly Fact[];
  readonly span: Span;
}
export interface Assertion {
  readonly kind: "assertion";
  /** `assert_not` */
  readonly negated: boolean;
  readonly query: Head;
  readonly iff: Expr | null;
  readonly span: Span;
}
export interface Test {
  readonly kind: "test";
  readonly name: StringLit;
  readonly setup: readonly (Fact | FixtureRef)[];
  readonly assertions: readonly Assertion[];
  readonly span: Span;
}

export type Item = Block | Rule | RuleType | Declare | InlineQuery | Fixture | Test;

/** One parsed file. */
export interface PolicyFile {
  readonly kind: "policy";
  readonly file: string;
  readonly items: readonly Item[];
  readonly span: Span;
}

/** Every node kind, for generic walks. */
export type Node =
  | PolicyFile
  | Item
  | Head
  | Param
  | Expr
  | ShorthandExpr
  | Shorthand
  | Declaration
  | ListValue
  | DictValue
  | DictField
  | Fact
  | FixtureRef
  | Assertion
  | Ident;
