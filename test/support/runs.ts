/**
 * How hard property tests try. `npm test` uses the quick counts; CI sets POLAR_SQL_LONG=1
 * (`.ci/run`) for the long runs.
 *
 *   fc.assert(property, { numRuns: propertyRuns(20, 200) });
 */

/** True when the long runs are asked for (POLAR_SQL_LONG=1). */
export const LONG = process.env.POLAR_SQL_LONG === "1";

/**
 * The run count: `quick` by default, `long` (default ten times `quick`) under POLAR_SQL_LONG=1.
 *
 * @example
 * propertyRuns(30); // 30, or 300 under POLAR_SQL_LONG=1
 */
export function propertyRuns(quick: number, long = quick * 10): number {
  return LONG ? long : quick;
}
