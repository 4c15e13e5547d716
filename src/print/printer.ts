/**
 * Printing: the SQL tree to text with the dialect's Kysely compiler, extended in three ways.
 * Plan values (`SqlValue` nodes) are written as the caller asks: inlined literals, `$n`
 * parameters, or recorded template slots (offsets into the text, filled per request by
 * template.ts). Names we generate print bare (they are lowercase ASCII and never keywords);
 * names the caller chose print quoted. Each CTE starts a line of its own.
 */
import type {
  CastNode,
  DefaultQueryCompiler,
  OperationNode,
  RootOperationNode,
  WithNode,
} from "kysely";
import { RawNode, SelectQueryNode } from "kysely";
import { type Value, valueKey } from "../core/value.js";
import type { Dialect } from "../dialects/dialect.js";
import { isFixedBlock } from "../lower/fixed-rows.js";
import { isSqlIds, isSqlValue, type SqlIds, type SqlValue } from "../lower/sql-value.js";
import { termType } from "../plan/ir.js";
import { staticValue } from "../plan/resolve/runtime.js";
import { type ValueSpans, writingValue } from "./value-refusal.js";

/** The request values that params and builtins stand for. */
export interface ValueRuntime {
  readonly params: ReadonlyMap<string, readonly string[]>;
  readonly now: bigint;
  /** Where the plan's constants are written, for a refusal of one; absent: none located. */
  readonly spans?: ValueSpans;
}

/** How plan values are written. */
type Writing =
  /** Every value inlined as a literal. */
  | { readonly kind: "literals"; readonly runtime: ValueRuntime }
  /** Every value a cast placeholder; `Printed.parameters` holds the values in order. */
  | { readonly kind: "parameters" }
  /**
   * Constants inlined; params, builtins and the request's free values (`valueKey` to index,
   * print/free-values.ts) left as slots for template.ts to fill.
   */
  | { readonly kind: "template"; readonly free: ReadonlyMap<string, number> };

export interface Slot {
  /** Offset in the printed text where the value goes. */
  readonly at: number;
  readonly value: SqlValue;
  /** The index of the free value that goes here; absent: the param or builtin of `value`. */
  readonly free?: number;
}

export interface Printed {
  readonly sql: string;
  /** The value of each placeholder, the first first (parameters writing only). */
  readonly parameters: readonly (SqlValue | SqlIds)[];
  /** Template writing only, in text order. */
  readonly slots: readonly Slot[];
  /**
   * False when a literal composed of free values was written out (template writing): the text
   * holds this request's ids where slots should be, and serves no other request.
   */
  readonly templatable: boolean;
}

/** The value a `SqlValue` stands for in this request. */
export function requestValue(value: SqlValue, runtime: ValueRuntime): Value {
  const resolved = staticValue(value.origin, runtime);
  if (!resolved) throw new Error("internal: a plan value without a value");
  return resolved;
}

const BARE = /^[a-z_][a-z0-9_]*$/;

interface PrinterState {
  readonly dialect: Dialect;
  readonly writing: Writing;
  readonly callerNames: ReadonlySet<string>;
  readonly slots: Slot[];
  readonly spans: ValueSpans | undefined;
  templatable: boolean;
}

type CompilerClass = new () => DefaultQueryCompiler;
type PrinterClass = new (state: PrinterState) => DefaultQueryCompiler;

