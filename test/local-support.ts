/**
 * A harness for local-SQL tests: a policy family (policy, locally bound signatures, SQL types,
 * a small id domain) gets one table per binding; facts are routed to those tables, to the
 * central store or to context facts; every emitted statement is executed and compared with
 * the reference evaluator.
 */
import { expect } from "vitest";
import {
  actionsQuery,
  authorizeQuery,
  evaluateQueryLocal,
  type LocalOptions,
  listQuery,
} from "../src/api/local.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { DataBindings } from "../src/bindings/types.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { actions, authorize, list, query } from "../src/evaluate/index.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import type { TestDatabase } from "./support/databases.js";

export interface Family {
  /** Also the prefix of the family's tables. */
  readonly name: string;
  readonly policy: string;
  /** Signatures bound to tables, e.g. `has_role(User:_, String:_, Org:_)`. */
  readonly bindings: readonly string[];
  readonly sqlTypes: Readonly<Record<string, string>>;
  /** Ids of each entity type; questions range over them. */
  readonly domain: Readonly<Record<string, readonly string[]>>;
  readonly actors: readonly Value[];
  readonly actions: readonly string[];
  /** Resource types asked about (authorize, list, actions). */
  readonly resourceTypes: readonly string[];
}

export type Destination = "local" | "central" | "context";

export interface RoutedFact {
  readonly fact: GroundFact;
  readonly to: Destination;
}

export const NOW = 1_700_000_000n;

export function checked(text: string): Program {
  const result = checkPolicy([{ name: "policy.polar", text }]);
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.program;
}

export interface Prepared {
  readonly family: Family;
  readonly program: Program;
  readonly yaml: string;
  readonly bindings: DataBindings;
  readonly tables: readonly string[];
  /**
   * The program the evaluator answers with, when not `program`: an equivalent policy the
   * evaluator answers faster (it writes bodies in disjunctive normal form).
   */
  readonly reference?: Program;
}

function tableName(family: Family, index: number): string {
  return `${family.name}_b${index}`;
}

function domainTable(family: Family, type: string): string {
  return `${family.name}_dom_${type.toLowerCase()}`;
}

function columnSqlType(family: Family, type: string): string {
  if (type === "String") return "text";
  if (type === "Integer") return "bigint";
  if (type === "Boolean") return "boolean";
  return family.sqlTypes[type] ?? "text";
}

/** A SQL literal built without the renderer under test: text travels as hex-encoded UTF-8. */
export function independentLiteral(family: Family, value: Value): string {
  const type = columnSqlType(family, value.type);
  if (type === "bigint" || type === "integer" || type === "int" || type === "smallint") {
    return value.id;
  }
  if (type === "boolean") return value.id === "true" ? "TRUE" : "FALSE";
  const hex = Buffer.from(value.id, "utf8").toString("hex");
  return `CAST(convert_from(decode('${hex}', 'hex'), 'UTF8') AS ${type})`;
}

