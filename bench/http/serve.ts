/**
 * The server process of the HTTP load benchmark: `polar-sql serve` on in-memory PGlite with
 * the fixture policy and facts. The API key comes from POLAR_SQL_API_KEYS, the dataset from
 * BENCH_DATA and BENCH_SCALE (fixture.ts), and BENCH_DATABASE_URL (when set) puts the store on a PostgreSQL server
 * (all set by load.ts).
 *
 *   POLAR_SQL_API_KEYS=k BENCH_SCALE=small npx tsx bench/http/serve.ts
 */
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processIo } from "../../src/cli/io.js";
import { runServeCommand } from "../../src/cli/serve-command.js";
import { datasetFromEnv } from "./fixture.js";

const factsFile = join(tmpdir(), `polar-sql-bench-facts-${process.pid}.json`);
const dataset = datasetFromEnv();
await writeFile(factsFile, JSON.stringify(dataset.facts()));
try {
  const storage = process.env.BENCH_DATABASE_URL
    ? ["--database-url", process.env.BENCH_DATABASE_URL]
    : [];
  process.exitCode = await runServeCommand(
    [
      ...[
        "--policy",
        dataset.policyFile,
        "--port",
        "0",
        "--facts",
        factsFile,
        "--log-level",
        "silent",
      ],
      ...storage,
    ],
    processIo,
  );
} finally {
  await rm(factsFile, { force: true });
}
