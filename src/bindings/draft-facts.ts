/**
 * The facts a database catalog gives, for `bindings init` (see `draftBindings` in
 * `src/bindings/draft.ts` for the rules): entity types from tables and views with a one-column
 * key, relations from foreign keys, roles or relations from join tables, attributes from
 * boolean columns; names follow the policy where one is given.
 */
import type { Program } from "../check/program.js";
import { isAbstractType, isPrimitiveType } from "../core/value.js";
import type { Catalog, CatalogColumn, CatalogTable, ColumnFamily } from "../database/types.js";
import { looseName, relationNameOf, singular, typeNameOf } from "./naming.js";
import { type PatternArg, patternsOverlap, policyUse } from "./policy-use.js";
import { isPolarName } from "./signature.js";
import type { BindingSlot } from "./types.js";

export interface DraftOptions {
  /** An identifier as SQL of the database's dialect. */
  readonly identifier: (name: string) => string;
  /** The family of a column type of the database's dialect. */
  readonly family: (type: string) => ColumnFamily;
  /** Match names to this policy, and leave out what it does not read. */
  readonly program?: Program | null;
  /** Write table names with their schema (when the schema is not the connection's default). */
  readonly qualify?: boolean;
}

interface Entity {
  readonly table: CatalogTable;
  readonly type: string;
  readonly key: CatalogColumn;
}

/** A column that refers to an entity's rows. */
interface Reference {
  readonly column: CatalogColumn;
  readonly target: Entity;
  readonly targetColumn: string;
}

export interface Draft {
  readonly predicate: string;
  readonly slots: readonly BindingSlot[];
  readonly query: string;
  /** Where it comes from, as a comment. */
  readonly note: string;
  /** The table a plain scan reads (for `keys`), or null. */
  readonly scans: CatalogTable | null;
}

interface Context {
  readonly options: DraftOptions;
  readonly program: Program | null;
}

const column = (type: string): BindingSlot => ({ kind: "column", type });
const constant = (value: string): BindingSlot => ({ kind: "constant", type: "String", value });

function tableKey(table: { schema: string | null; name: string }): string {
  return JSON.stringify([table.schema, table.name]);
}

/** A table's name as the drafted queries write it. */
export function sqlTable(context: { readonly options: DraftOptions }, table: CatalogTable): string {
  const { identifier, qualify } = context.options;
  const name = identifier(table.name);
  return qualify && table.schema !== null ? `${identifier(table.schema)}.${name}` : name;
}

/**
 * The policy's entity type a table stands for, or the name made from the table's; null with
 * a policy that declares no such type (the table is then no entity of the draft).
 */
function typeFor(context: Context, table: CatalogTable): string | null {
  const named = typeNameOf(table.name);
  // `strings` must not become the primitive `String`, nor `actors` the abstract `Actor`.
  const candidate = isPrimitiveType(named) || isAbstractType(named) ? `${named}Row` : named;
  if (!context.program) return candidate;
  const wanted = new Set([
    looseName(candidate),
    looseName(table.name),
    looseName(singular(table.name)),
  ]);
  for (const [name, info] of context.program.types) {
    if (
      (info.kind === "actor" || info.kind === "resource" || info.kind === "undeclared") &&
      wanted.has(looseName(name))
    ) {
      return name;
    }
  }
  return null;
}

function keyColumn(table: CatalogTable): CatalogColumn | null {
  const byName = (name: string) => table.columns.find((c) => c.name === name) ?? null;
  if (table.kind === "view") return byName("id");
  if (table.primaryKey?.length === 1) return byName(table.primaryKey[0]!);
  const unique = table.uniqueKeys.find(
    (key) => key.length === 1 && byName(key[0]!)?.nullable === false,
  );
  return unique ? byName(unique[0]!) : null;
}

function findEntities(context: Context, catalog: Catalog): Map<string, Entity> {
  const entities = new Map<string, Entity>();
  const taken = new Set<string>();
  for (const table of catalog.tables) {
    const key = keyColumn(table);
    const type = typeFor(context, table);
    if (!key || type === null || !isPolarName(type) || taken.has(type)) continue;
    taken.add(type);
    entities.set(tableKey(table), { table, type, key });
  }
  return entities;
}

function tableReferences(table: CatalogTable, entities: ReadonlyMap<string, Entity>): Reference[] {
  return table.foreignKeys.flatMap((fk) => {
    const target = entities.get(tableKey(fk.references));
    const from =
      fk.columns.length === 1 ? table.columns.find((c) => c.name === fk.columns[0]) : undefined;
    return target && from ? [{ column: from, target, targetColumn: fk.referencedColumns[0]! }] : [];
  });
}

/**
 * Views have no foreign keys: a view column refers to an entity when a table's foreign-key
 * column of the same name does (`org_id` → `organizations`), or when it is `<name>_id` for an
 * entity named `<name>`, and its type fits the entity's key.
 */
