/**
 * Hostile but well-formed requests against a running server (issue 13): for each case the
 * status and time of the hostile request, and the p99 of ordinary `/api/authorize` requests
 * sent every 20 ms (open loop: latency counts from the scheduled send) while it runs.
 * Target: every case answered (or refused with a 4xx) within 5 s; concurrent p99 <= 250 ms.
 *
 *   npx tsx bench/hostile/run.ts            # all cases, on the in-memory default store
 *   npx tsx bench/hostile/run.ts calls or   # cases whose name contains a word
 *   npx tsx bench/hostile/run.ts --store pglite
 *   npx tsx bench/hostile/run.ts --database-url postgres://postgres@127.0.0.1:5432/test
 *
 * Each row also gives the server's resident memory after the case (and its growth over it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FOLDER_POLICY, type FolderCase, folderCase } from "../explain/folder-graphs.js";
import {
  bindingCalls,
  conjunctionOfOrs,
  filteredOrs,
  flowingOrs,
  twoRuleCalls,
} from "./policies.js";

/** Ordinary requests are about folders; hostile rules are about documents. */
const BASE = `actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
resource Doc {
  roles = ["viewer"];
  permissions = ["read"];
  "read" if "viewer";
}
`;

interface Case {
  readonly name: string;
  /** Policy made active before the hostile request (not timed), if any. */
  readonly policy?: string;
  readonly method: "POST" | "DELETE";
  readonly path: string;
  readonly body: () => string;
  /** Facts stored before the hostile request (not timed) and cleared after it. */
  readonly facts?: () => readonly unknown[];
}

const docQuestion = {
  actor_type: "User",
  actor_id: "ada",
  action: "read",
  resource_type: "Doc",
  resource_id: "d1",
};
const manyRules = (n: number) =>
  `${BASE}${Array.from({ length: n }, (_, i) => `has_role(u: User, "viewer", d: Doc) if has_relation(d, "r${i}", u);`).join("\n")}\n`;
const chain = (n: number) =>
  `${BASE}${Array.from({ length: n }, (_, i) => `c${i}(d: Doc) if c${i + 1}(d);`).join("\n")}
c${n}(d: Doc) if has_relation(d, "public", d);
has_role(_: User, "viewer", d: Doc) if c0(d);
`;
const allowQuery = (calls: readonly string[][], ids: readonly string[]) =>
  JSON.stringify({
    predicate: ["allow", ["a", "b", "c"]],
    calls: calls.map((args) => ["allow", args]),
    constraints: {
      a: { type: "User", ids: ["ada"] },
      b: { type: "String", ids: ["read"] },
      c: { type: "Doc", ids },
      c1: { type: "Doc", ids: ["d2"] },
      c2: { type: "Doc", ids: ["d3"] },
    },
  });
const policyBody = (src: string, filename = "hostile.polar") => JSON.stringify({ src, filename });
/** Ada views every 97th of the documents `d0`…: the asked ids meet stored facts in SQL. */
const viewedDocs = (n: number) =>
  Array.from({ length: Math.ceil(n / 97) }, (_, i) => ({
    predicate: "has_role",
    args: [
      { type: "User", id: "ada" },
      { type: "String", id: "viewer" },
      { type: "Doc", id: `d${i * 97}` },
    ],
  }));

/** `/explain` of docs/explain.md's Folder policy on a wide or deep folder graph (issue 27). */
const explainCase = (graph: FolderCase, what: string): Case => ({
  name: `explain, ${what}`,
  policy: FOLDER_POLICY,
  method: "POST",
  path: "/api/explain",
  body: () => JSON.stringify(graph.question),
  facts: () => graph.facts,
});

