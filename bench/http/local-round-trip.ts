/**
 * Round trip of the local endpoints over HTTP (issue 15, item 2): `polar-sql serve` in a child
 * process stores the roles of the recursive dataset (bench/http/recursive.ts: 30,000 by default)
 * while folders and documents are the application's (bound); `--all-stored` stores every fact
 * too, so each statement also inlines the stored rows of the bound relations (3,000 folder
 * parents: ~75 KB of SQL);
 * one client sends `POST /api/authorize_query` one request at a time over a keep-alive
 * connection, each with the same data bindings text (as the official client does) and a user
 * that has not asked before, so every request reads that user's stored roles and prints a new
 * statement. Prints p50/p90/p99 of the round trip in steady state, and the first request and the
 * mean of the first 60 of the warm-up (a fresh process: its first bindings text, plans and JIT),
 * then the first request of each of 100 bindings texts new to the warm service, then the floor
 * of the same server and client: `GET /health`, `GET /api/policy` (a key, no store statement) and
 * `authorize_query` for a user asked before (roles loaded: no lookup), interleaved.
 * Target (issue 32, item 2): p50 ≤ 0.5 ms, p99 ≤ 2 ms, the first request ≤ 5 ms.
 *
 *   npx tsx bench/http/local-round-trip.ts                 # 2,000 users warm up, 8,000 timed
 *   npx tsx bench/http/local-round-trip.ts --postgres      # store on DATABASE_URL
 *   npx tsx bench/http/local-round-trip.ts --small --requests=500
 *   npx tsx bench/http/local-round-trip.ts --cpu-prof=/tmp/prof   # the server's CPU profile
 *   npx tsx bench/http/local-round-trip.ts --requests=0 --new-texts=1000  # new texts only
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { loadavg } from "node:os";
import { authorizeQueryBody, RECURSIVE_BINDINGS, RECURSIVE_SCALES } from "./recursive.js";
import { serverStore, startServer } from "./server-process.js";

const small = process.argv.includes("--small");
const onPostgres = process.argv.includes("--postgres");
const allStored = process.argv.includes("--all-stored");
const scale = RECURSIVE_SCALES[small ? "small" : "default"];
/** Warm-up requests (JIT, plans, prepared statements), each by a user never timed. */
const WARM_UP = Math.floor(scale.users / 5);
const cpuProf = process.argv.find((a) => a.startsWith("--cpu-prof="))?.slice("--cpu-prof=".length);
/** The requests of the warm-up reported on their own: the first ones of the bindings text. */
const FIRST = 60;
const REQUESTS = Number(
  process.argv.find((a) => a.startsWith("--requests="))?.slice("--requests=".length) ??
    scale.users - WARM_UP,
);

function post(agent: http.Agent, url: URL, apiKey: string, body: string): Promise<number> {
  return send(agent, url, apiKey, "/api/authorize_query", body);
}

/** A POST of `body` to `path` (a GET without one); the round trip in ms. */
function send(
  agent: http.Agent,
  url: URL,
  apiKey: string,
  path: string,
  body?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const json = body === undefined ? {} : { "content-type": "application/json" };
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: body === undefined ? "GET" : "POST",
        path,
        agent,
        headers: {
          ...json,
          "content-length": Buffer.byteLength(body ?? ""),
          authorization: `Bearer ${apiKey}`,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) {
            reject(new Error(`${response.statusCode} ${Buffer.concat(chunks).toString()}`));
          } else resolve(performance.now() - started);
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const body = authorizeQueryBody;

/** New bindings texts asked once each after the steady state (same bindings, a comment apart). */
const NEW_TEXTS = Number(
  process.argv.find((a) => a.startsWith("--new-texts="))?.slice("--new-texts=".length) ?? 100,
);
/** Rounds of the floor's three requests. */
const FLOOR = 1000;

const apiKey = randomBytes(16).toString("hex");
const server = await startServer({
  apiKey,
  data: "recursive",
  scale: small ? "small" : "default",
  databaseUrl: onPostgres ? await serverStore("bench_local_rt") : null,
  stored: allStored ? "all" : "roles",
  embedded: process.argv.includes("--pglite") ? "pglite" : "sqlite",
  ...(cpuProf && { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] }),
});
try {
  const url = new URL(server.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // Warm-up: the plan, the bindings and the JIT settle (users past those timed below).
  const first: number[] = [];
  for (let i = 0; i < WARM_UP; i++) {
    const ms = await post(
      agent,
      url,
      apiKey,
      body(scale.users - 1 - i, (i * 7919) % scale.documents),
    );
    if (i < FIRST) first.push(ms);
  }
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    // A user that has not asked yet (while the dataset has that many), a varying document.
    const user = i % (scale.users - WARM_UP);
    times.push(await post(agent, url, apiKey, body(user, (i * 104729) % scale.documents)));
  }
  // A warm service meets a bindings text it has not seen: parse, check, plan, print.
  const newText: number[] = [];
  for (let i = 0; i < NEW_TEXTS; i++) {
    const text = `# bindings text ${i}\n${RECURSIVE_BINDINGS}`;
    newText.push(await post(agent, url, apiKey, body(i, (i * 7919) % scale.documents, text)));
  }
  // The floor: what any request of this client costs, then a question without a lookup.
  const floor = { health: [] as number[], policy: [] as number[], known: [] as number[] };
  for (let i = 0; i < FLOOR; i++) {
    floor.health.push(await send(agent, url, apiKey, "/health"));
    floor.policy.push(await send(agent, url, apiKey, "/api/policy"));
    const asked = i % Math.min(REQUESTS, scale.users - WARM_UP);
    floor.known.push(await post(agent, url, apiKey, body(asked, (i * 7919) % scale.documents)));
  }
  agent.destroy();
  newText.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.floor(q * (times.length - 1))]!.toFixed(2);
  console.log(
    `authorize_query round trip, ${REQUESTS} requests one at a time, a new user each, ` +
      `${onPostgres ? "PostgreSQL server" : `in-memory ${process.argv.includes("--pglite") ? "PGlite" : "SQLite"}`}, ${scale.users * 3} stored roles` +
      `${allStored ? " and every other fact" : " only"}; ` +
      `load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
  );
  console.log("| p50 ms | p90 ms | p99 ms |");
  console.log("| ---: | ---: | ---: |");
  console.log(`| ${at(0.5)} | ${at(0.9)} | ${at(0.99)} |`);
  const mean = first.reduce((sum, ms) => sum + ms, 0) / first.length;
  console.log(
    `first request of the bindings text ${first[0]!.toFixed(2)} ms; ` +
      `first ${first.length}: mean ${mean.toFixed(2)} ms, max ${Math.max(...first).toFixed(2)} ms`,
  );
  console.log(
    `first request of a new bindings text on the warm service (${NEW_TEXTS} texts): ` +
      `median ${newText[NEW_TEXTS >> 1]!.toFixed(2)} ms, max ${newText[NEW_TEXTS - 1]!.toFixed(2)} ms`,
  );
  const p50 = (ms: number[]) => ms.sort((a, b) => a - b)[ms.length >> 1]!.toFixed(2);
  console.log(
    `floor, p50: GET /health ${p50(floor.health)} ms, GET /api/policy ${p50(floor.policy)} ms, ` +
      `authorize_query of a user asked before ${p50(floor.known)} ms`,
  );
} finally {
  await server.stop();
}
