/**
 * Static checks of data bindings against a policy: the document is read (`readDataBindings`),
 * then each binding is checked against the policy's types and the calls its rules make, and
 * the policy's fact reads against the bindings. Every problem is a `Diagnostic` placed in the
 * bindings file, the same type the policy checker gives, so `formatDiagnostic` prints it with
 * a code frame. Errors make the bindings unusable (they cannot run or would answer wrong);
 * warnings point at likely mistakes. A binding the policy cannot use (a type it does not
 * declare, a fact no rule reads) and a `sql_types` entry for an undeclared type are warnings
 * and are left out of the bindings the compiler reads, as Oso leaves them unread.
 */
import type { Program } from "../check/program.js";
import type { CentralFacts } from "../core/central-facts.js";
import type { DialectName } from "../dialects/registry.js";
import { type Diagnostic, hasErrors } from "../source/diagnostic.js";
import { spanLocation } from "../source/format.js";
import type { SourceFile, Span } from "../source/source.js";
import { didYouMeanSuffix } from "../source/suggest.js";
import { spanInScalar } from "./locate.js";
import { type BindingLocation, type BindingsRead, readDataBindings } from "./parse.js";
import {
  argsOverlap,
  type FactPattern,
  type PatternArg,
  type PolicyUse,
  patternsOverlap,
  policyUse,
  slotArg,
} from "./policy-use.js";
import { type BindingsProblem, bindingsDiagnostic } from "./problems.js";
import { plainScan, selectListWidth } from "./query.js";
import { formatSlot } from "./signature.js";
import { signatureParts } from "./signature-parts.js";
import type { Binding, DataBindings } from "./types.js";

export interface CheckBindingsOptions {
  /** File name used in spans and messages; default `data_bindings`. */
  readonly fileName?: string;
  /**
   * Facts kept outside the caller's database (the service's stored facts, `--facts`). When
   * given, a fact the policy reads is reported only if neither a binding nor these produce it.
   */
  readonly central?: CentralFacts;
  /**
   * False: report errors only, skipping the checks that can only warn (what the policy cannot
   * use is still left out of `bindings`); default true.
   */
  readonly warnings?: boolean;
  /** The SQL syntax of the binding queries (the application's engine); default `postgres`. */
  readonly syntax?: DialectName;
}

export interface BindingsCheck {
  /** No errors: `bindings` can be used. */
  readonly ok: boolean;
  /** What the compiler reads: the document without the ignored entries; null on errors. */
  readonly bindings: DataBindings | null;
  /** Indexes in `read.data.bindings` of the bindings the policy cannot use, left out. */
  readonly ignored: ReadonlySet<number>;
  /** Errors and warnings, in the order of the bindings file. */
  readonly diagnostics: readonly Diagnostic[];
  /** The bindings file, for `formatDiagnostic`. */
  readonly source: SourceFile;
  /** The document as read, with where each entry was written. */
  readonly read: BindingsRead;
}

/**
 * Checks data bindings, against `program` when one is given (null: the document alone).
 *
 *   const result = checkBindings(program, yaml, { fileName: "bindings.yaml" });
 *   for (const d of result.diagnostics) console.error(formatDiagnostic(d, [result.source]));
 *   if (result.ok) listQuery(program, { …, data_bindings: yaml });
 */
export function checkBindings(
  program: Program | null,
  bindingsText: string,
  options: CheckBindingsOptions = {},
): BindingsCheck {
  const read = readDataBindings(bindingsText, {
    ...(options.fileName !== undefined && { fileName: options.fileName }),
    ...(options.syntax !== undefined && { syntax: options.syntax }),
  });
  const diagnostics = [...read.diagnostics];
  const context: Context = { read, diagnostics, warnings: options.warnings !== false };
  const ignored = new Set<number>();
  read.data.bindings.forEach((binding, index) => {
    const location = read.locations.bindings[index]!;
    checkColumnCount(context, binding, location);
    if (program === null) return;
    const usable =
      checkTypes(context, program, binding, location) &&
      checkUsed(context, program, binding, location);
    if (!usable) ignored.add(index);
  });
  const usable = usableBindings(read.data, program, ignored);
  if (program !== null && context.warnings) {
    // Facts missing from a document that did not read whole would only be noise.
    if (!hasErrors(diagnostics)) checkLeaves(context, program, usable.bindings, options.central);
    checkSqlTypes(context, program);
  }
  if (context.warnings) checkKeys(context);
  diagnostics.sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
  const ok = !hasErrors(diagnostics);
  return { ok, bindings: ok ? usable : null, ignored, diagnostics, source: read.source, read };
}

