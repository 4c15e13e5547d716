/**
 * The Polar lexer: Chevrotain's lexer over `allTokens`, then one pass that reports literal
 * errors (docs/policy-language.md#strings, docs/policy-language.md#numbers) and the hints of docs/policy-language.md#diagnostics, and keeps the token stream parseable.
 */
import { createTokenInstance, type IToken, Lexer, tokenMatcher } from "chevrotain";
import type { Diagnostic } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";
import { type ParseProblem, parseDiagnostic } from "./problems.js";
import {
  allTokens,
  DANGLING_COLONS,
  Dot,
  DoubleEq,
  Ident,
  Integer,
  Name,
  type StringEnding,
  StringLiteral,
  Unexpected,
} from "./tokens.js";

// Spans are offsets (src/source/source.ts): lines and columns are never read, and tracking
// them made lexing about half again slower on large policies. The end offset is set below.
const lexer = new Lexer(allTokens as never, {
  positionTracking: "onlyOffset",
  ensureOptimizations: true,
});

interface LexResult {
  readonly tokens: readonly IToken[];
  readonly diagnostics: readonly Diagnostic[];
}

const INTEGER_MIN = -(2n ** 63n);
const INTEGER_MAX = 2n ** 63n - 1n;

/**
 * Splits `source` into tokens. Never throws; problems become diagnostics.
 *
 * @example
 * const { tokens } = lexPolicy({ name: "p.polar", text: 'f("a");' });
 * tokens.map((t) => t.image); // ["f", "(", "\"a\"", ")", ";"]
 */
export function lexPolicy(source: SourceFile): LexResult {
  const result = lexer.tokenize(source.text);
  const diagnostics: Diagnostic[] = [];
  const spanOf = (start: number, end: number): Span => ({ file: source.name, start, end });

  const unexpectedCharacter = (offset: number) => {
    const char = String.fromCodePoint(source.text.codePointAt(offset) ?? 0);
    const span = spanOf(offset, offset + char.length);
    diagnostics.push(parseDiagnostic({ code: "P001", kind: "unexpected-character", char }, span));
  };
  // `Unexpected` tokens catch stray characters, so Chevrotain should find nothing here.
  for (const lexError of result.errors) unexpectedCharacter(lexError.offset);

  const raw = result.tokens;
  for (const token of raw) token.endOffset = token.startOffset + token.image.length - 1;
  const tokens: IToken[] = [];
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i]!;
    const span = spanOf(token.startOffset, token.endOffset! + 1);
    switch (token.tokenType) {
      case StringLiteral: {
        const ending = token.payload as StringEnding;
        if (ending === "unterminated") {
          diagnostics.push(parseDiagnostic({ code: "P002", kind: "unterminated-string" }, span));
        } else if (ending === "multiline") {
          diagnostics.push(parseDiagnostic({ code: "P003", kind: "line-break-in-string" }, span));
        }
        break;
      }
      case Integer: {
        const problem = integerProblem(token.image);
        if (problem) diagnostics.push(parseDiagnostic(problem, span));
        break;
      }
      case Name:
        if (token.payload === DANGLING_COLONS) {
          const problem = { code: "P010", kind: "dangling-colons", name: token.image } as const;
          diagnostics.push(parseDiagnostic(problem, span));
        }
        break;
      case DoubleEq:
        diagnostics.push(parseDiagnostic({ code: "P008", kind: "double-equals" }, span));
        break;
      case Dot: {
        const lookup = attributeLookup(raw, tokens, i);
        if (lookup) {
          diagnostics.push(parseDiagnostic(lookup.problem, spanOf(lookup.start, lookup.end)));
          tokens.pop();
          tokens.push(lookup.token);
          i = lookup.lastIndex;
        } else {
          unexpectedCharacter(token.startOffset);
        }
        continue;
      }
      case Unexpected:
        // One report for a run of stray characters.
        if (
          raw[i - 1]?.tokenType !== Unexpected ||
          raw[i - 1]!.endOffset! + 1 !== token.startOffset
        ) {
          unexpectedCharacter(token.startOffset);
        }
        continue;
    }
    tokens.push(token);
  }
  return { tokens, diagnostics };
}

function integerProblem(image: string): ParseProblem | null {
  if (/[.eE]/.test(image)) return { code: "P004", kind: "float-literal", image };
  // Up to 18 digits always fit; only longer literals need the exact check.
  if (image.length > 18) {
    const value = BigInt(image);
    if (value < INTEGER_MIN || value > INTEGER_MAX) {
      return { code: "P005", kind: "integer-too-large", image };
    }
  }
  return null;
}

/**
 * `user.name` (or `a.b.c`): one name token spanning the chain, with the hint of docs/policy-language.md#diagnostics, so that the
 * parser can carry on as if a variable were written there.
 */
function attributeLookup(
  raw: readonly IToken[],
  emitted: readonly IToken[],
  dotIndex: number,
): { token: IToken; problem: ParseProblem; start: number; end: number; lastIndex: number } | null {
  const object = emitted[emitted.length - 1];
  const attribute = raw[dotIndex + 1];
  if (!object || !attribute || !isName(object) || !isName(attribute)) return null;
  let last = dotIndex + 1;
  while (raw[last + 1]?.tokenType === Dot && raw[last + 2] && isName(raw[last + 2]!)) last += 2;
  const end = raw[last]!;
  const image =
    object.image +
    raw
      .slice(dotIndex, last + 1)
      .map((token) => token.image)
      .join("");
  const token = createTokenInstance(
    Name,
    image,
    object.startOffset,
    end.endOffset!,
    Number.NaN,
    Number.NaN,
    Number.NaN,
    Number.NaN,
  );
  const problem = {
    code: "P008",
    kind: "attribute-lookup",
    object: object.image,
    field: attribute.image,
  } as const;
  return { token, problem, start: object.startOffset, end: end.endOffset! + 1, lastIndex: last };
}

function isName(token: IToken): boolean {
  return tokenMatcher(token, Ident);
}
