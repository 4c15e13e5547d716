/**
 * The checker's entry points: parse one or more policy files, validate them and build the
 * checked `Program` (shorthand desugared, default `allow` added, fact signatures inferred,
 * tests expanded). Several files form one policy; declaration order never matters.
 */

import { runSteps, runStepsInSlices, type Steps } from "../core/steps.js";
import type { Block, Item, PolicyFile } from "../polar/ast.js";
import { parseSteps } from "../polar/parse.js";
import { type Diagnostic, hasErrors } from "../source/diagnostic.js";
import type { Problem } from "../source/problems.js";
import type { SourceFile } from "../source/source.js";
import { StageError } from "../source/stage-error.js";
import { warnUndeclaredAssertionNames } from "./assertion-names.js";
import { blockScopes, mergeBlocks, resourceMetadata } from "./blocks.js";
import { desugarBlock } from "./desugar.js";
import { checkObjectLiterals, warnMatchesBang } from "./literals.js";
import { checkNegationSafety, checkStratification } from "./negation.js";
import type { Clause, Program } from "./program.js";
import { checkTypeDeclarations, groupClauses, ruleClause } from "./rules.js";
import { inferSignatures } from "./signatures.js";
import { checkTests } from "./test-blocks.js";
import { buildTypes } from "./types.js";

export type CheckResult =
  | {
      readonly ok: true;
      readonly program: Program;
      /** Warnings (and parse warnings), sorted by position. */
      readonly diagnostics: readonly Diagnostic[];
      readonly sources: readonly SourceFile[];
    }
  | {
      readonly ok: false;
      /** Errors and warnings, sorted by position. */
      readonly diagnostics: readonly Diagnostic[];
      readonly sources: readonly SourceFile[];
    };

/**
 * Parses and checks a policy made of one or more files. Never throws on bad input: problems
 * come back as diagnostics, and `ok` is true iff there is no error. When a file has syntax
 * errors only the parse diagnostics are returned.
 *
 * @example
 * const result = checkPolicy([{ name: "a.polar", text: "actor User {}" },
 *                             { name: "b.polar", text: 'resource Doc { roles = ["viewer"]; }' }]);
 * if (result.ok) result.program.resources.get("Doc")?.roles; // ["viewer"]
 */
export function checkPolicy(sources: readonly SourceFile[]): CheckResult {
  return runSteps(checkSteps(sources));
}

/**
 * `checkPolicy` in slices of at most about `sliceMs` each, giving the event loop back in
 * between: the same result, without holding other work for the whole check.
 *
 * @example
 * const result = await checkPolicyInSlices([{ name: "p.polar", text: src }]);
 */
export function checkPolicyInSlices(
  sources: readonly SourceFile[],
  sliceMs?: number,
): Promise<CheckResult> {
  return runStepsInSlices(checkSteps(sources), sliceMs);
}

function* checkSteps(sources: readonly SourceFile[]): Steps<CheckResult> {
  const diagnostics: Diagnostic[] = [];
  const files: PolicyFile[] = [];
  for (const source of sources) {
    const parsed = yield* parseSteps(source);
    files.push(parsed.ast);
    diagnostics.push(...parsed.diagnostics);
  }
  if (hasErrors(diagnostics)) return finish(sources, diagnostics, null);
  return yield* checkParsedSteps(files, sources, diagnostics);
}

/**
 * Checks one policy given as text.
 *
 * @example
 * checkPolicyText('actor User {}\nresource Doc { permissions = ["read"]; }').ok; // true
 */
export function checkPolicyText(text: string, filename = "policy.polar"): CheckResult {
  return checkPolicy([{ name: filename, text }]);
}

/**
 * A policy with errors, thrown by `checkPolicyOrThrow`: a `StageError` whose problem, code and
 * span are those of the first error, with the count; `diagnostics` holds them all.
 */
