/**
 * One `polar-sql serve` process of the scale-out bench, started from the sources (the command
 * line after this file is the CLI's: `serve --policy … --database-url …`). run.ts spawns one per
 * instance.
 *
 *   POLAR_SQL_API_KEYS=k npx tsx bench/scale-out/instance.ts serve --policy p.polar --port 0
 */
import { main } from "../../src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
