/**
 * Settings shared by the local-check bench scripts: where the database is, which schema, how
 * much data, and a seeded PRNG so that every run draws the same data and questions.
 *
 *   const config = readConfig(process.argv.slice(2)); // --schema=polar_bench --scale=0.01
 *   const client = await connect(config);              // search_path set to the bench schema
 */
import pg from "pg";

export interface BenchConfig {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly seed: number;
  /** Multiplies every row count; 1 is the full data set of issue 4. */
  readonly scale: number;
  /** Regenerate even when the marker says the data is there. */
  readonly force: boolean;
  /** Repetitions per question for execution timings. */
  readonly repetitions: number;
  /** Iterations for compile timings. */
  readonly compileIterations: number;
  /** `off` disables PostgreSQL's JIT on the bench connection; `default` keeps the server's. */
  readonly jit: "default" | "off";
  /** Whether the bindings keep their `keys` section (`--keys=no` drops it). */
  readonly keys: boolean;
  /**
   * Whether the bindings and the list's column name the bench schema's tables
   * (`polar_bench.documents.id`); `--qualified=no` keeps the bare names of bindings.yaml.
   */
  readonly qualified: boolean;
}

/** Row counts of the generated data set at a given scale. */
export interface DataSize {
  readonly users: number;
  readonly organizations: number;
  readonly folders: number;
  readonly documents: number;
  /** Organizations each user belongs to. */
  readonly membershipsPerUser: number;
  /** Folder roles each user holds (drawn inside the user's organizations). */
  readonly folderRolesPerUser: number;
}

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Parses `--name=value` flags; environment variables give the defaults. */
export function readConfig(argv: readonly string[]): BenchConfig {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument \`${arg}\``);
    flags.set(match[1]!, match[2] ?? "true");
  }
  const known = [
    "schema",
    "seed",
    "scale",
    "force",
    "repetitions",
    "iterations",
    "jit",
    "keys",
    "qualified",
  ];
  for (const name of flags.keys())
    if (!known.includes(name)) throw new Error(`unknown flag \`--${name}\``);
  const schema = flags.get("schema") ?? process.env.BENCH_SCHEMA ?? "polar_bench";
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name \`${schema}\``);
  return {
    databaseUrl: process.env.DATABASE_URL ?? DEFAULT_URL,
    schema,
    seed: positiveNumber(flags.get("seed") ?? "42", "seed"),
    scale: positiveNumber(flags.get("scale") ?? process.env.BENCH_SCALE ?? "1", "scale"),
    force: flags.get("force") === "true",
    repetitions: positiveNumber(flags.get("repetitions") ?? "200", "repetitions"),
    compileIterations: positiveNumber(flags.get("iterations") ?? "20000", "iterations"),
    jit: jitFlag(flags.get("jit") ?? "default"),
    keys: yesNo(flags.get("keys") ?? "yes", "keys"),
    qualified: yesNo(flags.get("qualified") ?? "yes", "qualified"),
  };
}

function jitFlag(text: string): "default" | "off" {
  if (text !== "default" && text !== "off") throw new Error("`--jit` must be `default` or `off`");
  return text;
}

function yesNo(text: string, name: string): boolean {
  if (text !== "yes" && text !== "no") throw new Error(`\`--${name}\` must be \`yes\` or \`no\``);
  return text === "yes";
}

function positiveNumber(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`\`--${name}\` must be positive`);
  return value;
}

/**
 * Full size: 100k users, 10k organizations, 200k folders + 800k documents = 1M resources;
 * 500k memberships + ~790k folder roles + 1.8M relation rows = ~3.1M role and relation rows.
 */
export function dataSize(scale: number): DataSize {
  const scaled = (n: number, min: number) => Math.max(min, Math.round(n * scale));
  return {
    users: scaled(100_000, 10),
    organizations: scaled(10_000, 5),
    folders: scaled(200_000, 50),
    documents: scaled(800_000, 100),
    membershipsPerUser: 5,
    folderRolesPerUser: 8,
  };
}

/** A client on the bench database with `search_path` set to the bench schema. */
export async function connect(config: BenchConfig): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  await client.query(`SET search_path TO ${config.schema}, public`);
  return client;
}

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
