/**
 * The server of the hostile-request bench: `polar-sql serve` with the base policy of run.ts (its
 * path in HOSTILE_POLICY, the API key in POLAR_SQL_API_KEYS), on the in-memory default store or
 * the store that HOSTILE_STORE_ARGS names (`--store pglite`, `--database-url …`).
 */
import { processIo } from "../../src/cli/io.js";
import { runServeCommand } from "../../src/cli/serve-command.js";

process.exitCode = await runServeCommand(
  [
    "--policy",
    process.env.HOSTILE_POLICY!,
    "--port",
    "0",
    "--log-level",
    "silent",
    ...JSON.parse(process.env.HOSTILE_STORE_ARGS ?? "[]"),
  ],
  processIo,
);