/** The bindings without the ignored ones, and `sql_types` without undeclared types. */
function usableBindings(
  data: DataBindings,
  program: Program | null,
  ignored: ReadonlySet<number>,
): DataBindings {
  if (program === null) return data;
  const sqlTypes = [...data.sqlTypes].filter(([type]) => program.types.has(type));
  if (ignored.size === 0 && sqlTypes.length === data.sqlTypes.size) return data;
  return {
    ...data,
    bindings: data.bindings.filter((_, index) => !ignored.has(index)),
    sqlTypes: new Map(sqlTypes),
  };
}

interface Context {
  readonly read: BindingsRead;
  readonly diagnostics: Diagnostic[];
  /** Report warnings (false: errors only; what is ignored is decided either way). */
  readonly warnings: boolean;
}

function warn(context: Context, problem: BindingsProblem, span: Span): void {
  if (context.warnings) context.diagnostics.push(bindingsDiagnostic(problem, span));
}

/** The span of `[from, to)` of a binding's signature text. */
function inSignature(context: Context, location: BindingLocation, from: number, to: number) {
  return spanInScalar(context.read.source, location.signature, location.signatureText, from, to);
}

/** The number of `_` slots: the columns a binding query must return. */
export function columnSlots(binding: Binding): number {
  return binding.slots.filter((slot) => slot.kind === "column").length;
}

function checkColumnCount(context: Context, binding: Binding, location: BindingLocation): void {
  const width = selectListWidth(binding.query, context.read.data.syntax);
  const expected = columnSlots(binding);
  if (width === null || width.columns === expected) return;
  const span = spanInScalar(
    context.read.source,
    location.query,
    binding.query,
    width.start,
    width.end,
  );
  const problem = {
    code: "P708",
    kind: "column-count",
    signature: binding.signature,
    columns: width.columns,
    slots: expected,
    database: false,
  } as const;
  context.diagnostics.push(bindingsDiagnostic(problem, span));
}

/** True when the policy declares every type of the binding; else a warning per type. */
function checkTypes(
  context: Context,
  program: Program,
  binding: Binding,
  location: BindingLocation,
): boolean {
  let known = true;
  binding.slots.forEach((slot, index) => {
    if (program.types.has(slot.type)) return;
    known = false;
    const part = signatureParts(location.signatureText)?.args[index];
    const at = part?.type ?? part?.value ?? null;
    const span = at ? inSignature(context, location, at[0], at[1]) : location.signature;
    const suggestion = didYouMeanSuffix(slot.type, program.types.keys());
    const problem = {
      code: "W010",
      kind: "undeclared-binding-type",
      type: slot.type,
      signature: binding.signature,
      suggestion,
    } as const;
    warn(context, problem, span);
  });
  return known;
}

/** What a constant at this position names, for messages. */
function constantKind(predicate: string, index: number) {
  if (index === 1 && predicate === "has_role") return "role";
  if (index === 1 && predicate === "has_relation") return "relation";
  if (index === 1 && predicate === "has_permission") return "permission";
  return "value";
}

/** True when a rule reads the binding; else a W004 warning saying why not. */
function checkUsed(
  context: Context,
  program: Program,
  binding: Binding,
  location: BindingLocation,
): boolean {
  // `allow/3` is what questions ask, whether or not a rule calls it.
  if (binding.predicate === "allow" && binding.slots.length === 3) return true;
  const use = policyUse(program);
  const args = binding.slots.map(slotArg);
  const named = use.callsByName.get(binding.predicate) ?? [];
  const fitting = named.filter((call) => call.args.length === args.length);
  if (fitting.some((call) => patternsOverlap(program, call.args, args))) return true;
  if (context.warnings) reportUnread(context, program, binding, location);
  return false;
}

