/**
 * Shorthand rules to ordinary clauses (docs/policy-language.md#shorthand-rules). Generated parameters are named `actor`
 * and `resource`; each `on` introduces a fresh variable `$on1`, `$on2`, … (numbered per clause,
 * a name users cannot write). Generated nodes carry the span of the shorthand piece they
 * translate.
 */
import type {
  Call,
  Expr,
  Shorthand,
  ShorthandExpr,
  ShorthandRef,
  StringLit,
  Term,
  TypedParam,
  Variable,
} from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import { didYouMean } from "../source/suggest.js";
import type { BlockScope } from "./blocks.js";
import { checkDiagnostic } from "./problems.js";
import { type Clause, predicateKey } from "./program.js";

/** Prefix of the variables that `on` introduces. */
export const ON_VARIABLE_PREFIX = "$on";

/**
 * Desugars every shorthand rule of a block; rules with errors are reported and left out.
 *
 * @example
 * // in `resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }`
 * desugarBlock(scopes.get("Doc")!, scopes, diagnostics);
 * // [has_permission(actor: Actor, "read", resource: Doc) if has_role(actor, "viewer", resource)]
 */
export function desugarBlock(
  scope: BlockScope,
  scopes: ReadonlyMap<string, BlockScope>,
  diagnostics: Diagnostic[],
): Clause[] {
  const clauses: Clause[] = [];
  for (const shorthand of scope.block?.shorthands ?? []) {
    const clause = desugarShorthand(shorthand, scope, scopes, diagnostics);
    if (clause) clauses.push(clause);
  }
  return clauses;
}

/**
 * One shorthand rule as a clause, or null (with diagnostics) when it refers to unknown names.
 *
 * @example
 * desugarShorthand(shorthand, scope, scopes, diagnostics)?.name; // "has_permission"
 */
function desugarShorthand(
  shorthand: Shorthand,
  scope: BlockScope,
  scopes: ReadonlyMap<string, BlockScope>,
  diagnostics: Diagnostic[],
): Clause | null {
  const before = diagnostics.length;
  const head = desugarHead(shorthand, scope, diagnostics);
  const context: Context = { scope, scopes, diagnostics, fresh: 0 };
  const body = translate(shorthand.body, context);
  if (!head || !body || diagnostics.length !== before) return null;
  return {
    predicate: predicateKey(head.name, head.params.length),
    name: head.name,
    params: head.params,
    body,
    origin: "shorthand",
    span: shorthand.span,
  };
}

interface Context {
  readonly scope: BlockScope;
  readonly scopes: ReadonlyMap<string, BlockScope>;
  readonly diagnostics: Diagnostic[];
  fresh: number;
}

function desugarHead(
  shorthand: Shorthand,
  scope: BlockScope,
  diagnostics: Diagnostic[],
): { name: string; params: readonly (Term | TypedParam)[] } | null {
  const term = shorthand.head;
  const span = term.span;
  let name: string;
  if (term.kind === "variable") {
    name = term.name === "permission" ? "has_permission" : "has_role";
  } else {
    const declared = scope.terms.get(term.value);
    if (!declared) {
      diagnostics.push(undeclaredTerm(term, scope));
      return null;
    }
    if (declared.kind === "relation") {
      diagnostics.push(
        checkDiagnostic(
          { code: "P202", kind: "relation-as-head", relation: term.value, block: scope.name },
          span,
        ),
      );
      return null;
    }
    name = declared.kind === "permission" ? "has_permission" : "has_role";
  }
  const actor = typedParam("actor", "Actor", span);
  if (scope.kind === "global") return { name, params: [actor, term] };
  return { name, params: [actor, term, typedParam("resource", scope.name, span)] };
}

function undeclaredTerm(term: StringLit, scope: BlockScope): Diagnostic {
  return checkDiagnostic(
    {
      code: "P201",
      kind: "undeclared-term",
      term: term.value,
      block: scope.name,
      global: scope.kind === "global",
    },
    term.span,
    didYouMean(term.value, scope.terms.keys()),
  );
}

function translate(expr: ShorthandExpr, context: Context): Expr | null {
  switch (expr.kind) {
    case "or":
    case "and": {
      const operands: Expr[] = [];
      let failed = false;
      for (const operand of expr.operands) {
        const translated = translate(operand, context);
        if (!translated) failed = true;
        else if (translated.kind === expr.kind) operands.push(...translated.operands);
        else operands.push(translated);
      }
      return failed ? null : { kind: expr.kind, operands, span: expr.span };
    }
    case "not": {
      const operand = translate(expr.operand, context);
      return operand && { kind: "not", operand, span: expr.span };
    }
    case "call":
      return expr;
    case "shorthand_ref":
      return translateRef(expr, context);
    case "shorthand_global":
      return translateGlobal(expr.term, expr.span, context);
    default: {
      const _never: never = expr;
      return _never;
    }
  }
}