function viewReferences(
  context: Context,
  view: CatalogTable,
  entities: ReadonlyMap<string, Entity>,
  learned: ReadonlyMap<string, Entity>,
): Reference[] {
  const { family } = context.options;
  return view.columns.flatMap((col) => {
    if (col.name === "id") return [];
    const named = /_id$/.test(col.name) ? looseName(typeNameOf(col.name.slice(0, -3))) : null;
    const target =
      learned.get(col.name) ??
      [...entities.values()].find((entity) => looseName(entity.type) === named);
    if (!target || family(target.key.type) !== family(col.type)) return [];
    return [{ column: col, target, targetColumn: target.key.name }];
  });
}

function notNull(context: Context, columns: readonly CatalogColumn[]): string {
  const nullable = columns
    .filter((c) => c.nullable)
    .map((c) => `${context.options.identifier(c.name)} IS NOT NULL`);
  return nullable.length === 0 ? "" : ` WHERE ${nullable.join(" AND ")}`;
}

function relationDraft(context: Context, entity: Entity, ref: Reference): Draft {
  const { identifier } = context.options;
  let relation = relationNameOf(ref.column.name);
  const meta = context.program?.resources.get(entity.type);
  if (meta && !Object.hasOwn(meta.relations, relation)) {
    const fitting = Object.entries(meta.relations).filter(
      ([, target]) => target === ref.target.type,
    );
    if (fitting.length === 1) relation = fitting[0]![0];
  }
  const table = sqlTable(context, entity.table);
  const target = ref.target;
  const note = `${entity.table.name}.${ref.column.name} -> ${target.table.name}.${ref.targetColumn}`;
  const slots = [column(entity.type), constant(relation), column(target.type)];
  if (ref.targetColumn === target.key.name) {
    const query = `SELECT ${identifier(entity.key.name)}, ${identifier(ref.column.name)} FROM ${table}${notNull(context, [ref.column])}`;
    return { predicate: "has_relation", slots, query, note, scans: entity.table };
  }
  const query = `SELECT t.${identifier(entity.key.name)}, u.${identifier(target.key.name)} FROM ${table} AS t JOIN ${sqlTable(context, target.table)} AS u ON u.${identifier(ref.targetColumn)} = t.${identifier(ref.column.name)}`;
  return { predicate: "has_relation", slots, query, note, scans: null };
}

function attributeDraft(context: Context, entity: Entity, col: CatalogColumn): Draft | null {
  const { identifier } = context.options;
  const prefixed = /^(is|has|can)_/.test(col.name);
  const names = prefixed ? [col.name] : [`is_${col.name}`, col.name];
  const table = sqlTable(context, entity.table);
  const note = `boolean column ${entity.table.name}.${col.name}`;
  const typeArg: PatternArg = { kind: "type", type: entity.type };
  const read = context.program
    ? policyUse(context.program).calls.find(
        (call) =>
          names.includes(call.name) &&
          (call.args.length === 1 || call.args.length === 2) &&
          patternsOverlap(context.program!, call.args.slice(0, 1), [typeArg]),
      )
    : undefined;
  const predicate = read?.name ?? names[0]!;
  if (!isPolarName(predicate)) return null;
  const key = identifier(entity.key.name);
  if (read?.args.length === 2) {
    const query = `SELECT ${key}, ${identifier(col.name)} FROM ${table}${notNull(context, [col])}`;
    return {
      predicate,
      slots: [column(entity.type), column("Boolean")],
      query,
      note,
      scans: entity.table,
    };
  }
  const query = `SELECT ${key} FROM ${table} WHERE ${identifier(col.name)}`;
  return { predicate, slots: [column(entity.type)], query, note, scans: entity.table };
}

const ACTOR_NAMES = /^(User|Account|Person|Member|Principal|Actor)$/;

function isActor(context: Context, entity: Entity): boolean {
  return context.program
    ? context.program.types.get(entity.type)?.kind === "actor"
    : ACTOR_NAMES.test(entity.type);
}

/** The words of the join table's name that do not name either side: `repository_topics` → `topics`. */
function remainder(table: string, sides: readonly Entity[]): string {
  const drop = new Set(
    sides.flatMap((side) => [side.table.name, singular(side.table.name), side.type].map(looseName)),
  );
  const rest = table
    .split(/_+/)
    .filter((word) => word && !drop.has(looseName(word)) && !drop.has(looseName(singular(word))));
  return rest.join("_");
}

