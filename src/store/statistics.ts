/** Planner statistics of the fact table, kept fresh by the store's writes. */
import { sql } from "kysely";
import { run } from "./compile.js";
import type { SqlExecutor } from "./executor.js";
import { FACT_TABLE } from "./schema.js";

const fact = sql.table(FACT_TABLE);

/** Rows changed since the last ANALYZE that make statistics stale: 1000 plus half the table. */
const ANALYZE_MIN_CHANGES = 1000;
const ANALYZE_FRACTION = 0.5;

/**
 * Keeps the fact table's planner statistics fresh. PGlite runs no autovacuum, so without this
 * the table is never analyzed and PostgreSQL plans questions with default estimates, picking the
 * index of a constant argument (`i1 = 'folder'`) over the bound id: 100× slower questions on
 * 100k facts. Runs after the write committed; a failure only leaves statistics stale.
 */
export function planStatistics(db: SqlExecutor) {
  let changedSince = 0;
  let rowsAtAnalyze: number | null = null;
  async function rowEstimate(): Promise<number> {
    if (db.engine === "sqlite") {
      const [row] = await run(db, sql<{ n: number }>`SELECT count(*) AS n FROM ${fact}`);
      return Number(row?.n ?? 0);
    }
    const [row] = await run(
      db,
      sql<{ n: number }>`SELECT greatest(reltuples, 0)::float8 AS n
        FROM pg_class WHERE oid = to_regclass(${FACT_TABLE})`,
    );
    return Number(row?.n ?? 0);
  }
  async function changed(rows: number): Promise<void> {
    changedSince += rows;
    if (changedSince < ANALYZE_MIN_CHANGES) return;
    try {
      rowsAtAnalyze ??= await rowEstimate();
      if (changedSince < ANALYZE_MIN_CHANGES + ANALYZE_FRACTION * rowsAtAnalyze) return;
      await run(db, sql`ANALYZE ${fact}`);
      rowsAtAnalyze = await rowEstimate();
      changedSince = 0;
    } catch {
      // Statistics are an optimization; the write itself has committed.
    }
  }
  return {
    changed,
    /** Every row is gone: as many changes as the table had. */
    cleared: () => changed(rowsAtAnalyze ?? 0),
  };
}
