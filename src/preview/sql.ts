/**
 * The statement of a preview, one per (actor type, permission, resource type). Each policy's
 * `allow` for the entry is a statement the compiler printed (`select c0, c1`: actor and
 * resource, null where a rule holds for every value); this module writes the fixed text around
 * them, like the fixpoint's bookkeeping (src/fixpoint/tables.ts): table names are the store's
 * constants, every value is a parameter, and the inner statements are the printer's output.
 *
 * A change, "allowed under `plus`, not under `minus`", is computed without expanding rules
 * that hold for any actor or resource where both sides have them: the candidates of `plus` are
 * split into four disjoint families (any pair, any actor, any resource, one pair), each is
 * filtered by the families of `minus` with anti-joins, then by the entities of the facts, and
 * the pairs `minus` names are taken away with EXCEPT.
 */
import type { SqlExecutor } from "../store/executor.js";
import { FACT_TABLE } from "../store/schema.js";
import type { EntityPlace } from "./universe.js";

type Engine = SqlExecutor["engine"];

/** A statement and its parameters, in the engine's placeholder style. */
interface PreviewStatement {
  readonly sql: string;
  readonly params: readonly (string | number)[];
}

/** The entities of one type: the places of stored facts that hold it, and context ids. */
interface UniverseSource {
  readonly type: string;
  readonly places: readonly EntityPlace[];
  readonly contextIds: readonly string[];
}

/** One entry: its universes and each policy's statement. */
export interface EntrySource {
  readonly actors: UniverseSource;
  readonly resources: UniverseSource;
  /** Printed with literals, output columns `c0` (actor) and `c1` (resource); null: no rows. */
  readonly active: string | null;
  readonly candidate: string | null;
}

export type Change = "gained" | "lost";

