/**
 * The facts of a facts file, checked as the server will check them before anything is sent:
 * the record's shape, NUL characters, the number of arguments, and each argument against the
 * server's policy (its fact signatures: predicate, arity, types; ids non-empty, at most 384
 * bytes, valid Integer and Boolean ids). Without a policy the server checks the values only,
 * and so does this.
 */
import { z } from "zod";
import { checkPolicy } from "../check/check.js";
import { checkFact, checkFactValue } from "../check/facts.js";
import type { Program } from "../check/program.js";
import { formatFact as formatGroundFact } from "../core/value.js";
import { MAX_FACT_ARITY } from "../store/schema.js";
import type { StoredPolicy, WireFact } from "./http.js";
import { readRecords } from "./records.js";

const factRecordSchema = z.object({
  predicate: z.string().min(1),
  args: z.array(z.object({ type: z.string().min(1), id: z.string().min(1) })),
});

const SHAPE = 'expected {"predicate": "…", "args": [{"type": "…", "id": "…"}]}';

export type NumberedRecord =
  | { readonly line: number; readonly fact: WireFact }
  | { readonly line: number; readonly problem: string };

/**
 * What the server will say of a fact, or null when it will store it.
 *
 * @example
 * const check = factChecker(await client.getPolicy());
 * check({ predicate: "has_rol", args: [] }); // "unknown predicate `has_rol/0`"
 */
export function factChecker(policy: StoredPolicy | null): (fact: WireFact) => string | null {
  const program = policy === null ? null : programOf(policy);
  const reasonFor = (fact: WireFact): string | null => {
    const nul = (text: string) => text.includes("\u0000");
    if (nul(fact.predicate) || fact.args.some((arg) => nul(arg.type) || nul(arg.id))) {
      return "facts cannot contain NUL characters";
    }
    if (fact.args.length > MAX_FACT_ARITY) {
      return `facts with more than ${MAX_FACT_ARITY} arguments are not supported`;
    }
    const problem = program
      ? checkFact(program, fact)
      : (fact.args.map(checkFactValue).find((d) => d !== null) ?? null);
    return problem?.message ?? null;
  };
  return (fact) => {
    const reason = reasonFor(fact);
    return reason && `${reason}: \`${formatGroundFact(fact)}\``;
  };
}

/** The server's policy as the server checked it; null (values only) if it does not check here. */
function programOf(policy: StoredPolicy): Program | null {
  const checked = checkPolicy([{ name: policy.filename || "policy.polar", text: policy.src }]);
  return checked.ok ? checked.program : null;
}

/**
 * Each record of a facts file with its line: the fact, or what is wrong with it. Stops after a
 * record that is not JSON or is too long (what follows cannot be told apart).
 *
 * @example
 * for await (const record of factRecords("facts.jsonl", factChecker(null))) …
 */
export async function* factRecords(
  path: string,
  check: (fact: WireFact) => string | null,
): AsyncGenerator<NumberedRecord> {
  for await (const record of readRecords(path)) {
    if ("error" in record) {
      yield { line: record.line, problem: record.error };
      return;
    }
    const parsed = factRecordSchema.safeParse(record.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? `\`${issue.path.join(".")}\`: ` : "";
      const problem = `${where}${issue.message.toLowerCase()}; ${SHAPE}`;
      yield { line: record.line, problem };
      continue;
    }
    const problem = check(parsed.data);
    yield problem === null
      ? { line: record.line, fact: parsed.data }
      : { line: record.line, problem };
  }
}
