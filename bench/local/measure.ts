/**
 * Timing helpers: wall-clock round trips in microseconds, percentiles, and interleaved runs of
 * two statements so that both see the same cache and machine state.
 *
 *   const [a, b] = await interleave(client, sqlA, sqlB, 200);
 *   percentile(a, 0.5) / percentile(b, 0.5)
 */
import type pg from "pg";

/** The q-quantile (0..1) of `values` (nearest rank); `values` need not be sorted. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Microseconds since an earlier `process.hrtime.bigint()`. */
export function microsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1000;
}

/** Round-trip time of one statement (simple protocol: parse, plan and execute every time). */
export async function timeQuery(client: pg.Client, sql: string): Promise<number> {
  const start = process.hrtime.bigint();
  await client.query(sql);
  return microsSince(start);
}

/**
 * Runs `first` and `second` `repetitions` times each, alternating which goes first, after
 * `warmUp` runs of each; returns both lists of round-trip times in microseconds.
 */
export async function interleave(
  client: pg.Client,
  first: string,
  second: string,
  repetitions: number,
  warmUp = 5,
): Promise<[number[], number[]]> {
  for (let i = 0; i < warmUp; i++) {
    await client.query(first);
    await client.query(second);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    if (i % 2 === 0) {
      a.push(await timeQuery(client, first));
      b.push(await timeQuery(client, second));
    } else {
      b.push(await timeQuery(client, second));
      a.push(await timeQuery(client, first));
    }
  }
  return [a, b];
}

/**
 * Repetitions that fit `budgetMs` for statements taking `oneRunUs` together per repetition:
 * slow statements get fewer (at least `minimum`), fast ones `wanted`.
 */
export function repetitionsWithin(wanted: number, oneRunUs: number, budgetMs: number, minimum = 3) {
  return Math.max(minimum, Math.min(wanted, Math.floor((budgetMs * 1000) / oneRunUs)));
}
