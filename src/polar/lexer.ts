/**
 * The Polar lexer: Chevrotain's lexer over `allTokens`, then one pass that reports literal
 * errors (docs/policy-language.md#strings, docs/policy-language.md#numbers) and the hints of docs/policy-language.md#diagnostics, and keeps the token stream parseable.
 */
import { createTokenInstance, type IToken, Lexer, tokenMatcher } from "chevrotain";
import { type Diagnostic, error, tick } from "../source/diagnostic.js";
import type { SourceFile, Span } from "../source/source.js";
import { excerpt } from "./literals.js";
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

const lexer = new Lexer(allTokens as never, {
  positionTracking: "full",
  ensureOptimizations: true,
});

export interface LexResult {
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
    diagnostics.push(error("P001", `unexpected character ${tick(char)}`, span));
  };
  // `Unexpected` tokens catch stray characters, so Chevrotain should find nothing here.
  for (const lexError of result.errors) unexpectedCharacter(lexError.offset);

  const raw = result.tokens;
  const tokens: IToken[] = [];
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i]!;
    const span = spanOf(token.startOffset, token.endOffset! + 1);
    switch (token.tokenType) {
      case StringLiteral: {
        const ending = token.payload as StringEnding;
        if (ending === "unterminated") {
          diagnostics.push(error("P002", "unterminated string literal", span));
        } else if (ending === "multiline") {
          diagnostics.push(error("P003", "line break inside string literal", span));
        }
        break;
      }
      case Integer: {
        const problem = integerProblem(token.image);
        if (problem) diagnostics.push(error(problem.code, problem.message, span));
        break;
      }
      case Name:
        if (token.payload === DANGLING_COLONS) {
          const message = `name ${tick(excerpt(token.image))} cannot end in \`::\``;
          diagnostics.push(error("P010", message, span));
        }
        break;
      case DoubleEq:
        diagnostics.push(error("P008", "`==` is not supported; use `=`", span));
        break;
      case Dot: {
        const lookup = attributeLookup(raw, tokens, i);
        if (lookup) {
          diagnostics.push(error("P008", lookup.message, spanOf(lookup.start, lookup.end)));
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

function integerProblem(image: string): { code: "P004" | "P005"; message: string } | null {
  if (/[.eE]/.test(image)) {
    return { code: "P004", message: `float literals are not supported: ${tick(excerpt(image))}` };
  }
  // Up to 18 digits always fit; only longer literals need the exact check.
  if (image.length > 18) {
    const value = BigInt(image);
    if (value < INTEGER_MIN || value > INTEGER_MAX) {
      const message = `integer literal ${tick(excerpt(image))} does not fit in 64 bits`;
      return { code: "P005", message };
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
): { token: IToken; message: string; start: number; end: number; lastIndex: number } | null {
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
    object.startLine!,
    end.endLine!,
    object.startColumn!,
    end.endColumn!,
  );
  const [name, field] = [excerpt(object.image), excerpt(attribute.image)];
  const message =
    `attribute lookups like ${tick(`${name}.${field}`)} are not supported; ` +
    `use a fact such as ${tick(`has_${field}(${name}, ${field})`)}`;
  return { token, message, start: object.startOffset, end: end.endOffset! + 1, lastIndex: last };
}

function isName(token: IToken): boolean {
  return tokenMatcher(token, Ident);
}