function translateRef(ref: ShorthandRef, context: Context): Expr | null {
  const { scope, diagnostics } = context;
  const span = ref.span;
  const on = ref.on;
  if (on && scope.kind === "global") {
    diagnostics.push(checkDiagnostic({ code: "P206", kind: "on-in-global" }, span));
    return null;
  }
  if (!on || (on.kind === "variable" && on.name === "resource")) {
    return bareAtom(ref.term, variable("resource", span), span, context);
  }
  const relationName = on.kind === "string" ? on.value : on.name;
  const relation = scope.terms.get(relationName);
  if (on.kind === "variable" || relation?.kind !== "relation") {
    diagnostics.push(
      checkDiagnostic(
        {
          code: "P203",
          kind: "not-a-relation",
          relation: relationName,
          block: scope.name,
          unquoted: on.kind === "variable" && relation?.kind === "relation",
        },
        on.span,
        didYouMean(relationName, relationsOf(scope)),
      ),
    );
    return null;
  }
  const target = relation.target && context.scopes.get(relation.target);
  if (!target) return null; // the relation declaration was already reported
  context.fresh++;
  const other = variable(`${ON_VARIABLE_PREFIX}${context.fresh}`, span);
  const term = ref.term;
  let inner: Call;
  if (term.kind === "variable") {
    const name = term.name === "permission" ? "has_permission" : "has_role";
    inner = call(name, [variable("actor", span), term, other], span);
  } else {
    const declared = target.terms.get(term.value);
    if (!declared) {
      diagnostics.push(
        checkDiagnostic(
          {
            code: "P204",
            kind: "not-in-related-type",
            term: term.value,
            type: target.name,
            relation: relationName,
            block: scope.name,
          },
          term.span,
          didYouMean(term.value, target.terms.keys()),
        ),
      );
      return null;
    }
    inner =
      declared.kind === "relation"
        ? call("has_relation", [other, term, variable("actor", span)], span)
        : call(
            declared.kind === "role" ? "has_role" : "has_permission",
            [variable("actor", span), term, other],
            span,
          );
  }
  return {
    kind: "and",
    operands: [
      {
        kind: "matches",
        variable: other,
        type: { kind: "ident", name: target.name, span },
        bang: false,
        span,
      },
      call("has_relation", [variable("resource", span), on, other], span),
      inner,
    ],
    span,
  };
}

/** `"x"`, `role` or `permission` on the block's own resource (or on nothing, in `global`). */
function bareAtom(
  term: StringLit | Variable,
  resource: Variable,
  span: Span,
  context: Context,
): Expr | null {
  const { scope } = context;
  const actor = variable("actor", span);
  const tail = scope.kind === "global" ? [] : [resource];
  if (term.kind === "variable") {
    const name = term.name === "permission" ? "has_permission" : "has_role";
    return call(name, [actor, term, ...tail], span);
  }
  const declared = scope.terms.get(term.value);
  if (!declared) {
    context.diagnostics.push(undeclaredTerm(term, scope));
    return null;
  }
  switch (declared.kind) {
    case "role":
      return call("has_role", [actor, term, ...tail], span);
    case "permission":
      return call("has_permission", [actor, term, ...tail], span);
    case "relation":
      return call("has_relation", [resource, term, actor], span);
    default: {
      const _never: never = declared.kind;
      return _never;
    }
  }
}

function translateGlobal(term: StringLit | Variable, span: Span, context: Context): Expr | null {
  const actor = variable("actor", span);
  if (term.kind === "variable") {
    const name = term.name === "permission" ? "has_permission" : "has_role";
    return call(name, [actor, term], span);
  }
  const global = context.scopes.get("global");
  const declared = global?.terms.get(term.value);
  if (!declared) {
    context.diagnostics.push(
      checkDiagnostic(
        { code: "P205", kind: "not-in-global", term: term.value },
        term.span,
        didYouMean(term.value, global?.terms.keys() ?? []),
      ),
    );
    return null;
  }
  const name = declared.kind === "permission" ? "has_permission" : "has_role";
  return call(name, [actor, term], span);
}

function relationsOf(scope: BlockScope): string[] {
  return [...scope.terms].filter(([, term]) => term.kind === "relation").map(([name]) => name);
}

function variable(name: string, span: Span): Variable {
  return { kind: "variable", name, span };
}

function typedParam(name: string, type: string, span: Span): TypedParam {
  return {
    kind: "typed",
    variable: variable(name, span),
    type: { kind: "ident", name: type, span },
    span,
  };
}

function call(name: string, args: readonly Term[], span: Span): Call {
  return { kind: "call", name: { kind: "ident", name, span }, args, span };
}