/** The W004 warning of a binding no rule reads: the name, arity or constant that differs. */
function reportUnread(
  context: Context,
  program: Program,
  binding: Binding,
  location: BindingLocation,
): void {
  const use = policyUse(program);
  const args = binding.slots.map(slotArg);
  const named = use.callsByName.get(binding.predicate) ?? [];
  const fitting = named.filter((call) => call.args.length === args.length);
  const parts = signatureParts(location.signatureText);
  const report = (problem: BindingsProblem, span: Span) => warn(context, problem, span);
  const { predicate, signature } = binding;
  if (named.length === 0) {
    const name = parts ? inSignature(context, location, ...parts.predicate) : location.signature;
    const suggestion = didYouMeanSuffix(predicate, use.callsByName.keys());
    report({ code: "W004", kind: "unread-predicate", predicate, suggestion }, name);
    return;
  }
  if (fitting.length === 0) {
    const arities = [...new Set(named.map((call) => call.args.length))].sort((a, b) => a - b);
    const arity = args.length;
    report(
      { code: "W004", kind: "unread-arity", predicate, arities, signature, arity },
      location.signature,
    );
    return;
  }
  // The constant that keeps the binding from every call that fits it elsewhere.
  for (const [index, slot] of binding.slots.entries()) {
    if (slot.kind !== "constant") continue;
    const others = fitting.filter((call) =>
      call.args.every((arg, j) => j === index || argsOverlap(program, arg, args[j]!)),
    );
    if (others.length === 0) continue;
    const names = others.flatMap((call) => {
      const arg = call.args[index]!;
      return arg.kind === "value" && arg.value.type === slot.type ? [arg.value.id] : [];
    });
    const part = parts?.args[index]?.value;
    const span = part ? inSignature(context, location, ...part) : location.signature;
    const problem = {
      code: "W004",
      kind: "unread-constant",
      noun: constantKind(predicate, index),
      value: slot.value,
      signature,
      suggestion: didYouMeanSuffix(slot.value, names),
    } as const;
    report(problem, span);
    return;
  }
  report({ code: "W004", kind: "unread-types", predicate, signature }, location.signature);
}

function formatPattern(pattern: FactPattern): string {
  const arg = (a: PatternArg): string => {
    switch (a.kind) {
      case "any":
        return "_";
      case "type":
        return `${a.type}:_`;
      case "value":
        return formatSlot({ kind: "constant", type: a.value.type, value: a.value.id });
      default: {
        const _never: never = a;
        return _never;
      }
    }
  };
  return `${pattern.name}(${pattern.args.map(arg).join(", ")})`;
}

function centralProduces(program: Program, central: CentralFacts, pattern: FactPattern): boolean {
  for (const fact of central.facts(pattern.name, pattern.args.length)) {
    const args = fact.args.map((value): PatternArg => ({ kind: "value", value }));
    if (patternsOverlap(program, args, pattern.args)) return true;
  }
  return false;
}

function checkLeaves(
  context: Context,
  program: Program,
  bindings: readonly Binding[],
  central: CentralFacts | undefined,
): void {
  const { read } = context;
  const at = read.locations.facts ?? { file: read.source.name, start: 0, end: 0 };
  const use: PolicyUse = policyUse(program);
  for (const leaf of use.leaves) {
    const bound = bindings.some(
      (binding) =>
        binding.predicate === leaf.name &&
        patternsOverlap(program, binding.slots.map(slotArg), leaf.args),
    );
    if (bound || (central && centralProduces(program, central, leaf))) continue;
    const problem = {
      code: "W005",
      kind: "unproduced-fact",
      fact: formatPattern(leaf),
      central: central !== undefined,
      rule: spanLocation(leaf.span, program.sources),
    } as const;
    context.diagnostics.push(bindingsDiagnostic(problem, at));
  }
}

function checkSqlTypes(context: Context, program: Program): void {
  for (const [type, span] of context.read.locations.sqlTypes) {
    if (program.types.has(type)) continue;
    const suggestion = didYouMeanSuffix(type, program.types.keys());
    context.diagnostics.push(
      bindingsDiagnostic({ code: "W006", kind: "unknown-sql-type", type, suggestion }, span),
    );
  }
}

/** `["public","docs"]` → `public.docs`. */
export function displayTableName(canonical: string): string {
  return (JSON.parse(canonical) as string[]).join(".");
}

function checkKeys(context: Context): void {
  if (context.read.locations.keys.size === 0) return;
  const scanned = new Set(
    context.read.data.bindings.flatMap((binding) => {
      const scan = binding.scan ?? plainScan(binding.query, context.read.data.syntax);
      return scan ? [scan.tableName] : [];
    }),
  );
  for (const [table, span] of context.read.locations.keys) {
    if (scanned.has(table)) continue;
    const name = displayTableName(table);
    context.diagnostics.push(
      bindingsDiagnostic({ code: "W006", kind: "unused-key", table: name }, span),
    );
  }
}
