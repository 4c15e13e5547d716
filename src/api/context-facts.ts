/**
 * Context facts of a request, checked against the policy: the same refusals for every question
 * that takes them (`/authorize_query` and the other local questions, `/authorize`, `/explain`).
 */
import { checkFact } from "../check/facts.js";
import type { Program } from "../check/program.js";
import type { GroundFact } from "../core/value.js";

/** A request the local endpoints reject (HTTP 400); the message follows the house style. */
export class LocalQueryError extends Error {
  override readonly name = "LocalQueryError";
  readonly code = "P601";
}

/** The facts, or a `LocalQueryError` naming the first one the policy refuses. */
export function checkContextFacts(program: Program, facts: readonly GroundFact[]): GroundFact[] {
  for (const fact of facts) {
    const problem = checkFact(program, fact);
    if (problem) throw new LocalQueryError(`context fact: ${problem.message}`);
    // PostgreSQL text cannot hold NUL: such a fact could never be written into the statement.
    if (fact.args.some((arg) => arg.type.includes("\u0000") || arg.id.includes("\u0000"))) {
      throw new LocalQueryError(
        `context fact: \`${fact.predicate}\` has an argument with a NUL character, which PostgreSQL text cannot hold`,
      );
    }
  }
  return [...facts];
}
