/**
 * Clauses grouped by predicate, identical duplicates merged, the default `allow` (docs/policy-language.md#the-default-allow-rule), and the
 * arity checks of `type` declarations (docs/policy-language.md#diagnostics).
 */
import type { Call, Expr, Head, Ident, Item, Rule } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import { checkDiagnostic } from "./problems.js";
import { type Clause, type PredicateKey, predicateKey } from "./program.js";
import { structuralHash, structurallyEqual } from "./structural.js";
import { forEachCall } from "./walk.js";

/**
 * A clause for a rule written in the policy.
 *
 * @example
 * ruleClause(parsedRule(`f(1);`)).predicate; // "f/1"
 */
export function ruleClause(rule: Rule): Clause {
  return {
    predicate: predicateKey(rule.head.name.name, rule.head.params.length),
    name: rule.head.name.name,
    params: rule.head.params,
    body: rule.body,
    origin: "rule",
    span: rule.span,
  };
}

const NO_SPAN: Span = { file: "", start: 0, end: 0 };

/**
 * `allow(actor, action, resource) if has_permission(actor, action, resource);` (docs/policy-language.md#the-default-allow-rule), with an
 * empty span.
 *
 * @example
 * defaultAllowClause().origin; // "default_allow"
 */
function defaultAllowClause(): Clause {
  const v = (name: string) => ({ kind: "variable" as const, name, span: NO_SPAN });
  const args = [v("actor"), v("action"), v("resource")];
  return {
    predicate: "allow/3",
    name: "allow",
    params: args,
    body: {
      kind: "call",
      name: { kind: "ident", name: "has_permission", span: NO_SPAN },
      args,
      span: NO_SPAN,
    },
    origin: "default_allow",
    span: NO_SPAN,
  };
}

/**
 * Groups clauses by predicate in the given order, keeping the first of structurally identical
 * clauses (spans and origin ignored), and adds the default `allow` when no `allow/3` clause
 * exists.
 *
 * @example
 * groupClauses([c1, c1Again, c2]).get("has_role/3"); // [c1, c2]
 */
export function groupClauses(clauses: readonly Clause[]): Map<PredicateKey, Clause[]> {
  const rules = new Map<PredicateKey, Clause[]>();
  const seen = new Map<number, Clause[]>();
  for (const clause of clauses) {
    const hash = structuralHash([clause.predicate, clause.params, clause.body]);
    const candidates = seen.get(hash);
    if (candidates?.some((other) => sameClause(other, clause))) continue;
    if (candidates) candidates.push(clause);
    else seen.set(hash, [clause]);
    let group = rules.get(clause.predicate);
    if (!group) {
      group = [];
      rules.set(clause.predicate, group);
    }
    group.push(clause);
  }
  if (!rules.has("allow/3")) rules.set("allow/3", [defaultAllowClause()]);
  return rules;
}

function sameClause(a: Clause, b: Clause): boolean {
  return (
    a.predicate === b.predicate &&
    structurallyEqual(a.params, b.params) &&
    structurallyEqual(a.body, b.body)
  );
}

/**
 * Checks that all `type` declarations of a name agree on arity (P305) and that every rule head
 * and call of that name uses it (P306).
 *
 * @example
 * // type f(x: User); f(a, b) if g(a, b);
 * checkTypeDeclarations(items, clauses, diagnostics); // P306 on `f`
 */
export function checkTypeDeclarations(
  items: readonly Item[],
  clauses: readonly Clause[],
  diagnostics: Diagnostic[],
): void {
  const arities = new Map<string, number | null>();
  for (const item of items) {
    if (item.kind !== "rule_type") continue;
    const name = item.head.name.name;
    const arity = item.head.params.length;
    const known = arities.get(name);
    if (known === undefined) arities.set(name, arity);
    else if (known !== null && known !== arity) {
      diagnostics.push(
        checkDiagnostic(
          {
            code: "P305",
            kind: "type-arities-disagree",
            predicate: name,
            first: known,
            other: arity,
          },
          item.head.name.span,
        ),
      );
      arities.set(name, null);
    }
  }
  if (arities.size === 0) return;
  const use = (name: Ident, arity: number) => {
    const declared = arities.get(name.name);
    if (declared === undefined || declared === null || declared === arity) return;
    diagnostics.push(
      checkDiagnostic(
        { code: "P306", kind: "arity-not-declared", predicate: name.name, arity, declared },
        name.span,
      ),
    );
  };
  const useCalls = (expr: Expr) =>
    forEachCall(expr, (call: Call) => use(call.name, call.args.length));
  const useHead = (head: Head) => use(head.name, head.params.length);
  for (const clause of clauses) {
    if (clause.origin === "shorthand") use(clauseName(clause), clause.params.length);
    if (clause.body) useCalls(clause.body);
  }
  for (const item of items) {
    if (item.kind === "rule") useHead(item.head);
    if (item.kind === "inline_query") useCalls(item.expr);
    if (item.kind !== "test") continue;
    for (const assertion of item.assertions) {
      useHead(assertion.query);
      if (assertion.iff) useCalls(assertion.iff);
    }
  }
}

function clauseName(clause: Clause): Ident {
  return { kind: "ident", name: clause.name, span: clause.span };
}
