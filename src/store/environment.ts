/**
 * Where an environment's store lives (docs/scaling.md, "Environments"). The environment
 * `default` lives where a store always has: the schema of the URL's `search_path` (normally
 * `public`), the data directory itself, or memory. Any other environment `<name>` lives in the
 * schema `polar_env_<name>` of the same PostgreSQL database, or in `<dataDir>/environments/<name>`;
 * in memory every store is a database of its own already. The store's statements stay
 * unqualified: the connection's search path alone says whose facts they read.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { compile } from "./compile.js";

/** The environment of keys and stores that name none. */
export const DEFAULT_ENVIRONMENT = "default";

const ENVIRONMENT_NAME = /^[a-z][a-z0-9_]{0,39}$/;

/**
 * Throws unless `name` is a valid environment name: a lowercase letter, then up to 39
 * lowercase letters, digits or underscores (it becomes part of a schema and a directory name).
 *
 *   checkEnvironmentName("staging"); // ok
 *   checkEnvironmentName("Prod-1"); // throws
 */
export function checkEnvironmentName(name: string): void {
  const problem = environmentNameProblem(name);
  if (problem) throw new Error(problem);
}

/** Why `name` is not a valid environment name, or null when it is. */
export function environmentNameProblem(name: string): string | null {
  if (ENVIRONMENT_NAME.test(name)) return null;
  return `invalid environment name ${JSON.stringify(name)}: expected a lowercase letter, then up to 39 lowercase letters, digits or underscores`;
}

/** The PostgreSQL schema of a non-default environment. */
export function environmentSchema(name: string): string {
  return `polar_env_${name}`;
}

/** Where the store of `environment` lives, given where the `default` one does. */
interface EnvironmentPlace {
  readonly databaseUrl?: string;
  readonly dataDir?: string;
  /** The primary's standbys (src/store/replicas.ts): the environment's schema there too. */
  readonly replicas?: { readonly urls: readonly string[] };
}

/**
 * The database URL or data directory of `environment`'s store; on a PostgreSQL server its
 * schema is created when missing.
 *
 *   await placeEnvironment({ dataDir: "data" }, "staging"); // { dataDir: "data/environments/staging" }
 */
export async function placeEnvironment<Place extends EnvironmentPlace>(
  place: Place,
  environment: string,
): Promise<Place> {
  checkEnvironmentName(environment);
  if (environment === DEFAULT_ENVIRONMENT) return place;
  if (place.databaseUrl) {
    const schema = environmentSchema(environment);
    await createSchema(place.databaseUrl, schema);
    // Created on the primary, the schema reaches its standbys by replication.
    const replicas = place.replicas && {
      ...place.replicas,
      urls: place.replicas.urls.map((url) => withSearchPath(url, schema)),
    };
    return {
      ...place,
      databaseUrl: withSearchPath(place.databaseUrl, schema),
      ...(replicas && { replicas }),
    };
  }
  if (place.dataDir) {
    const dataDir = join(place.dataDir, "environments", environment);
    mkdirSync(dataDir, { recursive: true });
    return { ...place, dataDir };
  }
  return place;
}

/** The URL with `schema` as its sessions' search path (a later `-c` overrides an earlier one). */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get("options") ?? "";
  parsed.searchParams.set("options", `${options} -c search_path=${schema}`.trim());
  return parsed.toString();
}

/** PostgreSQL's SQLSTATEs when two instances create the same schema at once. */
const RACED = new Set(["23505", "42P06"]);

async function createSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The name was checked (lowercase letters, digits and underscores) and is quoted too.
    const statement = compile("postgres", sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`);
    await client.query(statement.sql, [...statement.parameters]);
  } catch (cause) {
    if (!RACED.has((cause as { code?: string }).code ?? "")) throw cause;
  } finally {
    await client.end();
  }
}
