/**
 * The few things the fact store needs from a PostgreSQL connection, implemented for embedded
 * PGlite (in memory or a data directory) and for a PostgreSQL server through a `pg` pool.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

export interface SqlExecutor {
  /** One statement with `$n` parameters. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `work` in one transaction: all of it commits, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PgliteOptions {
  /** A directory for persistent data; omitted means in memory. */
  readonly dataDir?: string;
}

/** Embedded PostgreSQL (WASM). Statements are serialized by PGlite itself. */
export async function openPglite(options: PgliteOptions = {}): Promise<SqlExecutor> {
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const wrap = (runner: Pick<PGlite, "query">): SqlExecutor => ({
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await runner.query<Row>(sql, params ? [...params] : undefined)).rows;
    },
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    close: () => db.close(),
  });
  return wrap(db);
}

export interface PostgresOptions {
  readonly connectionString: string;
  /** Pool size; defaults to 10. */
  readonly max?: number;
}

/** A PostgreSQL server through a connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<SqlExecutor> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10 });
  // The compiled questions are short, but chained recursive CTEs get huge row estimates, and
  // JIT then spends ~0.7 s compiling a list that runs in 70 ms. Queued before any other query.
  pool.on("connect", (client) => {
    client.query("SET jit = off").catch(() => {});
  });
  // Fail fast on a wrong URL instead of at the first question.
  const probe = await pool.connect();
  probe.release();
  const onClient = (client: pg.PoolClient): SqlExecutor => ({
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await client.query(sql, params ? [...params] : undefined)).rows as Row[];
    },
    transaction: (work) => work(onClient(client)),
    close: async () => {},
  });
  return {
    async query<Row>(sql: string, params?: readonly unknown[]) {
      return (await pool.query(sql, params ? [...params] : undefined)).rows as Row[];
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(onClient(client));
        await client.query("COMMIT");
        return result;
      } catch (cause) {
        await client.query("ROLLBACK").catch(() => {});
        throw cause;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
