/**
 * Resource blocks (docs/policy-language.md#blocks): merging repeated blocks, validating declarations,
 * inheriting roles, permissions and relations through `extends`, and the resource metadata.
 */
import type { Block, Declaration, DictValue, ListValue } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import type { Span } from "../source/source.js";
import { findComponents } from "./graph.js";
import { checkDiagnostic } from "./problems.js";
import type { ResourceMeta, TypeInfo } from "./program.js";
import { structurallyEqual } from "./structural.js";
import { isBuiltinType } from "./types.js";

type TermKind = "role" | "permission" | "relation";

/** A name declared in a block. */
interface DeclaredTerm {
  readonly kind: TermKind;
  /** The target type of a relation; absent when it has none or it is not a valid type. */
  readonly target?: string;
  readonly span: Span;
}

/** What shorthand rules in a block can refer to. */
export interface BlockScope {
  /** The type name, or `global`. */
  readonly name: string;
  readonly kind: "actor" | "resource" | "global";
  readonly block: Block | null;
  /** Own and inherited declarations. */
  readonly terms: ReadonlyMap<string, DeclaredTerm>;
}

interface MergedBlocks {
  /**
   * One block per declared type, in first-seen order. A type with both an `actor` and a
   * `resource` block gets one combined `actor` block (every actor type is also a resource)
   * holding both blocks' `extends`, declarations and shorthand rules.
   */
  readonly typed: readonly Block[];
  readonly global: Block | null;
  /** The source blocks of each typed block: one, or the actor and the resource block. */
  readonly parts: ReadonlyMap<string, readonly Block[]>;
  /** The source blocks whose place in the policy the merged blocks take (first seen). */
  readonly kept: ReadonlySet<Block>;
}

/**
 * Keeps the first of identical repeated blocks and reports the others (docs/policy-language.md#project-decisions, decision 13); an
 * `actor` and a `resource` block for one type combine (users act, and are acted on).
 *
 * @example
 * mergeBlocks([user, sameUserAgain], diagnostics).typed; // [user]
 */
export function mergeBlocks(blocks: readonly Block[], diagnostics: Diagnostic[]): MergedBlocks {
  const typed = new Map<string, { actor?: Block; resource?: Block; first: Block }>();
  let global: Block | null = null;
  for (const block of blocks) {
    if (block.blockKind === "global" || !block.name) {
      if (!global) global = block;
      else if (!structurallyEqual(global, block)) {
        const span = { ...block.span, end: block.span.start + "global".length };
        diagnostics.push(checkDiagnostic({ code: "P107", kind: "global-twice" }, span));
      }
      continue;
    }
    const name = block.name.name;
    if (isBuiltinType(name) || name === "global") {
      const problem = {
        code: "P111",
        kind: "reserved-type-name",
        type: name,
        global: name === "global",
      } as const;
      diagnostics.push(checkDiagnostic(problem, block.name.span));
      continue;
    }
    const kind = block.blockKind;
    const entry = typed.get(name) ?? { first: block };
    typed.set(name, entry);
    const kept = entry[kind];
    if (!kept) entry[kind] = block;
    else if (!structurallyEqual(kept, block)) {
      diagnostics.push(
        checkDiagnostic({ code: "P111", kind: "type-declared-twice", type: name }, block.name.span),
      );
    }
  }
  const parts = new Map<string, readonly Block[]>();
  const merged: Block[] = [];
  for (const [name, { actor, resource }] of typed) {
    const own = [actor, resource].filter((b): b is Block => b !== undefined);
    parts.set(name, own);
    merged.push(own.length === 1 ? own[0]! : combine(actor!, resource!));
  }
  const kept = new Set([...typed.values()].map((entry) => entry.first));
  if (global) kept.add(global);
  return { typed: merged, global, parts, kept };
}

/** One `actor` block standing for an actor block and a resource block of the same type. */
function combine(actor: Block, resource: Block): Block {
  const extendsNames = new Set(actor.extends.map((i) => i.name));
  return {
    ...actor,
    extends: [...actor.extends, ...resource.extends.filter((i) => !extendsNames.has(i.name))],
    declarations: [...actor.declarations, ...resource.declarations],
    shorthands: [...actor.shorthands, ...resource.shorthands],
  };
}

