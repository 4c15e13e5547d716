/**
 * Ground facts against a checked program: signature checks for stored, context and test setup
 * facts (docs/policy-language.md#rules-and-facts, docs/policy-language.md#diagnostics), canonical Integer ids, and AST literals as runtime values.
 */
import { utf8Length } from "../core/utf8.js";
import {
  booleanValue,
  type GroundFact,
  integerValue,
  isAbstractType,
  parseInteger,
  stringValue,
  type Value,
} from "../core/value.js";
import type { Term } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { checkDiagnostic } from "./problems.js";
import { isSubtype, type Program, predicateKey } from "./program.js";

/** The largest fact argument id, in UTF-8 bytes. */
const MAX_ARGUMENT_BYTES = 384;

/** A fact problem and the argument it concerns (0-based), if one. */
interface FactProblem {
  readonly diagnostic: Diagnostic;
  readonly argument: number | null;
}

/**
 * Checks a stored, context or setup fact against the program's fact signatures. Returns the
 * first problem (without a span), or null when the store may accept the fact.
 *
 * @example
 * checkFact(program, { predicate: "has_tag", args: [{ type: "Team", id: "t" }] })?.message;
 * // "argument 1 of `has_tag` must be `User`, got `Team`"
 */
export function checkFact(
  program: Pick<Program, "factSignatures" | "types">,
  fact: GroundFact,
): Diagnostic | null {
  return findFactProblem(program, fact)?.diagnostic ?? null;
}

/**
 * Like `checkFact`, also saying which argument (0-based) is wrong.
 *
 * @example
 * findFactProblem(program, fact)?.argument; // 0 for a bad first argument, null for P501
 */
export function findFactProblem(
  program: Pick<Program, "factSignatures" | "types">,
  fact: GroundFact,
): FactProblem | null {
  const key = predicateKey(fact.predicate, fact.args.length);
  const signature = program.factSignatures.get(key);
  if (!signature) {
    const problem = { code: "P501", kind: "unknown-fact-predicate", predicate: key } as const;
    return { diagnostic: checkDiagnostic(problem), argument: null };
  }
  for (let i = 0; i < fact.args.length; i++) {
    const diagnostic = checkFactValue(fact.args[i]!);
    if (diagnostic) return { diagnostic, argument: i };
  }
  for (let i = 0; i < fact.args.length; i++) {
    const accepted = signature.args[i];
    const type = fact.args[i]!.type;
    if (!accepted || accepted.some((sup) => isSubtype(program, type, sup))) continue;
    return {
      diagnostic: checkDiagnostic({
        code: "P502",
        kind: "fact-argument-type",
        predicate: fact.predicate,
        position: i,
        accepted,
        type,
      }),
      argument: i,
    };
  }
  return null;
}

/**
 * The checks every fact argument needs, whatever the policy: non-empty type and id, at most
 * 384 bytes, not abstract, a valid Integer or Boolean id.
 *
 * @example
 * checkFactValue({ type: "Integer", id: "abc" })?.message;
 * // "`Integer` id `abc` is not a 64-bit integer"
 */
export function checkFactValue(value: Value): Diagnostic | null {
  if (value.type === "" || value.id === "") {
    return checkDiagnostic({ code: "P503", kind: "fact-argument-empty" });
  }
  if (utf8Length(value.id) > MAX_ARGUMENT_BYTES) {
    return checkDiagnostic({
      code: "P504",
      kind: "fact-argument-too-long",
      bytes: MAX_ARGUMENT_BYTES,
    });
  }
  if (isAbstractType(value.type)) {
    return checkDiagnostic({ code: "P112", kind: "abstract-value", type: value.type });
  }
  if (value.type === "Integer" && parseInteger(value.id) === null) {
    return checkDiagnostic({ code: "P505", kind: "fact-integer", id: value.id });
  }
  if (value.type === "Boolean" && value.id !== "true" && value.id !== "false") {
    return checkDiagnostic({ code: "P506", kind: "fact-boolean", id: value.id });
  }
  return null;
}

/**
 * The canonical form of a value: Integer ids without leading zeros or `+` (`"007"` -> `"7"`).
 * Other values, and Integer ids that do not parse, are returned unchanged.
 *
 * @example
 * canonicalValue({ type: "Integer", id: "+007" }); // { type: "Integer", id: "7" }
 */
export function canonicalValue(value: Value): Value {
  if (value.type !== "Integer") return value;
  const parsed = parseInteger(value.id);
  if (parsed === null) return value;
  const id = parsed.toString();
  return id === value.id ? value : { type: "Integer", id };
}

/**
 * A fact with canonical argument values (see `canonicalValue`).
 *
 * @example
 * canonicalFact({ predicate: "level", args: [{ type: "Integer", id: "03" }] });
 * // { predicate: "level", args: [{ type: "Integer", id: "3" }] }
 */
export function canonicalFact(fact: GroundFact): GroundFact {
  const args = fact.args.map(canonicalValue);
  return args.every((arg, i) => arg === fact.args[i]) ? fact : { predicate: fact.predicate, args };
}

/**
 * The runtime value of a literal term: `"a"`, `3`, `true`, `User{"a"}`, `Integer{3}`.
 * Null for variables and builtins (read per question).
 *
 * @example
 * termValue(parsedTerm); // { type: "User", id: "ada" } for `User{"ada"}`
 */
export function termValue(term: Term): Value | null {
  switch (term.kind) {
    case "string":
      return stringValue(term.value);
    case "integer":
      return integerValue(term.value);
    case "boolean":
      return booleanValue(term.value);
    case "object": {
      const inner = term.value;
      const type = term.type.name;
      if (type === "String" || type === "Integer" || type === "Boolean") return termValue(inner);
      return { type, id: inner.kind === "string" ? inner.value : String(inner.value) };
    }
    case "builtin":
    case "variable":
      return null;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}