/** Creates the family's tables (once per database) and returns what the tests need. */
export async function prepare(db: TestDatabase, family: Family): Promise<Prepared> {
  // Unanalyzed tables give recursive CTEs huge cost estimates, and JIT compilation of each
  // statement would then dominate the run time on a PostgreSQL server.
  await db.exec("SET jit = off");
  const program = checked(family.policy);
  const lines = ["facts:"];
  family.bindings.forEach((signature, index) => {
    const parsed = parseDataBindings(`facts:\n  "${signature}":\n    query: SELECT 1\n`);
    const slots = parsed.bindings[0]!.slots;
    const columns = slots.flatMap((slot, i) => (slot.kind === "column" ? [`c${i}`] : []));
    lines.push(`  "${signature}":`);
    lines.push(`    query: SELECT ${columns.join(", ")} FROM ${tableName(family, index)}`);
  });
  lines.push("sql_types:");
  for (const [type, sqlType] of Object.entries(family.sqlTypes))
    lines.push(`  ${type}: ${sqlType}`);
  const yaml = `${lines.join("\n")}\n`;
  const bindings = parseDataBindings(yaml);
  const ddl: string[] = [];
  const tables: string[] = [];
  bindings.bindings.forEach((binding, index) => {
    const columns = binding.slots.flatMap((slot, i) =>
      slot.kind === "column" ? [`c${i} ${columnSqlType(family, slot.type)}`] : [],
    );
    const name = tableName(family, index);
    tables.push(name);
    ddl.push(`DROP TABLE IF EXISTS ${name}; CREATE TABLE ${name} (${columns.join(", ")});`);
  });
  for (const [type, ids] of Object.entries(family.domain)) {
    const name = domainTable(family, type);
    const rows = ids.map((id) => `(${independentLiteral(family, { type, id })})`).join(", ");
    ddl.push(
      `DROP TABLE IF EXISTS ${name}; CREATE TABLE ${name} (id ${columnSqlType(family, type)});`,
      rows ? `INSERT INTO ${name} VALUES ${rows};` : "",
    );
  }
  await db.exec(ddl.join("\n"));
  return { family, program, yaml, bindings, tables };
}

function matchesBinding(binding: DataBindings["bindings"][number], fact: GroundFact): boolean {
  if (binding.predicate !== fact.predicate || binding.slots.length !== fact.args.length) {
    return false;
  }
  return binding.slots.every((slot, i) => {
    const arg = fact.args[i]!;
    return slot.kind === "constant"
      ? slot.type === arg.type && slot.value === arg.id
      : slot.type === arg.type;
  });
}

/** Whether some binding can hold the fact. */
export function bindable(prepared: Prepared, fact: GroundFact): boolean {
  return prepared.bindings.bindings.some((binding) => matchesBinding(binding, fact));
}

export interface Loaded {
  readonly options: LocalOptions;
  readonly context: GroundFact[];
  readonly stored: GroundFact[];
}

/** Empties the tables and stores the facts where they are routed (local when possible). */
export async function load(
  db: TestDatabase,
  prepared: Prepared,
  facts: readonly RoutedFact[],
  extraRows: readonly string[] = [],
): Promise<Loaded> {
  const statements = prepared.tables.map((table) => `TRUNCATE ${table};`);
  const central: GroundFact[] = [];
  const context: GroundFact[] = [];
  for (const { fact, to } of facts) {
    const targets = prepared.bindings.bindings.flatMap((b, i) =>
      matchesBinding(b, fact) ? [i] : [],
    );
    if (to === "local" && targets.length > 0) {
      for (const index of targets) {
        const binding = prepared.bindings.bindings[index]!;
        const values = binding.slots.flatMap((slot, i) =>
          slot.kind === "column" ? [independentLiteral(prepared.family, fact.args[i]!)] : [],
        );
        statements.push(`INSERT INTO ${prepared.tables[index]} VALUES (${values.join(", ")});`);
      }
    } else if (to === "context") {
      context.push(fact);
    } else {
      central.push(fact);
    }
  }
  statements.push(...extraRows);
  await db.exec(statements.join("\n"));
  const stored = facts.filter((f) => f.to !== "context").map((f) => f.fact);
  return {
    options: { central: inMemoryCentralFacts(central), now: () => NOW },
    context,
    stored,
  };
}

function resources(family: Family): Value[] {
  return family.resourceTypes.flatMap((type) =>
    (family.domain[type] ?? []).map((id) => ({ type, id })),
  );
}

const wire = (facts: readonly GroundFact[]) =>
  facts.map((f) => ({ predicate: f.predicate, args: f.args }));

/** Scalar subqueries evaluated in one round trip. */
async function batch(db: TestDatabase, expressions: readonly string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let start = 0; start < expressions.length; start += 40) {
    const chunk = expressions.slice(start, start + 40);
    const select = chunk.map((e, i) => `(${e}) AS v${i}`).join(", ");
    const rows = await db.query<Record<string, unknown>>(`SELECT ${select}`);
    for (let i = 0; i < chunk.length; i++) out.push(rows[0]![`v${i}`]);
  }
  return out;
}