/**
 * Validates every block and computes its scope, including inherited declarations.
 * Returns one scope per typed block plus `global` (always present).
 *
 * @example
 * blockScopes(merged, types, diagnostics).get("Ticket")?.terms.get("view")?.kind; // "permission"
 */
export function blockScopes(
  merged: MergedBlocks,
  types: ReadonlyMap<string, TypeInfo>,
  diagnostics: Diagnostic[],
): Map<string, BlockScope> {
  const own = new Map<string, Map<string, DeclaredTerm>>();
  const blocks = new Map<string, Block>();
  for (const block of merged.typed) {
    const name = block.name!.name;
    blocks.set(name, block);
    own.set(name, partTerms(merged.parts.get(name) ?? [block], name, types, diagnostics));
  }
  const scopes = new Map<string, BlockScope>();
  const successors = (name: string) =>
    (types.get(name)?.supertypes ?? []).filter((sup) => own.has(sup));
  for (const component of findComponents(own.keys(), successors)) {
    const members = new Set(component);
    for (const name of component) {
      const block = blocks.get(name)!;
      const terms = inherit(
        block,
        own.get(name)!,
        successors(name)
          .filter((sup) => !members.has(sup))
          .map((sup) => scopes.get(sup)!),
        diagnostics,
      );
      scopes.set(name, { name, kind: block.blockKind as "actor" | "resource", block, terms });
    }
  }
  const globalTerms = merged.global
    ? ownTerms(merged.global, "global", types, diagnostics)
    : new Map<string, DeclaredTerm>();
  scopes.set("global", {
    name: "global",
    kind: "global",
    block: merged.global,
    terms: globalTerms,
  });
  return scopes;
}

function inherit(
  block: Block,
  own: ReadonlyMap<string, DeclaredTerm>,
  supertypes: readonly BlockScope[],
  diagnostics: Diagnostic[],
): Map<string, DeclaredTerm> {
  const inherited = new Map<string, DeclaredTerm>();
  for (const scope of supertypes) {
    for (const [name, term] of scope.terms) {
      const seen = inherited.get(name);
      if (!seen) inherited.set(name, term);
      else if (seen.kind !== term.kind || seen.target !== term.target) {
        diagnostics.push(
          checkDiagnostic(
            { code: "P105", kind: "term-declared-twice", term: name, block: block.name!.name },
            block.name!.span,
          ),
        );
      }
    }
  }
  const terms = new Map(inherited);
  for (const [name, term] of own) {
    if (inherited.has(name)) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P105", kind: "term-declared-twice", term: name, block: block.name!.name },
          term.span,
        ),
      );
      continue;
    }
    terms.set(name, term);
  }
  return terms;
}

/** The declarations of a type's blocks together; a name declared in two of them is P105. */
function partTerms(
  parts: readonly Block[],
  blockName: string,
  types: ReadonlyMap<string, TypeInfo>,
  diagnostics: Diagnostic[],
): Map<string, DeclaredTerm> {
  const [first, ...rest] = parts.map((part) => ownTerms(part, blockName, types, diagnostics));
  const terms = first ?? new Map<string, DeclaredTerm>();
  for (const more of rest) {
    for (const [name, term] of more) {
      if (!terms.has(name)) terms.set(name, term);
      else
        diagnostics.push(
          checkDiagnostic(
            { code: "P105", kind: "term-declared-twice", term: name, block: blockName },
            term.span,
          ),
        );
    }
  }
  return terms;
}

const KEYS = new Set(["roles", "permissions", "relations"]);