/** What one entry's statement reads: both counts, and the rows of the changes a page needs. */
export interface EntryReading {
  /** Counts stop at this many rows (a count of `cap` means "at least"). */
  readonly cap: number;
  /** Per change: the rows after `after` (null: from the first), `limit` at most. */
  readonly pages: Partial<
    Record<Change, { readonly after: PageAfter | null; readonly limit: number }>
  >;
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

/**
 * Whether `value` is an entity of the universe: probes of the fact table's position indexes
 * (only the changed pairs are probed, where building the universe reads every fact of its
 * places), or the universe's table when a place has no index (positions past 2).
 */
function member(value: string, source: UniverseSource, table: string, params: Parameters) {
  if (source.places.some((place) => place.position > 2)) {
    return `${value} in (select id from ${table})`;
  }
  const tests = source.places.map(
    ({ predicate, arity, position }) =>
      `exists (select 1 from ${FACT_TABLE} where predicate = ${params.text(predicate)} and arity = ${params.integer(arity)} and i${position} = ${value} and t${position} = ${params.text(source.type)})`,
  );
  if (source.contextIds.length > 0) {
    tests.push(`${value} in (${source.contextIds.map((id) => params.text(id)).join(", ")})`);
  }
  return tests.length === 0 ? "1 = 0" : `(${tests.join("\n    or ")})`;
}

/**
 * A side's rows by family, each its own small table: rows that hold for any pair
 * (`<side>_any_pair`, one row at most), for any actor (`<side>_any_actor(r)`), for any resource
 * (`<side>_any_resource(a)`), and single pairs (`<side>_pair(a, r)`). Joins then read the
 * wildcard rows from tables of their own: PostgreSQL rescanned the whole side for each entity
 * when the families were filters of one table.
 */
function familyCtes(side: string): string {
  return ` ${side}_any_pair(one) as materialized (select 1 from ${side} where c0 is null and c1 is null limit 1),
 ${side}_any_actor(r) as materialized (select c1 from ${side} where c0 is null and c1 is not null),
 ${side}_any_resource(a) as materialized (select c0 from ${side} where c0 is not null and c1 is null),
 ${side}_pair(a, r) as (select c0, c1 from ${side} where c0 is not null and c1 is not null)`;
}

/**
 * `value` is not in `table`'s `column`: `not in` on SQLite (an index on the subquery's rows),
 * an anti-join on PostgreSQL (`not in` over many rows is a scan per row).
 */
function absent(engine: Engine, value: string, table: string, column: "a" | "r"): string {
  return engine === "sqlite"
    ? `${value} not in (select ${column} from ${table})`
    : `not exists (select 1 from ${table} as m where m.${column} = ${value})`;
}

/** The CTE `pv_<change>(a, r)`: pairs `plus` (a side's CTE) allows and `minus` does not. */
function changeCte(
  engine: Engine,
  change: Change,
  [plus, minus]: readonly [string, string],
  source: EntrySource,
  params: Parameters,
): string {
  const noPlusPair = `not exists (select 1 from ${plus}_any_pair)`;
  return ` pv_${change}_candidate(a, r) as (
  select ua.id, ur.id from ${plus}_any_pair as w cross join pv_ua as ua cross join pv_ur as ur
  union all
  select ua.id, p.r from ${plus}_any_actor as p cross join pv_ua as ua where ${noPlusPair}
  union all
  select p.a, ur.id from ${plus}_any_resource as p cross join pv_ur as ur
   where ${noPlusPair} and ${absent(engine, "ur.id", `${plus}_any_actor`, "r")}
  union all
  select p.a, p.r from ${plus}_pair as p
   where ${noPlusPair}
    and ${absent(engine, "p.r", `${plus}_any_actor`, "r")}
    and ${absent(engine, "p.a", `${plus}_any_resource`, "a")}
 ),
 pv_${change}(a, r) as (
  select x.a, x.r from (
   select d.a, d.r from pv_${change}_candidate as d
    where not exists (select 1 from ${minus}_any_pair)
     and ${absent(engine, "d.r", `${minus}_any_actor`, "r")}
     and ${absent(engine, "d.a", `${minus}_any_resource`, "a")}
   except
   select a, r from ${minus}_pair
  ) as x
  where ${member("x.a", source.actors, "pv_ua", params)}
   and ${member("x.r", source.resources, "pv_ur", params)}
 )`;
}

/**
 * The entry's statement: rows `(change, a, r, n)`, first each change's count in `n` (with
 * null `a` and `r`), then the page rows each change was asked for, by resource id then actor
 * id (code points). Each policy's statement runs once.
 *
 *   entryStatement("sqlite", source, { cap: 1_000_001, pages: { gained: { after: null, limit: 101 } } })
 */
export function entryStatement(
  engine: Engine,
  source: EntrySource,
  reading: EntryReading,
): PreviewStatement {
  const params = new Parameters(engine);
  const clause = `with
 pv_ua(id) as (${universe(source.actors, params)}),
 pv_ur(id) as (${universe(source.resources, params)}),
 pv_before(c0, c1) as materialized (${source.active ?? EMPTY_PAIRS}),
 pv_after(c0, c1) as materialized (${source.candidate ?? EMPTY_PAIRS}),
${familyCtes("pv_before")},
${familyCtes("pv_after")},
${changeCte(engine, "gained", ["pv_after", "pv_before"], source, params)},
${changeCte(engine, "lost", ["pv_before", "pv_after"], source, params)}
`;
  const ordered = (column: string) => (engine === "sqlite" ? column : `${column} collate "C"`);
  const parts = (["gained", "lost"] as const).map(
    (change) =>
      `select ${params.text(change)} as change, cast(null as text) as a, cast(null as text) as r, (select count(*) from (select 1 as one from pv_${change} limit ${params.integer(reading.cap)}) as capped) as n`,
  );
  for (const change of ["gained", "lost"] as const) {
    const page = reading.pages[change];
    if (!page) continue;
    // Placeholders in the order of the text: SQLite's `?` are positional.
    const label = params.text(change);
    let where = "";
    if (page.after) {
      const resource = params.text(page.after.resource);
      const sameResource = params.text(page.after.resource);
      const actor = params.text(page.after.actor);
      where = ` where ${ordered("r")} > ${resource} or (r = ${sameResource} and ${ordered("a")} > ${actor})`;
    }
    parts.push(
      `select * from (select ${label} as change, a, r, cast(null as bigint) as n from pv_${change}${where} order by ${ordered("r")}, ${ordered("a")} limit ${params.integer(page.limit)}) as page_${change}`,
    );
  }
  return { sql: `${clause}${parts.join("\nunion all\n")}`, params: params.values };
}
