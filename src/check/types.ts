/**
 * The type table (docs/policy-language.md#values-and-types): primitives, the abstract `Actor` and `Resource`, one entity
 * type per block, `extends`, and undeclared types met in specializers, `matches`, object
 * literals and `declare` (entity types below `Resource`, with a warning).
 */
import { ABSTRACT_TYPES, isPrimitiveType, PRIMITIVE_TYPES } from "../core/value.js";
import type { Block, Ident, Item } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { findComponents } from "./graph.js";
import { checkDiagnostic } from "./problems.js";
import type { TypeInfo, TypeKind } from "./program.js";
import { visitItem } from "./walk.js";

/**
 * Built-in type names that blocks may not declare.
 *
 * @example
 * isBuiltinType("Actor"); // true
 */
export function isBuiltinType(name: string): boolean {
  return isPrimitiveType(name) || name === "Actor" || name === "Resource";
}

interface Draft {
  readonly name: string;
  readonly kind: TypeKind;
  readonly supertypes: string[];
  /** `extends` targets that passed the checks, for cycle reports. */
  readonly extendsIdents: Ident[];
  readonly span?: Ident["span"];
}

/**
 * Builds every `TypeInfo`. `blocks` holds one block per declared type (duplicates already
 * merged); `items` are all items of the policy, searched for undeclared type names.
 *
 * @example
 * buildTypes([userBlock], items, diagnostics).get("User")?.ancestors; // ["User", "Actor", "Resource"]
 */
export function buildTypes(
  blocks: readonly Block[],
  items: readonly Item[],
  diagnostics: Diagnostic[],
): Map<string, TypeInfo> {
  const drafts = new Map<string, Draft>();
  for (const name of PRIMITIVE_TYPES) {
    drafts.set(name, { name, kind: "primitive", supertypes: [], extendsIdents: [] });
  }
  for (const name of ABSTRACT_TYPES) {
    const supertypes = name === "Actor" ? ["Resource"] : [];
    drafts.set(name, { name, kind: "abstract", supertypes, extendsIdents: [] });
  }
  const declared: Draft[] = [];
  for (const block of blocks) {
    if (!block.name || block.blockKind === "global" || drafts.has(block.name.name)) continue;
    const draft: Draft = {
      name: block.name.name,
      kind: block.blockKind,
      supertypes: [],
      extendsIdents: [],
      span: block.name.span,
    };
    drafts.set(draft.name, draft);
    declared.push(draft);
  }
  for (const block of blocks) {
    const draft = block.name && drafts.get(block.name.name);
    if (!draft || draft.kind === "primitive" || draft.kind === "abstract") continue;
    for (const target of block.extends) {
      const targetDraft = drafts.get(target.name);
      if (!targetDraft) {
        diagnostics.push(
          checkDiagnostic(
            { code: "P109", kind: "extends-undeclared", type: draft.name, target: target.name },
            target.span,
          ),
        );
      } else if (targetDraft.kind === "primitive") {
        diagnostics.push(
          checkDiagnostic(
            { code: "P109", kind: "extends-primitive", type: draft.name, target: target.name },
            target.span,
          ),
        );
      } else if (!draft.supertypes.includes(target.name)) {
        draft.supertypes.push(target.name);
        draft.extendsIdents.push(target);
      }
    }
    const root = draft.kind === "actor" ? "Actor" : "Resource";
    if (!draft.supertypes.includes(root)) draft.supertypes.push(root);
  }
  addUndeclaredTypes(items, drafts, diagnostics);
  reportCycles(declared, drafts, diagnostics);
  return withAncestors(drafts);
}

function addUndeclaredTypes(
  items: readonly Item[],
  drafts: Map<string, Draft>,
  diagnostics: Diagnostic[],
): void {
  const use = (type: Ident) => {
    if (drafts.has(type.name)) return;
    drafts.set(type.name, {
      name: type.name,
      kind: "undeclared",
      supertypes: ["Resource"],
      extendsIdents: [],
      span: type.span,
    });
    diagnostics.push(
      checkDiagnostic({ code: "W001", kind: "undeclared-type", type: type.name }, type.span),
    );
  };
  for (const item of items) {
    visitItem(item, {
      typeRef: use,
      term: (term) => {
        if (term.kind === "object") use(term.type);
      },
    });
  }
}

function reportCycles(
  declared: readonly Draft[],
  drafts: ReadonlyMap<string, Draft>,
  diagnostics: Diagnostic[],
): void {
  const order = new Map(declared.map((draft, i) => [draft.name, i]));
  const successors = (name: string) => drafts.get(name)?.extendsIdents.map((i) => i.name) ?? [];
  for (const component of findComponents(
    declared.map((d) => d.name),
    successors,
  )) {
    const members = new Set(component);
    const start = component.reduce((a, b) => (order.get(a)! <= order.get(b)! ? a : b));
    const selfLoop = successors(start).includes(start);
    if (component.length === 1 && !selfLoop) continue;
    const path = cyclePath(start, members, successors);
    const startDraft = drafts.get(start)!;
    const span = startDraft.extendsIdents.find((i) => i.name === path[1])?.span;
    diagnostics.push(checkDiagnostic({ code: "P110", kind: "cyclic-extends", path }, span));
  }
}

/** The shortest path `start -> … -> start` inside one component (breadth-first). */
function cyclePath(
  start: string,
  members: ReadonlySet<string>,
  successors: (name: string) => readonly string[],
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of successors(node)) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.push(at);
        path.push(start);
        return [path[0]!, ...path.slice(1, -1).reverse(), start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Reflexive-transitive supertypes, computed supertypes first (cycles share their union). */
function withAncestors(drafts: ReadonlyMap<string, Draft>): Map<string, TypeInfo> {
  const ancestors = new Map<string, string[]>();
  const components = findComponents(drafts.keys(), (name) => drafts.get(name)?.supertypes ?? []);
  for (const component of components) {
    const members = new Set(component);
    for (const name of component) {
      const found = new Set<string>([name]);
      for (const member of component) found.add(member);
      for (const member of component) {
        for (const sup of drafts.get(member)!.supertypes) {
          if (members.has(sup)) continue;
          for (const a of ancestors.get(sup)!) found.add(a);
        }
      }
      ancestors.set(name, [...found]);
    }
  }
  const types = new Map<string, TypeInfo>();
  for (const draft of drafts.values()) {
    types.set(draft.name, {
      name: draft.name,
      kind: draft.kind,
      supertypes: draft.supertypes,
      ancestors: ancestors.get(draft.name)!,
      ...(draft.span && { span: draft.span }),
    });
  }
  return types;
}
