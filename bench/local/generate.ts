/**
 * Generates the local-check bench data on a PostgreSQL server: 100k users, 10k organizations,
 * 200k folders (trees up to 8 deep) and 800k documents (1M resources), about 3M role and
 * relation rows, indexed, analyzed. Deterministic for a seed. Skips the work when the schema's
 * marker table says the same data set is already loaded.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/local/generate.ts
 *   npx tsx bench/local/generate.ts --scale=0.01 --schema=polar_bench_small   # quick
 *   npx tsx bench/local/generate.ts --force                                 # rebuild
 */
import { pathToFileURL } from "node:url";
import type pg from "pg";
import {
  type BenchConfig,
  connect,
  type DataSize,
  dataSize,
  readConfig,
  seededRandom,
} from "./config.js";
import { folderTree } from "./folder-tree.js";
import { createTablesSql, fillTablesSql, indexesSql, TABLES, type TableName } from "./load-sql.js";

/** Bump when the generator changes the data it produces. */
const GENERATOR_VERSION = 1;

interface Marker {
  readonly version: number;
  readonly seed: number;
  readonly scale: number;
  readonly size: DataSize;
  readonly counts: Record<TableName, number>;
}

/** Makes sure the bench schema holds the data set of `config`; returns the table row counts. */
export async function ensureBenchData(config: BenchConfig): Promise<Record<TableName, number>> {
  const client = await connect(config);
  try {
    const marker = await readMarker(client, config.schema);
    if (marker && !config.force && (await markerMatches(client, marker, config))) {
      console.log(`schema \`${config.schema}\` already holds the data set (seed ${config.seed})`);
      return marker.counts;
    }
    await dropOwnSchema(client, config.schema, marker !== undefined);
    return await generate(client, config);
  } finally {
    await client.end();
  }
}

async function generate(
  client: pg.Client,
  config: BenchConfig,
): Promise<Record<TableName, number>> {
  const size = dataSize(config.scale);
  const started = performance.now();
  const step = async (label: string, work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    console.log(`  ${label.padEnd(46)} ${seconds(performance.now() - t0)}`);
  };
  console.log(
    `generating schema \`${config.schema}\` (seed ${config.seed}, scale ${config.scale})`,
  );
  await client.query("SET synchronous_commit = off");
  await client.query("SET maintenance_work_mem = '256MB'");
  await client.query("BEGIN");
  await client.query(`CREATE SCHEMA ${config.schema}`);
  await client.query(createTablesSql());
  await step("folder tree (JavaScript)", () => loadFolderTree(client, config.seed, size));
  const fill = fillTablesSql(size, config.seed);
  for (const table of TABLES) await step(`table ${table}`, () => client.query(fill[table]));
  for (const statement of indexesSql()) {
    const label = statement.replace(/^(ALTER TABLE|CREATE INDEX) /, "").slice(0, 46);
    await step(label, () => client.query(statement));
  }
  await client.query("DROP TABLE folder_tree, org_range");
  const counts = await countRows(client);
  const marker: Marker = {
    version: GENERATOR_VERSION,
    seed: config.seed,
    scale: config.scale,
    size,
    counts,
  };
  await client.query("CREATE TABLE bench_marker (marker jsonb NOT NULL)");
  await client.query("INSERT INTO bench_marker VALUES ($1)", [JSON.stringify(marker)]);
  await client.query("COMMIT");
  await step("VACUUM ANALYZE", async () => {
    for (const table of TABLES) await client.query(`VACUUM (ANALYZE) ${table}`);
  });
  console.log(`loaded in ${seconds(performance.now() - started)}`);
  return counts;
}

/** The folder forest goes in as arrays, plus each organization's contiguous id range. */
async function loadFolderTree(client: pg.Client, seed: number, size: DataSize): Promise<void> {
  const tree = folderTree(seededRandom(seed), size.organizations, size.folders);
  await client.query(
    `CREATE TEMP TABLE folder_tree ON COMMIT DROP AS
     SELECT (ordinality)::integer AS id, parent_id, org_id, depth::smallint AS depth
     FROM unnest($1::integer[], $2::integer[], $3::integer[])
       WITH ORDINALITY AS t(parent_id, org_id, depth)`,
    [Array.from(tree.parent), Array.from(tree.organization), Array.from(tree.depth)],
  );
  await client.query("ALTER TABLE folder_tree ADD PRIMARY KEY (id)");
  await client.query(
    `CREATE TEMP TABLE org_range ON COMMIT DROP AS
     SELECT org_id, min(id) AS first_folder, count(*)::integer AS folder_count
     FROM folder_tree GROUP BY org_id`,
  );
  await client.query("ALTER TABLE org_range ADD PRIMARY KEY (org_id)");
  await client.query("ANALYZE folder_tree");
  await client.query("ANALYZE org_range");
}

async function countRows(client: pg.Client): Promise<Record<TableName, number>> {
  const counts = {} as Record<TableName, number>;
  for (const table of TABLES) {
    const { rows } = await client.query(`SELECT count(*)::integer AS n FROM ${table}`);
    counts[table] = rows[0].n;
  }
  return counts;
}

async function readMarker(client: pg.Client, schema: string): Promise<Marker | undefined> {
  const { rows } = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${schema}.bench_marker`,
  ]);
  if (!rows[0].present) return undefined;
  const marker = await client.query("SELECT marker FROM bench_marker LIMIT 1");
  return marker.rows[0]?.marker as Marker | undefined;
}

async function markerMatches(client: pg.Client, marker: Marker, config: BenchConfig) {
  if (marker.version !== GENERATOR_VERSION) return false;
  if (marker.seed !== config.seed || marker.scale !== config.scale) return false;
  const size = dataSize(config.scale);
  const keys = Object.keys(size) as (keyof DataSize)[];
  if (keys.some((key) => marker.size?.[key] !== size[key])) return false;
  const counts = await countRows(client);
  return TABLES.every((table) => counts[table] === marker.counts[table]);
}

/** Drops the schema only when it is ours (has the marker) or holds no tables. */
async function dropOwnSchema(client: pg.Client, schema: string, hasMarker: boolean) {
  const { rows } = await client.query(
    `SELECT count(*)::integer AS tables FROM pg_tables WHERE schemaname = $1`,
    [schema],
  );
  if (!hasMarker && rows[0].tables > 0)
    throw new Error(`schema \`${schema}\` holds tables but no bench marker; refusing to drop it`);
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Row counts grouped as the issue counts them. */
export function describeCounts(counts: Record<TableName, number>): string {
  const resources = counts.folders + counts.documents;
  // every folder has a parent or (top folders) an organization; documents a folder and an org
  const relations = counts.folders + 2 * counts.documents;
  const roles = counts.org_memberships + counts.folder_roles;
  return [
    `users ${counts.users}, organizations ${counts.organizations}`,
    `resources ${resources} (folders ${counts.folders}, documents ${counts.documents})`,
    `role rows ${roles} (org memberships ${counts.org_memberships}, folder roles ${counts.folder_roles})`,
    `relation rows ${relations} (folder parent/organization ${counts.folders}, document folder and organization ${2 * counts.documents})`,
    `role + relation rows ${roles + relations}`,
  ].join("\n");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = readConfig(process.argv.slice(2));
  const counts = await ensureBenchData(config);
  console.log(describeCounts(counts));
}
