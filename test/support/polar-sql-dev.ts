/** `polar-sql` from this checkout's sources (for tests that run the CLI as a process). */
import { main } from "../../src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
