/**
 * What each environment costs on an embedded store: resident memory and time to open with
 * 1 and with 3 environments in memory, each given a small policy. One run per process, so
 * that the figures do not include an earlier run's heap. Prints Markdown.
 *
 *   npx tsx bench/environments/footprint.ts
 */
import { execFileSync } from "node:child_process";
import { openEnvironments } from "../../src/service/environments.js";

const POLICY = `actor User {}
resource Doc { roles = ["reader"]; permissions = ["read"]; "read" if "reader"; }`;

async function measure(store: "sqlite" | "pglite", count: number): Promise<void> {
  const names = ["default", "e1", "e2", "e3", "e4"].slice(0, count);
  const started = performance.now();
  const environments = await openEnvironments(names, { embedded: store, workers: 0 });
  for (const service of environments.services.values())
    await service.postPolicy({ src: POLICY, filename: null }, {});
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const mb = Math.round(process.memoryUsage().rss / 1e6);
  console.log(`| ${store} | ${count} | ${mb} | ${Math.round(ms)} |`);
  await environments.close();
}

const [store, count] = process.argv.slice(2);
if (store) {
  await measure(store as "sqlite" | "pglite", Number(count));
} else {
  console.log("| store | environments | resident MB | open ms |");
  console.log("| --- | --- | --- | --- |");
  for (const each of ["sqlite", "pglite"])
    for (const n of ["1", "3"])
      process.stdout.write(
        execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, each, n]),
      );
}
