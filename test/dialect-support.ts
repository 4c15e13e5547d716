/**
 * The local-SQL differential harness (test/local-support.ts) for the MySQL and SQLite dialects:
 * a family's tables in the engine's types, facts routed to them, to the central store or to
 * context facts, and every emitted statement (authorize, actions, list, select) executed on
 * the engine and compared with the reference evaluator.
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
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { actions, authorize, list, query } from "../src/evaluate/index.js";
import { UnsupportedConstructError } from "../src/lower/step-union.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { checked, type Family, NOW, type RoutedFact } from "./local-support.js";
import type { DialectDatabase, DialectEngine } from "./support/dialect-engines.js";

export interface DialectPrepared {
  readonly family: Family;
  readonly program: Program;
  readonly yaml: string;
  readonly bindings: DataBindings;
  readonly tables: readonly string[];
}

const tableName = (family: Family, index: number) => `${family.name}_b${index}`;
const domainTable = (family: Family, type: string) => `${family.name}_dom_${type.toLowerCase()}`;

function literal(engine: DialectEngine, family: Family, value: Value): string {
  return engine.literal(engine.columnType(value.type, family.sqlTypes[value.type]), value.id);
}

/** Creates the family's tables on the engine. */
export async function prepareOn(
  engine: DialectEngine,
  db: DialectDatabase,
  family: Family,
): Promise<DialectPrepared> {
  const program = checked(family.policy);
  const lines = ["facts:"];
  family.bindings.forEach((signature, index) => {
    const parsed = parseDataBindings(`facts:\n  "${signature}":\n    query: SELECT 1\n`);
    const columns = parsed.bindings[0]!.slots.flatMap((slot, i) =>
      slot.kind === "column" ? [`c${i}`] : [],
    );
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
  const typeOf = (type: string) => engine.columnType(type, family.sqlTypes[type]);
  bindings.bindings.forEach((binding, index) => {
    const columns = binding.slots.flatMap((slot, i) =>
      slot.kind === "column" ? [`c${i} ${typeOf(slot.type)}`] : [],
    );
    const name = tableName(family, index);
    tables.push(name);
    ddl.push(`DROP TABLE IF EXISTS ${name};`, `CREATE TABLE ${name} (${columns.join(", ")});`);
  });
  for (const [type, ids] of Object.entries(family.domain)) {
    const name = domainTable(family, type);
    ddl.push(`DROP TABLE IF EXISTS ${name};`, `CREATE TABLE ${name} (id ${typeOf(type)});`);
    if (ids.length > 0) {
      const rows = ids.map((id) => `(${literal(engine, family, { type, id })})`).join(", ");
      ddl.push(`INSERT INTO ${name} VALUES ${rows};`);
    }
  }
  await db.exec(ddl.join("\n"));
  return { family, program, yaml, bindings, tables };
}

function matches(binding: DataBindings["bindings"][number], fact: GroundFact): boolean {
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

export interface DialectLoaded {
  readonly options: LocalOptions;
  readonly context: GroundFact[];
  readonly stored: GroundFact[];
}

/** Empties the tables and stores the facts where they are routed. */
export async function loadOn(
  engine: DialectEngine,
  db: DialectDatabase,
  prepared: DialectPrepared,
  facts: readonly RoutedFact[],
): Promise<DialectLoaded> {
  const statements = prepared.tables.map((table) => engine.truncate(table));
  const central: GroundFact[] = [];
  const context: GroundFact[] = [];
  for (const { fact, to } of facts) {
    const targets = prepared.bindings.bindings.flatMap((b, i) => (matches(b, fact) ? [i] : []));
    if (to === "local" && targets.length > 0) {
      for (const index of targets) {
        const slots = prepared.bindings.bindings[index]!.slots;
        const values = slots.flatMap((slot, i) =>
          slot.kind === "column" ? [literal(engine, prepared.family, fact.args[i]!)] : [],
        );
        statements.push(`INSERT INTO ${prepared.tables[index]} VALUES (${values.join(", ")});`);
      }
    } else if (to === "context") {
      context.push(fact);
    } else {
      central.push(fact);
    }
  }
  await db.exec(statements.join("\n"));
  return {
    options: {
      dialect: engine.dialect,
      central: inMemoryCentralFacts(central),
      now: () => NOW,
    },
    context,
    stored: facts.filter((f) => f.to !== "context").map((f) => f.fact),
  };
}

const wire = (facts: readonly GroundFact[]) =>
  facts.map((f) => ({ predicate: f.predicate, args: f.args }));

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function sorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

async function run(db: DialectDatabase, sql: string, what: string) {
  try {
    return await db.query<Record<string, unknown>>(sql);
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}\n${sql}`);
  }
}

/** Compares authorize, actions, list and select answers on the engine with the evaluator. */
/** Questions an engine's dialect refused (UnsupportedConstructError), by test file run. */
export const refused: string[] = [];

/** The statement, or null when the dialect refuses the question with a clear error. */
function statement(
  engine: DialectEngine,
  make: () => { sql: string },
  what: string,
): string | null {
  try {
    return make().sql;
  } catch (error) {
    if (error instanceof UnsupportedConstructError && error.message.includes(engine.dialect)) {
      refused.push(`${engine.name} ${what}`);
      return null;
    }
    throw error;
  }
}

export async function compareOn(
  engine: DialectEngine,
  db: DialectDatabase,
  prepared: DialectPrepared,
  loaded: DialectLoaded,
): Promise<void> {
  const { family, program, yaml } = prepared;
  const { options, context, stored } = loaded;
  const evalOptions = { contextFacts: context, now: () => NOW };
  const resources = family.resourceTypes.flatMap((type) =>
    (family.domain[type] ?? []).map((id) => ({ type, id })),
  );

  for (const actor of family.actors) {
    for (const resource of resources) {
      const base = {
        actor_type: actor.type,
        actor_id: actor.id,
        resource_type: resource.type,
        resource_id: resource.id,
        context_facts: wire(context),
      };
      for (const action of family.actions) {
        const what = `authorize ${actor.id} ${action} ${resource.type}:${resource.id}`;
        const sql = statement(
          engine,
          () =>
            authorizeQuery(program, { query: { ...base, action }, data_bindings: yaml }, options),
          what,
        );
        if (sql === null) continue;
        const [row] = await run(db, sql, what);
        const expected = authorize(program, stored, actor, action, resource, evalOptions);
        expect(Boolean(Number(row!.allowed)), `${what}\n${sql}`).toBe(expected);
      }
      const what = `actions ${actor.id} ${resource.type}:${resource.id}`;
      const sql = statement(
        engine,
        () => actionsQuery(program, { query: base, data_bindings: yaml }, options),
        what,
      );
      if (sql === null) continue;
      const rows = await run(db, sql, what);
      const found = rows.map((r) => text(r.actions)!);
      expect(found.length, `${what}: duplicate rows\n${sql}`).toBe(new Set(found).size);
      expect(sorted(found), `${what}\n${sql}`).toEqual(
        sorted(actions(program, stored, actor, resource, evalOptions)),
      );
    }
    for (const action of family.actions) {
      for (const type of family.resourceTypes) {
        const table = domainTable(family, type);
        const what = `list ${actor.id} ${action} ${type}`;
        const fragment = statement(
          engine,
          () =>
            listQuery(
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
            ),
          what,
        );
        if (fragment === null) continue;
        const sql = `SELECT ${table}.id AS id FROM ${table} WHERE ${fragment}`;
        const rows = await run(db, sql, what);
        const answer = list(program, stored, actor, action, type, evalOptions);
        const expected = answer.includes("*") ? [...(family.domain[type] ?? [])] : answer;
        expect(sorted(rows.map((r) => text(r.id)!)), `${what}\n${sql}`).toEqual(sorted(expected));
      }
    }
  }

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
      const what = `select ${actorType} ${type}`;
      const sql = statement(
        engine,
        () =>
          evaluateQueryLocal(
            program,
            {
              query: {
                predicate: ["allow", ["u", "a", "r"]],
                calls: [],
                constraints,
                context_facts: wire(context),
              },
              data_bindings: yaml,
              mode: {
                mode: "select",
                query_vars_to_output_column_names: { u: "u", a: "a", r: "Resource Id" },
              },
            },
            options,
          ),
        what,
      );
      if (sql === null) continue;
      const rows = await run(db, sql, what);
      const found = rows.map((r) => JSON.stringify([text(r.u), text(r.a), text(r["Resource Id"])]));
      expect(found.length, `${what}: duplicate rows\n${sql}`).toBe(new Set(found).size);
      const answers = query(
        program,
        stored,
        { predicate: ["allow", ["u", "a", "r"]], constraints },
        evalOptions,
      );
      const expected = answers.map((row) => JSON.stringify([row.u, row.a, row.r]));
      expect(sorted(found), `${what}\n${sql}`).toEqual(sorted(expected));
    }
  }
}
