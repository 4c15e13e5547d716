/**
 * The front end's entry point: text → tokens → items → CST → AST, with diagnostics.
 */
import { EOF, type IToken } from "chevrotain";
import { runSteps, type Steps } from "../core/steps.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";
import type { Item, PolicyFile } from "./ast.js";
import { astBuilder } from "./cst-to-ast.js";
import { type ItemRange, MAX_NESTING, splitItems, tooDeepAt } from "./items.js";
import { lexPolicy } from "./lexer.js";
import { parser } from "./parser.js";
import { type SyntaxProblem, syntaxProblems, TooManySyntaxErrors } from "./parser-errors.js";
import { parseDiagnostic } from "./problems.js";
import { Name } from "./tokens.js";

export interface ParseResult {
  /** Always present; items with syntax errors are left out. */
  readonly ast: PolicyFile;
  /** Errors and warnings, ordered by position. */
  readonly diagnostics: Diagnostic[];
}

/**
 * Parses one policy file. Never throws: problems are diagnostics, and the AST holds every item
 * that parsed.
 *
 * @example
 * const { ast, diagnostics } = parsePolicy({
 *   name: "policy.polar",
 *   text: 'actor User {}\nhas_role(User{"ada"}, "admin", Org{"acme"});',
 * });
 * ast.items.map((item) => item.kind); // ["block", "rule"]
 * diagnostics; // []
 */
export function parsePolicy(source: SourceFile): ParseResult {
  return runSteps(parseSteps(source));
}

/**
 * `parsePolicy` as steps (src/core/steps.ts): one after lexing, then one per item. Each item
 * is parsed whole within its step, so other parses may run between steps.
 */
export function* parseSteps(source: SourceFile): Steps<ParseResult> {
  const { tokens, diagnostics: lexical } = lexPolicy(source);
  yield;
  const diagnostics: Diagnostic[] = [...lexical];
  const builder = astBuilder(source, diagnostics);
  const items: Item[] = [];
  for (const range of splitItems(tokens)) {
    const tooDeep = tooDeepAt(tokens, range);
    if (tooDeep >= 0) {
      const span = tokenSpan(source, tokens[tooDeep]!);
      const problem = { code: "P009", kind: "nesting-too-deep", levels: MAX_NESTING } as const;
      diagnostics.push(parseDiagnostic(problem, span));
      continue;
    }
    items.push(...parseItem(source, tokens, range, builder, diagnostics));
    yield;
  }
  diagnostics.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
  return {
    ast: {
      kind: "policy",
      file: source.name,
      items,
      span: { file: source.name, start: 0, end: source.text.length },
    },
    diagnostics,
  };
}

function parseItem(
  source: SourceFile,
  tokens: readonly IToken[],
  range: ItemRange,
  builder: ReturnType<typeof astBuilder>,
  diagnostics: Diagnostic[],
): Item[] {
  syntaxProblems.length = 0;
  parser.input = tokens.slice(range.start, range.end);
  let items: Item[] = [];
  try {
    const cst = parser.item();
    items = builder.items(cst);
  } catch (problem) {
    // Past the error limit the item is dropped; its first errors are still reported below.
    // A stack overflow should be impossible below the nesting limit; if one happens anyway,
    // the item is refused rather than the whole call failing.
    if (problem instanceof RangeError) {
      const span = tokenSpan(source, tokens[range.start]!);
      diagnostics.push(parseDiagnostic({ code: "P009", kind: "item-too-deep" }, span));
      return [];
    }
    if (!(problem instanceof TooManySyntaxErrors)) throw problem;
  }
  const seen = new Set<number>();
  for (const problem of syntaxProblems) {
    const diagnostic = syntaxError(source, tokens, range, problem);
    const start = diagnostic.span?.start ?? -1;
    if (seen.has(start)) continue;
    seen.add(start);
    diagnostics.push(diagnostic);
  }
  return items;
}

/** A syntax error naming the offending token; the end of an item is the next item's start. */
function syntaxError(
  source: SourceFile,
  tokens: readonly IToken[],
  range: ItemRange,
  { token, expected }: SyntaxProblem,
): Diagnostic {
  const actual = token.tokenType === EOF ? tokens[range.end] : token;
  const missing = missingSemicolon(source, tokens, range, actual, expected);
  if (missing) return missing;
  if (!actual) {
    const end: Span = { file: source.name, start: source.text.length, end: source.text.length };
    return parseDiagnostic({ code: "P007", kind: "unexpected-end", expected }, end);
  }
  const span = tokenSpan(source, actual);
  if (actual.tokenType === Name && actual.image === "isa") {
    return parseDiagnostic({ code: "P008", kind: "isa" }, span);
  }
  const problem = {
    code: "P006",
    kind: "unexpected-token",
    image: actual.image,
    expected,
  } as const;
  return parseDiagnostic(problem, span);
}

/**
 * A `;` expected before a token on a later line (or before the end of input) is missing at the
 * end of the earlier line: report it there, after the last token, rather than at the next
 * line's first token.
 */
function missingSemicolon(
  source: SourceFile,
  tokens: readonly IToken[],
  range: ItemRange,
  actual: IToken | undefined,
  expected: string | null,
): Diagnostic | null {
  if (!expected?.includes("`;`")) return null;
  const index = actual ? tokens.indexOf(actual) : range.end;
  const previous = index > 0 ? tokens[index - 1] : undefined;
  if (!previous) return null;
  const end = previous.endOffset! + 1;
  const next = actual ? actual.startOffset : source.text.length;
  if (actual && !source.text.slice(end, next).includes("\n")) return null;
  const span: Span = { file: source.name, start: end, end };
  return parseDiagnostic({ code: "P006", kind: "missing-semicolon", after: previous.image }, span);
}

function tokenSpan(source: SourceFile, token: IToken): Span {
  return { file: source.name, start: token.startOffset, end: token.endOffset! + 1 };
}
