/**
 * Cost of reading data bindings on a local request that misses the cache: the plain parse
 * (`parseDataBindings`, what the endpoints did before issue 17) against the parse plus the
 * static checks against the policy (`checkBindings`: errors only, what they do now; with the
 * warnings, what `bindings check` and the `sql` command do), and a whole uncached
 * `authorize_query`. Every run gets a different text (a counter in a comment), so nothing is
 * reused between runs.
 *
 *   npx tsx bench/bindings-check.ts
 */
import { readFileSync } from "node:fs";
import { authorizeQuery } from "../src/api/local.js";
import { checkBindings } from "../src/bindings/check.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import { checkPolicyOrThrow } from "../src/check/check.js";

const policy = readFileSync(new URL("local/policy.polar", import.meta.url), "utf8");
const bindings = readFileSync(new URL("local/bindings.yaml", import.meta.url), "utf8");
const program = checkPolicyOrThrow([{ name: "policy.polar", text: policy }]);

/** 200 bindings: the bench's own, plus attributes and relations no rule reads (warnings). */
function large(): string {
  const lines = [bindings.replace(/^sql_types:[\s\S]*$/m, "").trimEnd()];
  for (let i = 0; i < 193; i++) {
    const signature =
      i % 2 === 0 ? `is_flag${i}(Document:_)` : `has_relation(Document:_, rel${i}, Folder:_)`;
    const query =
      i % 2 === 0 ? `SELECT id FROM documents WHERE flag${i}` : `SELECT id, f${i} FROM documents`;
    lines.push(`  "${signature}":`, `    query: ${query}`);
  }
  return `${lines.join("\n")}\n`;
}

function measure(label: string, text: string, iterations: number, run: (text: string) => void) {
  for (let i = 0; i < Math.min(200, iterations); i++) run(`${text}# warm ${i}\n`);
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const varied = `${text}# run ${i}\n`;
    const start = process.hrtime.bigint();
    run(varied);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  console.log(
    `  ${label.padEnd(44)} p50 ${at(0.5).toFixed(3)} ms  p99 ${at(0.99).toFixed(3)} ms  (${iterations} runs)`,
  );
}

const question = {
  actor_type: "User",
  actor_id: "17",
  action: "read",
  resource_type: "Document",
  resource_id: "101",
};

console.log(`node ${process.version}, ${new Date().toISOString()}`);
for (const [name, text, runs] of [
  ["bench/local/bindings.yaml (7 bindings)", bindings, 5000],
  ["200 bindings, 193 read by no rule", large(), 500],
] as const) {
  console.log(name);
  measure("parseDataBindings (before)", text, runs, (t) => parseDataBindings(t));
  measure("checkBindings, errors only (local endpoints)", text, runs, (t) => {
    if (!checkBindings(program, t, { warnings: false }).ok) throw new Error("bindings fail");
  });
  measure("checkBindings, with warnings (CLI)", text, runs, (t) => {
    if (!checkBindings(program, t).ok) throw new Error("bench bindings do not check");
  });
  measure("authorize_query, bindings not cached", text, Math.min(runs, 2000), (t) =>
    authorizeQuery(program, { query: question, data_bindings: t }),
  );
}
