/**
 * The statements of a preview, one (entry, change) at a time. Each side's `allow` for the entry
 * is a statement the compiler printed (`select c0, c1`: actor and resource, null where the rule
 * holds for every value); this module writes the fixed text around them, like the fixpoint's
 * bookkeeping (src/fixpoint/tables.ts): table names are the store's constants, every value is
 * a parameter, and the inner statements are the printer's output.
 *
 * The change "allowed under `plus`, not under `minus`" is computed without expanding rules
 * that hold for any actor or resource where both sides have them: the candidates of `plus` are
 * split into four disjoint families (any pair, any actor, any resource, one pair) and each is
 * filtered by the families of `minus` with anti-joins, then by the universe.
 */
import type { SqlExecutor } from "../store/executor.js";
import { FACT_TABLE } from "../store/schema.js";
import type { EntityPlace } from "./universe.js";

type Engine = SqlExecutor["engine"];

/** A statement and its parameters, in the engine's placeholder style. */
export interface PreviewStatement {
  readonly sql: string;
  readonly params: readonly (string | number)[];
}

/** The entities of one type: the places of stored facts that hold it, and context ids. */
export interface UniverseSource {
  readonly type: string;
  readonly places: readonly EntityPlace[];
  readonly contextIds: readonly string[];
}

/** One (entry, change): rows allowed by the `plus` statement and not by the `minus` one. */
export interface ChangeSource {
  readonly actors: UniverseSource;
  readonly resources: UniverseSource;
  /** Printed with literals, output columns `c0` (actor) and `c1` (resource); null: no rows. */
  readonly plus: string | null;
  readonly minus: string | null;
}

/** Where a page starts: after this (resource id, actor id). */
export interface PageAfter {
  readonly resource: string;
  readonly actor: string;
}

const EMPTY_PAIRS = "select cast(null as text) as c0, cast(null as text) as c1 where 1 = 0";
const EMPTY_IDS = "select cast(null as text) as id where 1 = 0";

/** Collects parameters and writes their placeholders. */
class Parameters {
  readonly values: (string | number)[] = [];
  constructor(private readonly engine: Engine) {}

  text(value: string): string {
    this.values.push(value);
    return this.engine === "sqlite" ? "?" : `cast($${this.values.length} as text)`;
  }

  integer(value: number): string {
    this.values.push(value);
    return this.engine === "sqlite" ? "?" : `cast($${this.values.length} as bigint)`;
  }
}

function universe(source: UniverseSource, params: Parameters): string {
  const parts = source.places.map(
    ({ predicate, arity, position }) =>
      `select distinct i${position} as id from ${FACT_TABLE} where predicate = ${params.text(predicate)} and arity = ${params.integer(arity)} and t${position} = ${params.text(source.type)}`,
  );
  for (const id of source.contextIds) parts.push(`select ${params.text(id)} as id`);
  return parts.length === 0 ? EMPTY_IDS : parts.join("\n   union ");
}

/** The rows of a side that hold for every actor (`c1`: the resource) or every resource (`c0`). */
type Family = "any-actor" | "any-resource";

function familyFilter(family: Family, alias: string): string {
  return family === "any-actor"
    ? `${alias}c0 is null and ${alias}c1 is not null`
    : `${alias}c0 is not null and ${alias}c1 is null`;
}

/**
 * `value` is in none of `side`'s rows of `family`: `not in` on SQLite (an index on the
 * subquery's rows), an anti-join on PostgreSQL (`not in` over many rows is a scan per row).
 */
function absent(engine: Engine, value: string, side: string, family: Family): string {
  const column = family === "any-actor" ? "c1" : "c0";
  return engine === "sqlite"
    ? `${value} not in (select ${column} from ${side} where ${familyFilter(family, "")})`
    : `not exists (select 1 from ${side} as m where ${familyFilter(family, "m.")} and m.${column} = ${value})`;
}

const ANY_PAIR = "c0 is null and c1 is null";

/** The WITH clause whose `pv_change(a, r)` holds the change's rows. */
function changeClause(engine: Engine, source: ChangeSource, params: Parameters): string {
  const actors = universe(source.actors, params);
  const resources = universe(source.resources, params);
  const noPlusPair = `not exists (select 1 from pv_plus where ${ANY_PAIR})`;
  return `with
 pv_ua(id) as (${actors}),
 pv_ur(id) as (${resources}),
 pv_plus(c0, c1) as materialized (${source.plus ?? EMPTY_PAIRS}),
 pv_minus(c0, c1) as materialized (${source.minus ?? EMPTY_PAIRS}),
 pv_candidate(a, r) as (
  select ua.id, ur.id
   from (select 1 as one from pv_plus where ${ANY_PAIR} limit 1) as w
   cross join pv_ua as ua cross join pv_ur as ur
  union all
  select ua.id, p.c1 from pv_plus as p cross join pv_ua as ua
   where p.c0 is null and p.c1 is not null and ${noPlusPair}
  union all
  select p.c0, ur.id from pv_plus as p cross join pv_ur as ur
   where p.c0 is not null and p.c1 is null and ${noPlusPair}
    and ${absent(engine, "ur.id", "pv_plus", "any-actor")}
  union all
  select p.c0, p.c1 from pv_plus as p
   where p.c0 is not null and p.c1 is not null and ${noPlusPair}
    and ${absent(engine, "p.c1", "pv_plus", "any-actor")}
    and ${absent(engine, "p.c0", "pv_plus", "any-resource")}
 ),
 pv_change(a, r) as (
  select d.a, d.r from pv_candidate as d
   where d.a in (select id from pv_ua) and d.r in (select id from pv_ur)
    and not exists (select 1 from pv_minus where ${ANY_PAIR})
    and ${absent(engine, "d.r", "pv_minus", "any-actor")}
    and ${absent(engine, "d.a", "pv_minus", "any-resource")}
  except
  select c0, c1 from pv_minus where c0 is not null and c1 is not null
 )
`;
}

/**
 * How many rows the change has, counting at most `cap` (a count of `cap` means "at least").
 *
 *   countStatement("sqlite", source, 1_000_001) // { sql: "with … select count(*) as n …", params }
 */
export function countStatement(
  engine: Engine,
  source: ChangeSource,
  cap: number,
): PreviewStatement {
  const params = new Parameters(engine);
  const clause = changeClause(engine, source, params);
  const sql = `${clause}select count(*) as n from (select 1 as one from pv_change limit ${params.integer(cap)}) as capped`;
  return { sql, params: params.values };
}

/** The change's rows after `after`, by resource id then actor id (code points), `limit` at most. */
export function pageStatement(
  engine: Engine,
  source: ChangeSource,
  after: PageAfter | null,
  limit: number,
): PreviewStatement {
  const params = new Parameters(engine);
  const clause = changeClause(engine, source, params);
  const ordered = (column: string) => (engine === "sqlite" ? column : `${column} collate "C"`);
  let where = "";
  if (after) {
    const resource = params.text(after.resource);
    const sameResource = params.text(after.resource);
    const actor = params.text(after.actor);
    where = ` where ${ordered("r")} > ${resource} or (r = ${sameResource} and ${ordered("a")} > ${actor})`;
  }
  const sql = `${clause}select a, r from pv_change${where} order by ${ordered("r")}, ${ordered("a")} limit ${params.integer(limit)}`;
  return { sql, params: params.values };
}