function joinDraft(
  context: Context,
  table: CatalogTable,
  refs: readonly Reference[],
): Draft | null {
  const { identifier, family } = context.options;
  let [a, b] = refs as [Reference, Reference];
  const from = sqlTable(context, table);
  const role = table.columns.find(
    (c) => family(c.type) === "text" && /(^|_)role(_name)?$/.test(c.name),
  );
  const refNote = `${table.name}(${a.column.name} -> ${a.target.table.name}, ${b.column.name} -> ${b.target.table.name})`;
  if (isActor(context, b.target) && !isActor(context, a.target)) [a, b] = [b, a];
  const select = (...columns: CatalogColumn[]) =>
    `SELECT ${columns.map((c) => identifier(c.name)).join(", ")} FROM ${from}${notNull(context, columns)}`;
  if (role) {
    return {
      predicate: "has_role",
      slots: [column(a.target.type), column("String"), column(b.target.type)],
      query: select(a.column, role, b.column),
      note: `${refNote}, role column ${role.name}`,
      scans: table.kind === "table" ? table : null,
    };
  }
  const rest = remainder(table.name, [a.target, b.target]);
  const program = context.program;
  if (program) {
    // A relation the policy declares between the two types, in either direction.
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const relations = Object.entries(program.resources.get(x.target.type)?.relations ?? {});
      const fitting = relations.filter(([, target]) => target === y.target.type);
      const wanted = new Set([looseName(rest), looseName(singular(rest))]);
      const chosen =
        fitting.find(([name]) => wanted.has(looseName(name))) ??
        (fitting.length === 1 ? fitting[0] : undefined);
      if (chosen) {
        return {
          predicate: "has_relation",
          slots: [column(x.target.type), constant(chosen[0]), column(y.target.type)],
          query: select(x.column, y.column),
          note: refNote,
          scans: table.kind === "table" ? table : null,
        };
      }
    }
    // A role the policy declares, named by the table (`repository_admins` → `admin`).
    const roleName = singular(rest);
    if (
      isActor(context, a.target) &&
      program.resources.get(b.target.type)?.roles.includes(roleName)
    ) {
      return {
        predicate: "has_role",
        slots: [column(a.target.type), constant(roleName), column(b.target.type)],
        query: select(a.column, b.column),
        note: refNote,
        scans: table.kind === "table" ? table : null,
      };
    }
  }
  const [subject, object] = isActor(context, a.target) ? [b, a] : [a, b];
  return {
    predicate: "has_relation",
    slots: [
      column(subject.target.type),
      constant(rest || object.target.table.name),
      column(object.target.type),
    ],
    query: select(subject.column, object.column),
    note: refNote,
    scans: table.kind === "table" ? table : null,
  };
}

function isJoinTable(context: Context, table: CatalogTable): boolean {
  // With a policy, a keyed table that stands for none of its types may still join two of
  // them; a keyed view stands for rows of a type, not for pairs.
  if (keyColumn(table) !== null && context.program !== null) return table.kind === "table";
  return (
    table.kind === "view" ||
    (table.primaryKey?.length ?? 0) >= 2 ||
    (table.primaryKey === null && table.uniqueKeys.some((key) => key.length >= 2))
  );
}

/** What the catalog gives: the drafted facts, and the key column of each entity type. */
interface DraftedFacts {
  readonly drafts: readonly Draft[];
  readonly keyColumns: ReadonlyMap<string, CatalogColumn>;
  /** Keyed tables and views that stand for no entity type (with a policy: none it declares). */
  readonly untyped: readonly CatalogTable[];
}

/**
 * The facts a catalog gives, named after the policy where one is given (see `draftBindings`).
 *
 *   draftFacts(catalog, options).drafts.map((d) => d.predicate) // ["has_relation", "is_public", …]
 */
export function draftFacts(catalog: Catalog, options: DraftOptions): DraftedFacts {
  const context: Context = { options, program: options.program ?? null };
  const entities = findEntities(context, catalog);
  const learned = new Map<string, Entity>();
  for (const table of catalog.tables) {
    for (const ref of tableReferences(table, entities)) {
      if (ref.targetColumn === ref.target.key.name) learned.set(ref.column.name, ref.target);
    }
  }
  const drafts: Draft[] = [];
  for (const table of catalog.tables) {
    const entity = entities.get(tableKey(table));
    const refs =
      table.kind === "table"
        ? tableReferences(table, entities)
        : viewReferences(context, table, entities, learned);
    if (entity) {
      for (const ref of refs) drafts.push(relationDraft(context, entity, ref));
      for (const col of table.columns) {
        if (col.name === entity.key.name || context.options.family(col.type) !== "boolean")
          continue;
        const attribute = attributeDraft(context, entity, col);
        if (attribute) drafts.push(attribute);
      }
    } else if (refs.length >= 2 && isJoinTable(context, table)) {
      const join = joinDraft(context, table, refs);
      if (join) drafts.push(join);
    }
  }
  const keyColumns = new Map([...entities.values()].map((e) => [e.type, e.key] as const));
  const untyped = catalog.tables.filter(
    (table) => keyColumn(table) !== null && !entities.has(tableKey(table)),
  );
  return { drafts, keyColumns, untyped };
}
