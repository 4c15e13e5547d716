/**
 * Every builtin, by name: a policy writes `@` and the name. The stages switch on
 * `kind: "builtin"` once and ask here; none names a builtin of its own.
 */
import type { Value } from "../core/value.js";
import type { Builtin, BuiltinInputs } from "./builtin.js";
import { currentUnixTime } from "./current-unix-time.js";

export const BUILTINS = {
  current_unix_time: currentUnixTime,
} as const satisfies Readonly<Record<string, Builtin>>;

export type BuiltinName = keyof typeof BUILTINS;

const NAMES = Object.keys(BUILTINS) as readonly BuiltinName[];

/** `@current_unix_time`: how a policy, a plan and an explanation write the builtin. */
export function builtinSpelling(name: string): string {
  return `@${name}`;
}

/** Every builtin's spelling. */
export const BUILTIN_SPELLINGS: readonly string[] = NAMES.map(builtinSpelling);

/** The builtin written `spelling` (`@current_unix_time`); undefined for any other text. */
export function builtinBySpelling(spelling: string): BuiltinName | undefined {
  return NAMES.find((name) => builtinSpelling(name) === spelling);
}

/** Every builtin's value for one question, read once (the evaluator's session holds them). */
export function builtinValues(inputs: BuiltinInputs): Readonly<Record<BuiltinName, Value>> {
  return Object.fromEntries(NAMES.map((name) => [name, BUILTINS[name].value(inputs)])) as Record<
    BuiltinName,
    Value
  >;
}
