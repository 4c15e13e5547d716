#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

// `polar-sql facts export | head`: a reader that goes away is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