const CASES: readonly Case[] = [
  {
    name: "evaluate_query, the same call 1,000 times",
    method: "POST",
    path: "/api/evaluate_query",
    body: () =>
      allowQuery(
        Array.from({ length: 1000 }, () => ["a", "b", "c"]),
        ["d1"],
      ),
  },
  {
    name: "evaluate_query, 6 different calls",
    method: "POST",
    path: "/api/evaluate_query",
    policy: conjunctionOfOrs(BASE, 2),
    body: () =>
      allowQuery(
        [
          ["a", "b", "c1"],
          ["a", "b", "c2"],
          ["a", "b", "c"],
          ["a", "b", "c1"],
          ["a", "b", "c2"],
        ],
        ["d1"],
      ),
  },
  {
    name: "authorize_resources, 30,000 resources",
    method: "POST",
    path: "/api/authorize_resources",
    body: () =>
      JSON.stringify({
        actor_type: "User",
        actor_id: "ada",
        action: "read",
        resources: Array.from({ length: 30_000 }, (_, i) => ({ type: "Doc", id: `d${i}` })),
      }),
    facts: () => viewedDocs(30_000),
  },
  {
    name: "evaluate_query, 70,000 ids in one constraint",
    method: "POST",
    path: "/api/evaluate_query",
    body: () =>
      allowQuery(
        [],
        Array.from({ length: 70_000 }, (_, i) => `d${i}`),
      ),
    facts: () => viewedDocs(70_000),
  },
  {
    name: "evaluate_query, 100,000 ids in one constraint",
    method: "POST",
    path: "/api/evaluate_query",
    body: () =>
      allowQuery(
        [],
        Array.from({ length: 100_000 }, (_, i) => `d${i}`),
      ),
    facts: () => viewedDocs(100_000),
  },
  {
    name: "post policy, (x or y) and ... x14",
    method: "POST",
    path: "/api/policy",
    body: () => policyBody(conjunctionOfOrs(BASE, 14)),
  },
  {
    name: "authorize under (x or y) and ... x14",
    policy: conjunctionOfOrs(BASE, 14),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "authorize under (x or y) and ... x14, each binding a variable read after it",
    policy: flowingOrs(BASE, 14),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "authorize under (x or y) and ... x14, each alone binding a variable a filter reads",
    policy: filteredOrs(BASE, 14),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "authorize under 14 calls of predicates with two rules each",
    policy: twoRuleCalls(BASE, 14),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "authorize under 14 calls of two-rule predicates, each binding a variable",
    policy: bindingCalls(BASE, 14),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "post policy, 50,000 rules with one head",
    method: "POST",
    path: "/api/policy",
    body: () => policyBody(manyRules(50_000)),
  },
  {
    name: "post policy, 10,000 rules with one head",
    method: "POST",
    path: "/api/policy",
    body: () => policyBody(manyRules(10_000)),
  },
  {
    name: "authorize under 10,000 rules with one head",
    policy: manyRules(10_000),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "post policy, a chain of 500 rules",
    method: "POST",
    path: "/api/policy",
    body: () => policyBody(chain(500)),
  },
  {
    name: "authorize under a chain of 500 rules",
    policy: chain(500),
    method: "POST",
    path: "/api/authorize",
    body: () => JSON.stringify(docQuestion),
  },
  {
    name: "post policy, NUL in filename and comment",
    method: "POST",
    path: "/api/policy",
    body: () => policyBody(`# NUL \u0000 here\n${BASE}`, "nul\u0000.polar"),
  },
  {
    name: "authorize_query, NUL in ids",
    method: "POST",
    path: "/api/authorize_query",
    body: () =>
      JSON.stringify({
        query: { ...docQuestion, actor_id: "a\u0000" },
        data_bindings: `facts:\n  "has_role(User:_, String:_, Doc:_)":\n    query: SELECT u, r, d FROM roles\n`,
      }),
  },
  {
    name: "batch, a delete with 9 arguments",
    method: "POST",
    path: "/api/batch",
    body: () =>
      JSON.stringify([
        {
          deletes: [
            {
              predicate: "wide",
              args: Array.from({ length: 9 }, () => ({ type: "Doc", id: "x" })),
            },
          ],
        },
      ]),
  },
  explainCase(folderCase("wide", 240), "a document in 240 folders"),
  explainCase(folderCase("wide", 1000), "a document in 1,000 folders"),
  explainCase(folderCase("deep", 1000), "a 1,000-deep folder chain"),
  explainCase(folderCase("deep", 3000), "a 3,000-deep folder chain"),
];

const AUTHORIZE = JSON.stringify({
  actor_type: "User",
  actor_id: "ada",
  action: "read",
  resource_type: "Folder",
  resource_id: "f1",
});

