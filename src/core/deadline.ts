/**
 * A request's deadline as it travels to the store: an absolute time (`Date.now()` milliseconds)
 * by which a statement must have answered. A statement still running then is interrupted
 * where the engine allows it (PostgreSQL cancels it, a SQLite reader thread is ended) and the
 * caller gets `DeadlineExceeded`, which the service answers as the `requestMs` limit.
 */

/** A statement did not answer by the request's deadline. */
export class DeadlineExceeded extends Error {
  constructor(readonly waitedMs: number) {
    super(`the statement did not answer within ${waitedMs} ms`);
    this.name = "DeadlineExceeded";
  }
}

/** Milliseconds left until `deadline` (at least 0); Infinity without one. */
export function msUntil(deadline: number | undefined): number {
  return deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadline - Date.now());
}
