/**
 * The lookups of a new user's stored roles, as a local question asks them of the store
 * (src/store/fact-lookups.ts `matchingFactsOfEach`), alone: the recursive dataset's roles in the
 * in-memory SQLite store, three lookups per call (the user's folder roles, organization roles,
 * and admin role), a user not asked before each call. Prints the wall time per call (p50, p99)
 * and the process's CPU per call (all threads), in rounds.
 *
 *   npx tsx bench/http/store-lookups.ts              # read on the event loop where bounded
 *   npx tsx bench/http/store-lookups.ts --threads    # always through a store thread
 *   npx tsx bench/http/store-lookups.ts --widest     # then the largest read on the event loop:
 *                                                    # 8 prefixes, 64 rows
 */
import { loadavg } from "node:os";
import type { SqlExecutor } from "../../src/store/executor.js";
import { type FactLookup, matchingFactsOfEach } from "../../src/store/fact-lookups.js";
import { openStore } from "../../src/store/store.js";
import { RECURSIVE_SCALES, recursiveFacts } from "./recursive.js";

const CALLS = 5000;
const ROUNDS = 4;
const threadsOnly = process.argv.includes("--threads");

const scale = RECURSIVE_SCALES.default;
const roles = recursiveFacts(scale).filter((fact) => fact.predicate === "has_role");
const store = await openStore({ embedded: "sqlite" });
await store.applyBatch([{ inserts: roles }]);
const { db: storeDb } = await store.head();
const db: SqlExecutor = threadsOnly ? { ...storeDb, readNow: undefined } : storeDb;

const user = (id: number) => ({ type: "User", id: String(id) });
const lookups = (id: number): FactLookup[] => [
  {
    predicate: "has_role",
    arity: 3,
    pattern: [user(id), null, null],
    types: ["User", "String", "Folder"],
  },
  {
    predicate: "has_role",
    arity: 3,
    pattern: [user(id), { type: "String", id: "admin" }, null],
    types: ["User", "String", "Organization"],
  },
  {
    predicate: "has_role",
    arity: 3,
    pattern: [user(id), null, null],
    types: ["User", "String", "Organization"],
  },
];

console.log(
  `3 lookups per call, ${roles.length} stored roles, in-memory SQLite, ` +
    `${threadsOnly ? "always a store thread" : "read now where an index bounds them"}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
);
let next = 0;
for (let round = 0; round < ROUNDS; round++) {
  const micros: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await matchingFactsOfEach(db, lookups(next++ % scale.users));
    micros.push((performance.now() - started) * 1000);
  }
  const used = process.cpuUsage(cpu);
  micros.sort((a, b) => a - b);
  const at = (q: number) => Math.round(micros[Math.floor(q * (CALLS - 1))]!);
  console.log(
    `round ${round + 1}: p50 ${at(0.5)} µs, p99 ${at(0.99)} µs, CPU ${Math.round((used.user + used.system) / CALLS)} µs per call`,
  );
}
if (process.argv.includes("--widest")) {
  // 8 users with 8 roles each: 8 index prefixes and 64 rows, the most a read now takes.
  const wide = Array.from({ length: 64 }, (_, i) => ({
    predicate: "has_role",
    args: [
      { type: "User", id: `wide${i >> 3}` },
      { type: "String", id: "viewer" },
      { type: "Folder", id: `w${i}` },
    ],
  }));
  await store.applyBatch([{ inserts: wide }]);
  const widest = Array.from({ length: 8 }, (_, u) => ({
    predicate: "has_role",
    arity: 3,
    pattern: [{ type: "User", id: `wide${u}` }, null, null],
  }));
  const micros: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const started = performance.now();
    const found = await matchingFactsOfEach(db, widest);
    micros.push((performance.now() - started) * 1000);
    if (found.flat().length !== 64) throw new Error("the widest read found the wrong rows");
  }
  micros.sort((a, b) => a - b);
  console.log(
    `widest (8 prefixes, 64 rows): p50 ${Math.round(micros[1000]!)} µs, max ${Math.round(micros[1999]!)} µs`,
  );
}
await store.close();
