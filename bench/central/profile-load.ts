/**
 * Where the load time of the central bench goes: fact validation, key hashing, the INSERT
 * statements with and without the per-position indexes, and ANALYZE. Embedded PGlite.
 *
 *   npx tsx bench/central/profile-load.ts --facts=300000
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkPolicy } from "../../src/check/check.js";
import { canonicalFact, checkFact } from "../../src/check/facts.js";
import { insertFacts } from "../../src/store/facts.js";
import { openStore } from "../../src/store/store.js";
import { benchData } from "./data.js";

const flag = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const FACTS = Number(flag("facts", "300000"));
const BATCH = Number(flag("batch", "10000"));
const POLICY = readFileSync(new URL("./policy.polar", import.meta.url), "utf8");
const checked = checkPolicy([{ name: "bench.polar", text: POLICY }]);
if (!checked.ok) throw new Error("the bench policy does not check");
const program = checked.program;

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function run(label: string, dropIndexes: boolean): Promise<void> {
  const store = await openStore();
  if (dropIndexes) {
    for (const index of ["polar_fact_a0", "polar_fact_a1", "polar_fact_a2"])
      await store.db.query(`DROP INDEX ${index}`);
  }
  let validate = 0;
  let hash = 0;
  let insert = 0;
  for (const batch of benchData({ total: FACTS, seed: 42 }).batches(BATCH)) {
    let start = process.hrtime.bigint();
    const facts = batch.map((fact) => {
      if (checkFact(program, fact)) throw new Error("invalid bench fact");
      return canonicalFact(fact);
    });
    validate += seconds(start);
    start = process.hrtime.bigint();
    for (const fact of facts) {
      createHash("sha256")
        .update(JSON.stringify([fact.predicate, ...fact.args.flatMap((a) => [a.type, a.id])]))
        .digest("base64url");
    }
    hash += seconds(start);
    start = process.hrtime.bigint();
    await store.db.transaction((tx) => insertFacts(tx, facts));
    insert += seconds(start);
  }
  const start = process.hrtime.bigint();
  await store.db.query("ANALYZE polar_fact");
  const analyze = seconds(start);
  console.log(
    `| ${label} | ${validate.toFixed(1)} | ${hash.toFixed(1)} | ${insert.toFixed(1)} | ${analyze.toFixed(2)} |`,
  );
  await store.close();
}

console.log(`${FACTS.toLocaleString("en")} facts in batches of ${BATCH.toLocaleString("en")}\n`);
console.log(
  "| PGlite | validate s | sha256 keys s | insertFacts s (keys included) | one ANALYZE s |",
);
console.log("|---|---:|---:|---:|---:|");
await run("store schema as is", false);
await run("without the 3 per-position indexes", true);
