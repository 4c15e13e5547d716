/**
 * A CPU profile of the server under saturated authorize load: serve.ts runs with `--cpu-prof`
 * (profile written to the given directory when it exits), driven for a few seconds.
 *
 *   npx tsx bench/http/profile-server.ts /tmp/prof --recursive
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { drive } from "./drive.js";
import { datasetFromEnv } from "./fixture.js";

const dir = process.argv[2] ?? "/tmp/polar-sql-profile";
process.env.BENCH_DATA = process.argv.includes("--recursive") ? "recursive" : "nested";
const apiKey = randomBytes(16).toString("hex");
const child = spawn(
  process.execPath,
  ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--import", "tsx", "bench/http/serve.ts"],
  { env: { ...process.env, POLAR_SQL_API_KEYS: apiKey }, stdio: ["ignore", "pipe", "inherit"] },
);
const url = await new Promise<string>((resolve) => {
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    const match = /listening on (http:\/\/\S+)\n/.exec(output);
    if (match) resolve(match[1]!);
  });
});
const requests = datasetFromEnv().requests(5000).authorize;
await drive({ url, apiKey, requests, connections: 50, seconds: 3 });
const summary = await drive({ url, apiKey, requests, connections: 50, seconds: 8 });
console.log(summary);
child.kill("SIGINT");
await new Promise((resolve) => child.once("exit", resolve));
