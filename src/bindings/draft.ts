/**
 * Drafts data bindings from a database catalog (`polar-sql bindings init`):
 *
 * - a table or view with a one-column key is an entity type, named after the table
 *   (`repositories` → `Repository`), its key column giving `sql_types`;
 * - each one-column foreign key of an entity table is a relation named after its column
 *   (`author_id` → `has_relation(Post:_, author, User:_)`), nullable columns filtered;
 * - a join table (composite key, two references) is `has_role` when it has a role column,
 *   otherwise a relation (or, with a policy, a role the policy declares);
 * - each boolean column of an entity table is an attribute (`is_public(Repository:_)`);
 * - `keys` come from primary keys and unique constraints of the tables read by plain scans.
 *
 * With a policy, the draft holds only what the policy reads, named with its types,
 * relations, roles and attribute reads: tables and views that stand for none of its types are
 * only named in a comment, bindings over its types that no rule reads are written commented
 * out, and facts it reads that the schema does not give are listed as comments.
 */
import type { Program } from "../check/program.js";
import type { Catalog, CatalogColumn } from "../database/types.js";
import { spanLocation } from "../source/format.js";
import { normalizeSqlType } from "../sql/sql-type.js";
import { type Draft, type DraftOptions, draftFacts, sqlTable } from "./draft-facts.js";
import { type FactPattern, patternsOverlap, policyUse, slotArg } from "./policy-use.js";
import { formatSlot, isPolarName } from "./signature.js";

export type { DraftOptions } from "./draft-facts.js";

/**
 * A signature as users write it: String constants that are names without `String:`, except a
 * name with `::`, which a bare slot would read as a type (`a::b` → type `a`).
 */
function signatureOf(draft: Pick<Draft, "predicate" | "slots">): string {
  const slots = draft.slots.map((slot) =>
    slot.kind === "constant" &&
    slot.type === "String" &&
    isPolarName(slot.value) &&
    !slot.value.includes(":") &&
    slot.value !== "_"
      ? slot.value
      : formatSlot(slot),
  );
  return `${draft.predicate}(${slots.join(", ")})`;
}

function patternText(pattern: FactPattern): string {
  const args = pattern.args.map((arg) =>
    arg.kind === "any"
      ? "_"
      : arg.kind === "type"
        ? `${arg.type}:_`
        : formatSlot({ kind: "constant", type: arg.value.type, value: arg.value.id }),
  );
  return `${pattern.name}(${args.join(", ")})`;
}

/** Text safe inside a YAML comment: no line breaks or control characters. */
function commentText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, "?");
}

function used(program: Program, draft: Draft): boolean {
  if (!draft.slots.every((slot) => program.types.has(slot.type))) return false;
  const args = draft.slots.map(slotArg);
  return policyUse(program).calls.some(
    (call) => call.name === draft.predicate && patternsOverlap(program, call.args, args),
  );
}

function bindingLines(draft: Draft, prefix: string): string[] {
  return [
    `${prefix}# ${commentText(draft.note)}`,
    `${prefix}${JSON.stringify(signatureOf(draft))}:`,
    `${prefix}  query: ${JSON.stringify(draft.query)}`,
  ];
}

/**
 * Data bindings YAML for the tables and views of `catalog`.
 *
 *   const session = await openDatabase(url);
 *   const yaml = draftBindings(await session.catalog(), { identifier: session.identifier,
 *     family: session.family, program });
 */
export function draftBindings(catalog: Catalog, options: DraftOptions): string {
  const context = { options };
  const program = options.program ?? null;
  const drafted = draftFacts(catalog, options);
  const seen = new Set<string>();
  const drafts = drafted.drafts.filter((draft) => {
    const signature = signatureOf(draft);
    if (seen.has(signature)) return false;
    seen.add(signature);
    return true;
  });
  const active = program ? drafts.filter((draft) => used(program, draft)) : drafts;
  // A binding over a type the policy does not declare could never be read, even commented in.
  const unused = drafts.filter(
    (draft) =>
      !active.includes(draft) && draft.slots.every((slot) => program?.types.has(slot.type)),
  );

  const lines = [
    `# Data bindings drafted by \`polar-sql bindings init\` from schema ${JSON.stringify(commentText(catalog.schema))} (${catalog.dialect}).`,
    "# Review every query, then run `polar-sql bindings check`.",
  ];
  if (program) {
    const missing = policyUse(program).leaves.filter(
      (leaf) =>
        !active.some(
          (draft) =>
            draft.predicate === leaf.name &&
            patternsOverlap(program, draft.slots.map(slotArg), leaf.args),
        ),
    );
    if (missing.length > 0) {
      lines.push(
        "#",
        "# The policy reads these facts, which the schema does not give: store them as",
        "# central facts, or bind them by hand.",
      );
      for (const leaf of missing) {
        const where = spanLocation(leaf.span, program.sources);
        lines.push(`#   ${commentText(patternText(leaf))}   (${commentText(where)})`);
      }
    }
  }
  if (program && drafted.untyped.length > 0) {
    const names = drafted.untyped.map((table) => commentText(table.name)).join(", ");
    lines.push("#", `# Tables and views that stand for no type of the policy: ${names}.`);
  }
  lines.push("facts:");
  for (const draft of active) lines.push(...bindingLines(draft, "  "));
  if (unused.length > 0) {
    lines.push("  # Not read by the policy:");
    for (const draft of unused) lines.push(...bindingLines(draft, "  # "));
  }

  const types = new Map<string, CatalogColumn>();
  for (const draft of active) {
    for (const slot of draft.slots) {
      const key = drafted.keyColumns.get(slot.type);
      if (slot.kind === "column" && key && !types.has(slot.type)) types.set(slot.type, key);
    }
  }
  if (types.size > 0) {
    lines.push("sql_types:");
    for (const [type, key] of types) {
      const sqlType = normalizeSqlType(key.type);
      lines.push(
        sqlType === null
          ? `  # ${JSON.stringify(type)}: cannot be given column type ${commentText(key.type)}`
          : `  ${JSON.stringify(type)}: ${JSON.stringify(sqlType)}`,
      );
    }
  }
  const keys = new Map<string, readonly string[]>();
  for (const draft of active) {
    const table = draft.scans;
    if (table?.kind !== "table") continue;
    const nonNull = (key: readonly string[]) =>
      key.every((name) => table.columns.some((c) => c.name === name && !c.nullable));
    const key = table.primaryKey ?? table.uniqueKeys.find(nonNull);
    if (key) keys.set(sqlTable(context, table), key);
  }
  if (keys.size > 0) {
    lines.push("keys:");
    for (const [table, key] of keys) {
      const columns = key.map((name) => options.identifier(name));
      const value = columns.length === 1 ? JSON.stringify(columns[0]) : JSON.stringify(columns);
      lines.push(`  ${JSON.stringify(table)}: ${value}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