function printerClass(Base: CompilerClass): PrinterClass {
  // Kysely's compilers keep their hooks protected; the subclass reaches them.
  const Compiler = Base as unknown as new () => Hooks;
  class Printer extends Compiler {
    constructor(private readonly state: PrinterState) {
      super();
    }

    protected override appendValue(payload: unknown): void {
      if (isSqlIds(payload)) {
        const form = this.state.dialect.idsParameter;
        if (this.state.writing.kind !== "parameters" || !form) {
          throw new Error("internal: an id list outside parameters writing");
        }
        this.addParameter(payload);
        const placeholder = this.getCurrentParameterPlaceholder();
        this.append(form.placeholder(placeholder, payload.type, payload.sqlType));
        return;
      }
      if (!isSqlValue(payload)) {
        super.appendValue(payload);
        return;
      }
      const { dialect, writing, spans } = this.state;
      const { origin, sqlType, typed } = payload;
      switch (writing.kind) {
        case "template": {
          const at = this.getSql().length;
          if (origin.kind !== "literal") {
            this.state.slots.push({ at, value: payload });
            return;
          }
          const free = writing.free.get(valueKey(origin.value));
          if (free !== undefined) {
            this.state.slots.push({ at, value: payload, free });
            return;
          }
          if (payload.madeOf?.some((value) => writing.free.has(valueKey(value)))) {
            this.state.templatable = false;
          }
          this.append(
            writingValue(payload, spans, () => dialect.literal(origin.value, sqlType, typed)),
          );
          return;
        }
        case "literals": {
          const value = requestValue(payload, writing.runtime);
          this.append(writingValue(payload, spans, () => dialect.literal(value, sqlType, typed)));
          return;
        }
        case "parameters": {
          const type = dialect.parameterType(termType(origin), sqlType);
          this.addParameter(payload);
          this.append(`cast(${this.getCurrentParameterPlaceholder()} as ${type})`);
          return;
        }
        default: {
          const _never: never = writing;
          throw new Error(`internal: unknown writing ${String(_never)}`);
        }
      }
    }

    protected override visitSelectQuery(node: SelectQueryNode): void {
      // Rows of constants print the same text every time: write it once per node. A template
      // may hold some of their values as slots.
      if (this.state.writing.kind !== "literals" || !isFixedBlock(node)) {
        super.visitSelectQuery(node);
        return;
      }
      const known = fixedTexts.get(node);
      if (known !== undefined) {
        this.append(known);
        return;
      }
      const start = this.getSql().length;
      super.visitSelectQuery(node);
      fixedTexts.set(node, this.getSql().slice(start));
    }

    protected override visitIdentifier(node: { readonly name: string }): void {
      if (BARE.test(node.name) && !this.state.callerNames.has(node.name)) this.append(node.name);
      else super.visitIdentifier(node);
    }

    protected override visitCast(node: CastNode): void {
      const printed = this.state.dialect.printedCast?.(node);
      if (printed) this.visitNode(printed);
      else super.visitCast(node);
    }

    protected override visitWith(node: WithNode): void {
      this.append(node.recursive ? "with recursive\n  " : "with\n  ");
      this.compileList(node.expressions, ",\n  ");
      this.append("\n");
    }
  }
  return Printer as unknown as PrinterClass;
}

/** The protected hooks of Kysely's compilers that the printer overrides or calls. */
declare class Hooks {
  protected getSql(): string;
  protected append(text: string): void;
  protected appendValue(value: unknown): void;
  protected addParameter(value: unknown): void;
  protected getCurrentParameterPlaceholder(): string;
  protected compileList(nodes: readonly OperationNode[], separator?: string): void;
  protected visitIdentifier(node: { readonly name: string }): void;
  protected visitSelectQuery(node: SelectQueryNode): void;
  protected visitWith(node: WithNode): void;
  protected visitCast(node: CastNode): void;
  protected visitNode(node: OperationNode): void;
}

const printers = new WeakMap<CompilerClass, PrinterClass>();
/** The text of each fixed block once printed (src/lower/fixed-rows.ts). */
const fixedTexts = new WeakMap<SelectQueryNode, string>();

/**
 * Prints a lowered statement in `dialect`.
 *
 *   printTree(postgres, lowered.node, { kind: "literals", runtime }, lowered.callerNames).sql
 *
 * `spans` locates a refused constant of the policy (src/print/value-refusal.ts).
 */
export function printTree(
  dialect: Dialect,
  node: OperationNode,
  writing: Writing,
  callerNames: ReadonlySet<string>,
  spans?: ValueSpans,
): Printed {
  let Printer = printers.get(dialect.compiler);
  if (!Printer) {
    Printer = printerClass(dialect.compiler);
    printers.set(dialect.compiler, Printer);
  }
  const state: PrinterState = {
    dialect,
    writing,
    callerNames,
    slots: [],
    spans,
    templatable: true,
  };
  const compiler = new Printer(state);
  // A statement is a SELECT; a `list_query` fragment is an expression, printed through a raw node.
  const root = (
    SelectQueryNode.is(node) ? node : RawNode.createWithChild(node)
  ) as RootOperationNode;
  const compiled = compiler.compileQuery(root, { queryId: "polar-sql" } as never);
  const { slots, templatable } = state;
  return {
    sql: compiled.sql,
    parameters: compiled.parameters as Printed["parameters"],
    slots,
    templatable,
  };
}
