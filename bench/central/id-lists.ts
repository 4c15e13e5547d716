/**
 * `authorize_resources` by the number of resources, in process (no HTTP): each list of ids is
 * one question whose ids meet the stored facts in SQL. Ada views every 97th of 70,000
 * documents, other users 200,000 more. Prints the median and p99 per size; each size is asked
 * with new ids every time, so the answer cache never serves it.
 *
 *   npx tsx bench/central/id-lists.ts                 # embedded PGlite
 *   npx tsx bench/central/id-lists.ts postgres://…    # a PostgreSQL server (its own schema)
 */
import pg from "pg";
import { createService } from "../../src/service/service.js";

const POLICY = `actor User {}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
`;
const SIZES: readonly [number, number][] = [
  [3, 400],
  [100, 200],
  [1_000, 60],
  [30_000, 12],
  [70_000, 8],
];

const url = process.argv[2];
const schema = `id_lists_${process.pid}`;
let databaseUrl: string | undefined;
if (url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  databaseUrl = parsed.toString();
}
const service = await createService({ ...(databaseUrl && { databaseUrl }), answerCache: false });
try {
  await service.postPolicy({ src: POLICY, filename: "bench.polar" }, {});
  const role = (user: string, doc: string) => ({
    predicate: "has_role",
    args: [
      { type: "User", id: user },
      { type: "String", id: "viewer" },
      { type: "Doc", id: doc },
    ],
  });
  const facts = [
    ...Array.from({ length: Math.ceil(70_000 / 97) }, (_, i) => role("ada", `d${i * 97}`)),
    ...Array.from({ length: 200_000 }, (_, i) => role(`u${i % 1000}`, `d${i}`)),
  ];
  for (let at = 0; at < facts.length; at += 20_000) {
    await service.batch([{ inserts: facts.slice(at, at + 20_000) }]);
  }
  console.log("| resources | requests | median ms | p99 ms | permitted |\n|---|---|---|---|---|");
  let round = 0;
  for (const [n, requests] of SIZES) {
    const times: number[] = [];
    let permitted = 0;
    for (let r = 0; r < requests; r++) {
      // A different window of ids each time: no two requests ask the same list.
      const start = (round++ * 7) % 70_000;
      const resources = Array.from({ length: n }, (_, i) => ({
        type: "Doc",
        id: `d${(start + i) % 70_000}`,
      }));
      const began = performance.now();
      const reply = await service.authorizeResources({
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resources,
      });
      times.push(performance.now() - began);
      permitted = (reply.body as { results: unknown[] }).results.length;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    console.log(
      `| ${n} | ${requests} | ${at(0.5).toFixed(2)} | ${at(0.99).toFixed(2)} | ${permitted} |`,
    );
  }
} finally {
  await service.close();
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.end();
  }
}
