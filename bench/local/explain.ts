/**
 * EXPLAIN (ANALYZE, BUFFERS) of a statement, with the facts the bench asserts: which large
 * tables are read by a sequential scan, how many buffers were touched, planning and execution
 * time as PostgreSQL measures them.
 *
 *   const plan = await explain(client, sql, await largeTables(client));
 *   plan.seqScans // ["documents"] would be a FAIL for an authorize
 */
import type pg from "pg";

export interface PlanSummary {
  readonly text: string;
  /** Large tables read by a `Seq Scan` node anywhere in the plan. */
  readonly seqScans: readonly string[];
  readonly sharedBuffers: number;
  /** Rows produced or filtered away by scan nodes (all loops): the work the plan did. */
  readonly rowsScanned: number;
  readonly planningMs: number;
  readonly executionMs: number;
  /** Time spent compiling with LLVM, 0 when the plan's cost stayed below `jit_above_cost`. */
  readonly jitMs: number;
  /** The planner's total cost estimate. */
  readonly cost: number;
}

interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Actual Rows"?: number;
  readonly "Actual Loops"?: number;
  readonly "Rows Removed by Filter"?: number;
  readonly "Rows Removed by Index Recheck"?: number;
  readonly Plans?: readonly PlanNode[];
}

/** Tables of the bench schema with more than `minRows` rows (by the planner's statistics). */
export async function largeTables(client: pg.Client, minRows = 10_000): Promise<Set<string>> {
  const { rows } = await client.query(
    `SELECT c.relname FROM pg_class AS c
     WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace AND c.reltuples > $1`,
    [minRows],
  );
  return new Set(rows.map((row) => row.relname as string));
}

export async function explain(
  client: pg.Client,
  sql: string,
  large: ReadonlySet<string>,
): Promise<PlanSummary> {
  const json = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`);
  const root = json.rows[0]["QUERY PLAN"][0];
  const text = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
  const seqScans: string[] = [];
  let rowsScanned = 0;
  const visit = (node: PlanNode) => {
    const relation = node["Relation Name"];
    if (node["Node Type"] === "Seq Scan" && relation && large.has(relation))
      seqScans.push(relation);
    if (relation) {
      const removed =
        (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
      rowsScanned += ((node["Actual Rows"] ?? 0) + removed) * (node["Actual Loops"] ?? 1);
    }
    node.Plans?.forEach(visit);
  };
  visit(root.Plan);
  return {
    text: text.rows.map((row) => row["QUERY PLAN"] as string).join("\n"),
    seqScans,
    sharedBuffers: (root.Plan["Shared Hit Blocks"] ?? 0) + (root.Plan["Shared Read Blocks"] ?? 0),
    rowsScanned: Math.round(rowsScanned),
    planningMs: root["Planning Time"],
    executionMs: root["Execution Time"],
    jitMs: root.JIT?.Timing?.Total ?? 0,
    cost: root.Plan["Total Cost"],
  };
}