/** Compares authorize, actions, list and select answers with the evaluator. */
export async function compareAll(
  db: TestDatabase,
  prepared: Prepared,
  loaded: Loaded,
): Promise<void> {
  const { family, program, yaml } = prepared;
  const reference = prepared.reference ?? program;
  const { options, context, stored } = loaded;
  const evalOptions = { contextFacts: context, now: () => NOW };
  const sqlOf = (fn: () => string, what: string) => {
    try {
      return fn();
    } catch (error) {
      throw new Error(`${what}: ${(error as Error).message}`);
    }
  };

  // authorize_query
  const cases = family.actors.flatMap((actor) =>
    family.actions.flatMap((action) =>
      resources(family).map((resource) => ({ actor, action, resource })),
    ),
  );
  const authorizeSql = cases.map(({ actor, action, resource }) =>
    sqlOf(
      () =>
        authorizeQuery(
          program,
          {
            query: {
              actor_type: actor.type,
              actor_id: actor.id,
              action,
              resource_type: resource.type,
              resource_id: resource.id,
              context_facts: wire(context),
            },
            data_bindings: yaml,
          },
          options,
        ).sql,
      `authorize ${actor.id} ${action} ${resource.type}:${resource.id}`,
    ),
  );
  const allowed = await batch(db, authorizeSql);
  cases.forEach((c, i) => {
    const expected = authorize(reference, stored, c.actor, c.action, c.resource, evalOptions);
    expect(
      allowed[i],
      `authorize ${c.actor.id} ${c.action} ${c.resource.type}:${c.resource.id}\n${authorizeSql[i]}`,
    ).toBe(expected);
  });

  // actions_query
  const pairs = family.actors.flatMap((actor) =>
    resources(family).map((resource) => ({ actor, resource })),
  );
  const actionsSql = pairs.map(({ actor, resource }) => {
    const statement = actionsQuery(
      program,
      {
        query: {
          actor_type: actor.type,
          actor_id: actor.id,
          resource_type: resource.type,
          resource_id: resource.id,
          context_facts: wire(context),
        },
        data_bindings: yaml,
      },
      options,
    ).sql;
    return `SELECT COALESCE(array_agg(x.actions ORDER BY x.actions COLLATE "C"), ARRAY[]::text[]) FROM (${statement}) AS x`;
  });
  const actionRows = await batch(db, actionsSql);
  pairs.forEach((p, i) => {
    const expected = actions(reference, stored, p.actor, p.resource, evalOptions);
    expect(
      sorted(actionRows[i] as string[]),
      `actions ${p.actor.id} ${p.resource.type}:${p.resource.id}\n${actionsSql[i]}`,
    ).toEqual(sorted(expected));
  });

  // list_query
  const lists = family.actors.flatMap((actor) =>
    family.actions.flatMap((action) =>
      family.resourceTypes.map((type) => ({ actor, action, type })),
    ),
  );
  const listSql = lists.map(({ actor, action, type }) => {
    const table = domainTable(family, type);
    const fragment = listQuery(
      program,
      {
        query: {
          actor_type: actor.type,
          actor_id: actor.id,
          action,
          resource_type: type,
          context_facts: wire(context),
        },
        column: `${table}.id`,
        data_bindings: yaml,
      },
      options,
    ).sql;
    return `SELECT COALESCE(array_agg(CAST(${table}.id AS text)), ARRAY[]::text[]) FROM ${table} WHERE ${fragment}`;
  });
  const listed = await batch(db, listSql);
  lists.forEach((l, i) => {
    const answer = list(reference, stored, l.actor, l.action, l.type, evalOptions);
    const expected = answer.includes("*") ? [...(family.domain[l.type] ?? [])] : answer;
    expect(
      sorted(listed[i] as string[]),
      `list ${l.actor.id} ${l.action} ${l.type}\n${listSql[i]}`,
    ).toEqual(sorted(expected));
  });

  // evaluate_query_local, select mode: allow(actor, free action, free resource)
  const selects = family.actors.flatMap((actor) =>
    family.resourceTypes.map((type) => ({ actor, type })),
  );
  const selectSql = selects.map(({ actor, type }) => {
    const statement = evaluateQueryLocal(
      program,
      {
        query: {
          predicate: ["allow", ["u", "a", "r"]],
          calls: [],
          constraints: {
            u: { type: actor.type, ids: [actor.id] },
            a: { type: "String", ids: null },
            r: { type, ids: null },
          },
          context_facts: wire(context),
        },
        data_bindings: yaml,
        mode: {
          mode: "select",
          query_vars_to_output_column_names: { a: "action", r: "Resource Id" },
        },
      },
      options,
    ).sql;
    return `SELECT COALESCE(json_agg(json_build_array(x.action, CAST(x."Resource Id" AS text))), '[]'::json) FROM (${statement}) AS x`;
  });
  const selected = await batch(db, selectSql);
  selects.forEach((s, i) => {
    const rows = query(
      reference,
      stored,
      {
        predicate: ["allow", ["u", "a", "r"]],
        constraints: {
          u: { type: s.actor.type, ids: [s.actor.id] },
          a: { type: "String", ids: null },
          r: { type: s.type, ids: null },
        },
      },
      evalOptions,
    );
    const expected = covered(
      rows.map((row) => [row.a ?? null, row.r ?? null]),
      family.actions,
      family.domain[s.type] ?? [],
    );
    const actual = covered(
      selected[i] as (string | null)[][],
      family.actions,
      family.domain[s.type] ?? [],
    );
    expect(actual, `select ${s.actor.id} ${s.type}\n${selectSql[i]}`).toEqual(expected);
  });

  // select mode over id lists: every actor type's ids, the asked actions, every resource
  for (const actorType of [...new Set(family.actors.map((a) => a.type))]) {
    for (const type of family.resourceTypes) {
      const constraints = {
        u: {
          type: actorType,
          ids: family.actors.filter((a) => a.type === actorType).map((a) => a.id),
        },
        a: { type: "String", ids: [...family.actions] },
        r: { type, ids: [...(family.domain[type] ?? [])] },
      };
      const statement = evaluateQueryLocal(
        program,
        {
          query: {
            predicate: ["allow", ["u", "a", "r"]],
            calls: [],
            constraints,
            context_facts: wire(context),
          },
          data_bindings: yaml,
          mode: { mode: "select", query_vars_to_output_column_names: { u: "u", a: "a", r: "r" } },
        },
        options,
      ).sql;
      const rows = await db.query<{ u: unknown; a: string; r: unknown }>(statement);
      const actual = sorted(
        rows.map((row) => JSON.stringify([String(row.u), row.a, String(row.r)])),
      );
      const answers = query(
        reference,
        stored,
        { predicate: ["allow", ["u", "a", "r"]], constraints },
        evalOptions,
      );
      const expected = sorted(answers.map((row) => JSON.stringify([row.u, row.a, row.r])));
      expect(actual, `select lists ${actorType} ${type}\n${statement}`).toEqual(expected);
    }
  }
}

function sorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/** The (action, id) pairs a set of rows covers, wildcards expanded over the domain. */
function covered(
  rows: readonly (readonly (string | null)[])[],
  actionDomain: readonly string[],
  idDomain: readonly string[],
): string[] {
  const out = new Set<string>();
  for (const [action, id] of rows) {
    for (const a of action === null ? actionDomain : [action!]) {
      for (const r of id === null ? idDomain : [id!]) out.add(JSON.stringify([a, r]));
    }
  }
  return [...out].sort();
}
