/**
 * Where an evaluation starts: a session whose tables (tables.ts) run clauses with the solver
 * (solve.ts). The two modules meet only here, so neither imports the other at run time.
 */
import type { Program } from "../check/program.js";
import type { FactIndex } from "./facts.js";
import { runClauses } from "./solve.js";
import { openSession, type Session, type SessionOptions } from "./tables.js";

/** A fresh evaluation of one question over `facts` (stored facts, then context facts). */
export function createSession(
  program: Program,
  facts: readonly FactIndex[],
  options: SessionOptions = {},
): Session {
  return openSession(program, facts, options, runClauses);
}