function startServer(
  apiKey: string,
  policyFile: string,
  storeArgs: readonly string[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/hostile/serve.ts"], {
    env: {
      ...process.env,
      POLAR_SQL_API_KEYS: apiKey,
      HOSTILE_POLICY: policyFile,
      HOSTILE_STORE_ARGS: JSON.stringify(storeArgs),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once("exit", (code) => reject(new Error(`server exited with code ${code}: ${output}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(
  url: string,
  apiKey: string,
  method: string,
  path: string,
  body: string,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${apiKey}`,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on("error", (error) => resolve({ status: 0, text: error.message }));
    request.end(body);
  });
}

/** Authorize every 20 ms until `until` settles (and 200 ms more); latencies from schedule. */
async function background(url: string, apiKey: string, until: Promise<unknown>) {
  const latencies: number[] = [];
  let failures = 0;
  let done = false;
  void until.finally(() => setTimeout(() => (done = true), 200));
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; !done; i++) {
    const scheduled = start + i * 20;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      send(url, apiKey, "POST", "/api/authorize", AUTHORIZE).then((reply) => {
        if (reply.status !== 200) failures++;
        latencies.push(performance.now() - scheduled);
      }),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? 0;
  return {
    count: latencies.length,
    p99: Math.round(p99),
    max: Math.round(latencies.at(-1) ?? 0),
    failures,
  };
}

/** The server's resident memory in MB (Linux). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** `--store <name>` and `--database-url <url>` for the server; the other words pick cases. */
function parseArguments(args: readonly string[]): { words: string[]; storeArgs: string[] } {
  const words: string[] = [];
  const storeArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--store" || arg === "--database-url") storeArgs.push(arg, args[++i] ?? "");
    else words.push(arg);
  }
  return { words, storeArgs };
}

async function main(): Promise<void> {
  const { words, storeArgs } = parseArguments(process.argv.slice(2));
  const chosen = CASES.filter((c) => words.length === 0 || words.some((w) => c.name.includes(w)));
  const apiKey = randomBytes(12).toString("hex");
  const policyFile = join(tmpdir(), `polar-sql-hostile-${process.pid}.polar`);
  await writeFile(policyFile, BASE);
  const server = await startServer(apiKey, policyFile, storeArgs);
  const pid = server.child.pid!;
  console.log(`store: ${storeArgs.join(" ") || "the default (SQLite, in memory)"}`);
  const rows: string[] = [];
  try {
    for (const c of chosen) {
      await send(server.url, apiKey, "POST", "/api/policy", policyBody(c.policy ?? BASE));
      const facts = c.facts?.() ?? [];
      if (facts.length > 0) {
        const batch = JSON.stringify([{ inserts: facts }]);
        await send(server.url, apiKey, "POST", "/api/batch", batch);
      }
      // The ordinary question's plan is made once for the active policy before timing.
      await send(server.url, apiKey, "POST", "/api/authorize", AUTHORIZE);
      const body = c.body();
      const rssBefore = await rssMb(pid);
      const started = performance.now();
      const hostile = send(server.url, apiKey, c.method, c.path, body).then((reply) => ({
        ...reply,
        ms: Math.round(performance.now() - started),
      }));
      const concurrent = await background(server.url, apiKey, hostile);
      const reply = await hostile;
      const alive =
        (await send(server.url, apiKey, "POST", "/api/authorize", AUTHORIZE)).status === 200;
      const rss = await rssMb(pid);
      if (facts.length > 0) await send(server.url, apiKey, "POST", "/api/clear_data", "");
      const note =
        reply.status >= 400 ? (JSON.parse(reply.text) as { message: string }).message : "";
      const row = `| ${c.name} | ${reply.status} | ${reply.ms} | ${concurrent.p99} | ${concurrent.max} | ${concurrent.count} | ${concurrent.failures} | ${alive ? "yes" : "NO"} | ${rss} (+${rss - rssBefore}) | ${note.slice(0, 140).replaceAll("|", "\\|")} |`;
      console.log(row);
      rows.push(row);
    }
  } finally {
    server.child.kill("SIGTERM");
    agent.destroy();
    await rm(policyFile, { force: true });
  }
  console.log(
    "\n| case | status | ms | authorize p99 ms | max ms | authorize requests | non-200 | alive | RSS MB (growth) | message |\n|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const row of rows) console.log(row);
}

await main();