export class PolicyError extends StageError {
  override readonly name = "PolicyError";
  declare readonly problem: Extract<Problem, { kind: "invalid-policy" }>;
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[], sources: readonly SourceFile[]) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    const first = errors[0];
    super(
      {
        // Never thrown without an error; without one it reads as a syntax error.
        code: first?.code ?? "P006",
        kind: "invalid-policy",
        first: first?.message ?? null,
        errors: errors.length,
      },
      first?.span ? { span: first.span, sources } : null,
    );
    this.diagnostics = diagnostics;
  }
}

/**
 * Like `checkPolicy`, but returns the program or throws a `PolicyError`.
 *
 * @example
 * const program = checkPolicyOrThrow([{ name: "policy.polar", text: "actor User {}" }]);
 * // throws: policy.polar:1:14: undeclared term `x` in `Doc`; … (1 error)
 */
export function checkPolicyOrThrow(sources: readonly SourceFile[]): Program {
  const result = checkPolicy(sources);
  if (!result.ok) throw new PolicyError(result.diagnostics, sources);
  return result.program;
}

/** The checker's passes as steps: one after each pass, none longer than ~15 ms on 10,000 rules. */
function* checkParsedSteps(
  files: readonly PolicyFile[],
  sources: readonly SourceFile[],
  diagnostics: Diagnostic[],
): Steps<CheckResult> {
  const items: Item[] = files.flatMap((file) => file.items);
  const merged = mergeBlocks(
    items.filter((item): item is Block => item.kind === "block"),
    diagnostics,
  );
  yield;
  const types = buildTypes(merged.typed, items, diagnostics);
  const scopes = blockScopes(merged, types, diagnostics);
  yield;
  checkObjectLiterals(items, diagnostics);
  yield;
  warnMatchesBang(items, diagnostics);
  yield;

  const { kept } = merged;
  const clauses: Clause[] = [];
  for (const item of items) {
    if (item.kind === "rule") clauses.push(ruleClause(item));
    else if (item.kind === "block" && kept.has(item)) {
      const scope = scopes.get(item.name?.name ?? "global");
      if (scope) clauses.push(...desugarBlock(scope, scopes, diagnostics));
    }
  }
  yield;
  checkTypeDeclarations(items, clauses, diagnostics);
  yield;
  const rules = groupClauses(clauses);
  yield;
  checkStratification({ rules }, diagnostics);
  yield;
  for (const group of rules.values()) {
    for (const clause of group) checkNegationSafety(clause, diagnostics);
  }
  yield;
  const factSignatures = inferSignatures([...rules.values()].flat(), items);
  yield;
  const tests = checkTests(items, { factSignatures, types }, diagnostics);
  const resources = resourceMetadata(scopes);
  yield;
  warnUndeclaredAssertionNames(items, { resources, rules }, diagnostics);

  const program: Program = {
    sources,
    rules,
    types,
    resources,
    factSignatures,
    tests,
    inlineQueries: items.filter((item) => item.kind === "inline_query"),
    warnings: sortDiagnostics(
      diagnostics.filter((d) => d.severity === "warning"),
      sources,
    ),
  };
  return finish(sources, diagnostics, program);
}

function finish(
  sources: readonly SourceFile[],
  diagnostics: readonly Diagnostic[],
  program: Program | null,
): CheckResult {
  const sorted = sortDiagnostics(diagnostics, sources);
  if (program && !hasErrors(sorted)) return { ok: true, program, diagnostics: sorted, sources };
  return { ok: false, diagnostics: sorted, sources };
}

/** By file (in the order given), then offset; diagnostics without a span last. Stable. */
function sortDiagnostics(
  diagnostics: readonly Diagnostic[],
  sources: readonly SourceFile[],
): Diagnostic[] {
  const fileOrder = new Map(sources.map((source, i) => [source.name, i]));
  const rank = (d: Diagnostic) =>
    d.span ? (fileOrder.get(d.span.file) ?? sources.length) : sources.length + 1;
  return [...diagnostics].sort(
    (a, b) => rank(a) - rank(b) || (a.span?.start ?? 0) - (b.span?.start ?? 0),
  );
}