/** The block's own declarations, with the checks of docs/policy-language.md#block-checks. */
function ownTerms(
  block: Block,
  blockName: string,
  types: ReadonlyMap<string, TypeInfo>,
  diagnostics: Diagnostic[],
): Map<string, DeclaredTerm> {
  const terms = new Map<string, DeclaredTerm>();
  const keys = new Set<string>();
  const add = (name: string, term: DeclaredTerm) => {
    if (terms.has(name)) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P105", kind: "term-declared-twice", term: name, block: blockName },
          term.span,
        ),
      );
    } else {
      terms.set(name, term);
    }
  };
  for (const declaration of block.declarations) {
    const key = declaration.key.name;
    if (!KEYS.has(key)) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P101", kind: "unknown-declaration", key, block: blockName },
          declaration.key.span,
        ),
      );
      continue;
    }
    if (block.blockKind === "global" && key === "relations") {
      diagnostics.push(
        checkDiagnostic({ code: "P108", kind: "global-relations" }, declaration.key.span),
      );
      continue;
    }
    if (keys.has(key)) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P104", kind: "key-declared-twice", key, block: blockName },
          declaration.key.span,
        ),
      );
      continue;
    }
    keys.add(key);
    if (key === "relations") relationTerms(declaration, blockName, types, add, diagnostics);
    else
      listTerms(declaration, key === "roles" ? "role" : "permission", blockName, add, diagnostics);
  }
  return terms;
}

function listTerms(
  declaration: Declaration,
  kind: "role" | "permission",
  blockName: string,
  add: (name: string, term: DeclaredTerm) => void,
  diagnostics: Diagnostic[],
): void {
  const shape = (span: Span) =>
    checkDiagnostic(
      { code: "P102", kind: "declaration-not-list", key: declaration.key.name, block: blockName },
      span,
    );
  const value: ListValue | DictValue = declaration.value;
  if (value.kind !== "list") {
    diagnostics.push(shape(value.span));
    return;
  }
  for (const element of value.elements) {
    if (element.kind !== "string") diagnostics.push(shape(element.span));
    else add(element.value, { kind, span: element.span });
  }
}

function relationTerms(
  declaration: Declaration,
  blockName: string,
  types: ReadonlyMap<string, TypeInfo>,
  add: (name: string, term: DeclaredTerm) => void,
  diagnostics: Diagnostic[],
): void {
  const value = declaration.value;
  if (value.kind !== "dict") {
    diagnostics.push(
      checkDiagnostic(
        { code: "P102", kind: "relations-not-dictionary", block: blockName },
        value.span,
      ),
    );
    return;
  }
  for (const field of value.fields) {
    const name = field.name.name;
    if (!field.type) {
      diagnostics.push(
        checkDiagnostic(
          { code: "P103", kind: "relation-without-type", relation: name, block: blockName },
          field.span,
        ),
      );
      add(name, { kind: "relation", span: field.name.span });
      continue;
    }
    const target = types.get(field.type.name);
    if (!target || target.kind === "undeclared") {
      diagnostics.push(
        checkDiagnostic(
          {
            code: "P106",
            kind: "relation-undeclared-type",
            relation: name,
            block: blockName,
            type: field.type.name,
          },
          field.type.span,
        ),
      );
      add(name, { kind: "relation", span: field.name.span });
      continue;
    }
    if (target.kind === "primitive" || target.kind === "abstract") {
      diagnostics.push(
        checkDiagnostic(
          {
            code: "P106",
            kind: "relation-not-entity",
            relation: name,
            block: blockName,
            type: field.type.name,
          },
          field.type.span,
        ),
      );
      add(name, { kind: "relation", span: field.name.span });
      continue;
    }
    add(name, { kind: "relation", target: field.type.name, span: field.name.span });
  }
}

/**
 * Resource metadata from block scopes: sorted roles and permissions, relations by name.
 *
 * @example
 * resourceMetadata(scopes).get("Ticket"); // { name: "Ticket", kind: "resource", roles: [], … }
 */
export function resourceMetadata(
  scopes: ReadonlyMap<string, BlockScope>,
): Map<string, ResourceMeta> {
  const metas = new Map<string, ResourceMeta>();
  for (const scope of scopes.values()) {
    const roles: string[] = [];
    const permissions: string[] = [];
    const relationNames: string[] = [];
    for (const [name, term] of scope.terms) {
      if (term.kind === "role") roles.push(name);
      else if (term.kind === "permission") permissions.push(name);
      else if (term.target) relationNames.push(name);
    }
    const relations: Record<string, string> = {};
    for (const name of relationNames.sort()) relations[name] = scope.terms.get(name)!.target!;
    metas.set(scope.name, {
      name: scope.name,
      kind: scope.kind,
      roles: roles.sort(),
      permissions: permissions.sort(),
      relations,
    });
  }
  return metas;
}
