/**
 * Before and after at the level of requests (issue 32, item 2): the server of this checkout and
 * the server of another (`--before=<dir>`, e.g. `git archive <commit> | tar -x -C <dir>` with a
 * `node_modules` link), both on the data of local-round-trip.ts, asked in turn, so that both
 * meet the same load from other processes, which alternating whole runs does not ensure on a
 * shared machine. Times a new user each request (the stored roles inlined), then a new bindings
 * text each request (parse, check, plan, print); which server goes first changes every round.
 *
 *   npx tsx bench/http/local-ab.ts --before=/tmp/polar-before [--rounds=300]
 *   ... --texts-only                            # new bindings texts only, no new users first
 *   ... --server-args="--no-flush-bytecode"     # node options of both servers
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { authorizeQueryBody, RECURSIVE_BINDINGS, RECURSIVE_SCALES } from "./recursive.js";
import { type ServerProcess, startServer } from "./server-process.js";

const option = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const beforeDir = option("before");
if (!beforeDir) throw new Error("usage: npx tsx bench/http/local-ab.ts --before=<checkout>");
const ROUNDS = Number(option("rounds") ?? 300);
const textsOnly = process.argv.includes("--texts-only");
const serverArgs = (option("server-args") ?? "").split(" ").filter((a) => a !== "");
/** Requests to each server before timing, by users 0 to 999 (later users are new). */
const WARM_UP = 3000;
const scale = RECURSIVE_SCALES.default;

interface Side {
  readonly name: string;
  readonly server: ServerProcess;
  readonly agent: http.Agent;
  readonly apiKey: string;
  readonly newUser: number[];
  readonly newText: number[];
}

/** A server started from `dir`: its own bench/http/serve.ts and src/. */
async function side(name: string, dir: string): Promise<Side> {
  const apiKey = randomBytes(16).toString("hex");
  const here = process.cwd();
  process.chdir(dir);
  try {
    const server = await startServer({
      apiKey,
      data: "recursive",
      scale: "default",
      databaseUrl: null,
      stored: "roles",
      nodeArgs: serverArgs,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return { name, server, agent, apiKey, newUser: [], newText: [] };
  } finally {
    process.chdir(here);
  }
}

function post(to: Side, body: string): Promise<number> {
  const url = new URL(to.server.url);
  return new Promise((done, fail) => {
    const started = performance.now();
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: "/api/authorize_query",
        agent: to.agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${to.apiKey}`,
        },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          response.statusCode === 200
            ? done(performance.now() - started)
            : fail(new Error(`${to.name}: ${response.statusCode}`)),
        );
      },
    );
    request.on("error", fail);
    request.end(body);
  });
}

const body = authorizeQueryBody;

const sides = [await side("after", process.cwd()), await side("before", resolve(beforeDir))];
/** Both servers, the first one changing every round. */
const turn = (round: number) => (round % 2 === 0 ? sides : [...sides].reverse());
try {
  for (let i = 0; i < WARM_UP; i++) {
    for (const s of sides) await post(s, body(i % 1000, (i * 7919) % scale.documents));
  }
  for (let i = 0; i < (textsOnly ? 0 : ROUNDS); i++) {
    const user = 1000 + (i % (scale.users - 1000));
    const question = body(user, (i * 104729) % scale.documents);
    for (const s of turn(i)) s.newUser.push(await post(s, question));
  }
  for (let i = 0; i < ROUNDS; i++) {
    const question = body(i % 1000, i, `# bindings text ${i}\n${RECURSIVE_BINDINGS}`);
    for (const s of turn(i)) s.newText.push(await post(s, question));
  }
} finally {
  for (const s of sides) {
    s.agent.destroy();
    await s.server.stop();
  }
}
const at = (ms: number[], q: number) =>
  [...ms].sort((a, b) => a - b)[Math.floor(q * (ms.length - 1))]!.toFixed(2);
console.log(
  `${ROUNDS} rounds; load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log("| server | new user p50 ms | p90 | p99 | new bindings text p50 ms | p90 |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
const usersAt = (ms: number[], q: number) => (ms.length === 0 ? "–" : at(ms, q));
for (const { name, newUser: u, newText: t } of sides) {
  console.log(
    `| ${name} | ${usersAt(u, 0.5)} | ${usersAt(u, 0.9)} | ${usersAt(u, 0.99)} | ${at(t, 0.5)} | ${at(t, 0.9)} |`,
  );
}
