/**
 * Context facts of a request, checked against the policy: the same refusals for every question
 * that takes them (`/authorize_query` and the other local questions, `/authorize`, `/explain`).
 */
import { checkFact } from "../check/facts.js";
import type { Program } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import type { Problem } from "../source/problems.js";
import { StageError } from "../source/stage-error.js";

/** A request the local endpoints reject (HTTP 400): a P601 problem of src/source/problems.ts. */
export class LocalQueryError extends StageError {
  override readonly name = "LocalQueryError";
  declare readonly code: "P601";
  constructor(problem: Extract<Problem, { code: "P601" }>) {
    super(problem);
  }
}

/** The facts, or a `LocalQueryError` naming the first one the policy refuses. */
export function checkContextFacts(program: Program, facts: readonly GroundFact[]): GroundFact[] {
  for (const fact of facts) {
    const problem = checkFact(program, fact);
    if (problem) {
      throw new LocalQueryError({
        code: "P601",
        kind: "invalid-context-fact",
        reason: problem.message,
      });
    }
    // PostgreSQL text cannot hold NUL: such a fact could never be written into the statement.
    if (fact.args.some((arg) => arg.type.includes("\u0000") || arg.id.includes("\u0000"))) {
      throw new LocalQueryError({
        code: "P601",
        kind: "context-fact-nul",
        predicate: fact.predicate,
      });
    }
  }
  return [...facts];
}
