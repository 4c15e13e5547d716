/**
 * Fact signatures of data bindings (docs/local-authorization.md#fact-signatures):
 *
 *   Signature = Name "(" Arg { "," Arg } ")"
 *   Arg       = [ Type ":" ] ( "_" | Constant )
 *   Constant  = bare token up to "," or ")"  |  double-quoted string
 *
 * A missing type means `String`. Whitespace may surround every token. Double-quoted constants
 * take the escapes of Polar strings (`\"`, `\\`, `\n`, `\r`, `\t`, `\0`; a backslash before any
 * other character gives that character).
 *
 * Canonical text, used for identity and in messages: `Type:_` or `Type:value` joined by `, `.
 * Integer and Boolean constants are written bare (`Integer:3`, `Boolean:true`, the integer in
 * canonical form). String and entity constants are written bare when they are a Polar name
 * other than `_` (`String:project`), and double-quoted otherwise (`String:"in progress"`), with
 * `\` `"` and line breaks and tabs escaped.
 */

import { isAbstractType, parseInteger } from "../core/value.js";
import { describeBindingsProblem, type SignatureProblem } from "./problems.js";
import type { BindingSlot } from "./types.js";

type SignatureResult =
  | { readonly kind: "signature"; readonly predicate: string; readonly slots: BindingSlot[] }
  | { readonly kind: "error"; readonly message: string };

/** Like `SignatureResult`, with the problem as data (src/bindings/problems.ts writes its text). */
type SignatureRead =
  | { readonly kind: "signature"; readonly predicate: string; readonly slots: BindingSlot[] }
  | { readonly kind: "error"; readonly problem: SignatureProblem };

/** A Polar name (docs/policy-language.md#names), matched at a position. */
const NAME_SOURCE =
  "[^\\s!-\\/:-@\\[-^`{-~0-9][^\\s!-\\/:-@\\[-^`{-~]*(?:::[^\\s!-\\/:-@\\[-^`{-~]+)*\\??";
const NAME = new RegExp(NAME_SOURCE, "uy");
const WHOLE_NAME = new RegExp(`^(?:${NAME_SOURCE})$`, "u");
const BARE_VALUE = /[^\s,()"]+/y;
const PLAIN_ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", "0": "\0" };

/** True when `text` is a Polar name (`User`, `has_role`, `App::User`). */
export function isPolarName(text: string): boolean {
  return WHOLE_NAME.test(text);
}

class SignatureSyntaxError extends Error {}

/** A cursor over one signature; throws `SignatureSyntaxError` for any malformed part. */
class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }
  peek(): string | undefined {
    return this.text[this.pos];
  }
  sticky(pattern: RegExp): string | null {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) return null;
    this.pos += match[0].length;
    return match[0];
  }
  expect(char: string): void {
    this.skipSpace();
    if (this.text[this.pos] !== char) throw new SignatureSyntaxError();
    this.pos++;
  }
  quoted(): string {
    let value = "";
    this.pos++;
    for (;;) {
      const char = this.text[this.pos++];
      if (char === undefined) throw new SignatureSyntaxError();
      if (char === '"') return value;
      if (char !== "\\") {
        value += char;
        continue;
      }
      const escaped = this.text[this.pos++];
      if (escaped === undefined) throw new SignatureSyntaxError();
      value += PLAIN_ESCAPES[escaped] ?? escaped;
    }
  }
}

/** An argument before its type is checked. */
interface RawArg {
  readonly type: string;
  readonly typed: boolean;
  /** `null` for `_`. */
  readonly value: string | null;
  readonly quoted: boolean;
}

function scanArg(scanner: Scanner): RawArg {
  scanner.skipSpace();
  if (scanner.peek() === '"') {
    return { type: "String", typed: false, value: scanner.quoted(), quoted: true };
  }
  const start = scanner.pos;
  const name = scanner.sticky(NAME);
  let type = "String";
  let typed = false;
  if (name !== null) {
    scanner.skipSpace();
    if (scanner.peek() === ":") {
      scanner.pos++;
      scanner.skipSpace();
      type = name;
      typed = true;
    } else scanner.pos = start;
  }
  if (scanner.peek() === '"') return { type, typed, value: scanner.quoted(), quoted: true };
  const bare = scanner.sticky(BARE_VALUE);
  if (bare === null) throw new SignatureSyntaxError();
  if (bare === "_") return { type, typed, value: null, quoted: false };
  return { type, typed, value: bare, quoted: false };
}

