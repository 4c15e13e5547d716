#!/usr/bin/env node
import { existsSync } from "node:fs";

// The bundle (`npm run build:bundle`, src/cli/bundle-build.ts) loads in a tenth of the time
// of dist/'s many modules; a build made by `tsc` alone has only the latter.
const bundle = new URL("../dist/bundle/polar-sql.js", import.meta.url);
const { main } = await import(existsSync(bundle) ? bundle.href : "../dist/cli/main.js");

// `polar-sql facts export | head`: a reader that goes away is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