function scanSignature(text: string): { predicate: string; args: RawArg[] } {
  const scanner = new Scanner(text);
  scanner.skipSpace();
  const predicate = scanner.sticky(NAME);
  if (predicate === null) throw new SignatureSyntaxError();
  scanner.expect("(");
  const args = [scanArg(scanner)];
  for (;;) {
    scanner.skipSpace();
    const next = scanner.peek();
    scanner.pos++;
    if (next === ")") break;
    if (next !== ",") throw new SignatureSyntaxError();
    args.push(scanArg(scanner));
  }
  scanner.skipSpace();
  if (scanner.pos !== text.length) throw new SignatureSyntaxError();
  return { predicate, args };
}

/** A bare value whose part before `:` is not a type name (`1x:_`, `:_`, `Foo-bar:_`). */
function misplacedType(arg: RawArg): string | null {
  if (arg.typed || arg.quoted || arg.value === null) return null;
  const colon = arg.value.indexOf(":");
  return colon === -1 ? null : arg.value.slice(0, colon);
}

function checkArg(arg: RawArg, signature: string): BindingSlot | SignatureProblem {
  const code = "P706";
  const badType = misplacedType(arg);
  if (badType === "") return { code, kind: "signature-missing-type", signature };
  if (badType !== null) return { code, kind: "signature-invalid-type", type: badType, signature };
  if (isAbstractType(arg.type)) {
    return { code, kind: "signature-abstract-type", type: arg.type, signature };
  }
  if (arg.value === null) return { kind: "column", type: arg.type };
  const value = arg.value;
  if (value.includes("\0")) return { code, kind: "signature-nul", signature };
  switch (arg.type) {
    case "Integer": {
      const integer = parseInteger(value);
      if (integer === null) return { code, kind: "signature-invalid-integer", value, signature };
      return { kind: "constant", type: "Integer", value: integer.toString() };
    }
    case "Boolean":
      if (value !== "true" && value !== "false") {
        return { code, kind: "signature-invalid-boolean", value, signature };
      }
      return { kind: "constant", type: "Boolean", value };
    case "String":
      return { kind: "constant", type: "String", value };
    default:
      if (value === "") return { code, kind: "signature-empty-id", type: arg.type, signature };
      return { kind: "constant", type: arg.type, value };
  }
}

/**
 * Parses one signature key of the `facts` mapping.
 *
 *   parseSignature("has_relation(Ticket:_, project, Project:_)")
 *   // { kind: "signature", predicate: "has_relation", slots: [
 *   //   { kind: "column", type: "Ticket" },
 *   //   { kind: "constant", type: "String", value: "project" },
 *   //   { kind: "column", type: "Project" } ] }
 *   parseSignature("has_role(User:_") // { kind: "error", message: "invalid fact signature `has_role(User:_`" }
 */
export function parseSignature(text: string): SignatureResult {
  const read = readSignature(text);
  if (read.kind === "signature") return read;
  return { kind: "error", message: describeBindingsProblem(read.problem).message };
}

/**
 * Like `parseSignature`, with the problem as data.
 *
 *   readSignature("has_role(User:_") // { kind: "error", problem: { code: "P706", kind: "invalid-signature", … } }
 */
export function readSignature(text: string): SignatureRead {
  let scanned: { predicate: string; args: RawArg[] };
  try {
    scanned = scanSignature(text);
  } catch (thrown) {
    if (!(thrown instanceof SignatureSyntaxError)) throw thrown;
    return { kind: "error", problem: { code: "P706", kind: "invalid-signature", signature: text } };
  }
  const slots: BindingSlot[] = [];
  for (const arg of scanned.args) {
    const slot = checkArg(arg, text);
    if ("code" in slot) return { kind: "error", problem: slot };
    slots.push(slot);
  }
  return { kind: "signature", predicate: scanned.predicate, slots };
}

function quoteConstant(value: string): string {
  const escaped = value
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
  return `"${escaped}"`;
}

/** One slot as written in a canonical signature: `User:_`, `String:owner`, `Integer:3`. */
export function formatSlot(slot: BindingSlot): string {
  switch (slot.kind) {
    case "column":
      return `${slot.type}:_`;
    case "constant": {
      const bare =
        slot.type === "Integer" ||
        slot.type === "Boolean" ||
        (slot.value !== "_" && isPolarName(slot.value));
      return `${slot.type}:${bare ? slot.value : quoteConstant(slot.value)}`;
    }
    default: {
      const _never: never = slot;
      return _never;
    }
  }
}

/**
 * The canonical text of a signature; parsing it gives the same predicate and slots.
 *
 *   formatSignature("has_role", [{ kind: "column", type: "User" },
 *     { kind: "constant", type: "String", value: "in progress" }])
 *   // 'has_role(User:_, String:"in progress")'
 */
export function formatSignature(predicate: string, slots: readonly BindingSlot[]): string {
  return `${predicate}(${slots.map(formatSlot).join(", ")})`;
}
