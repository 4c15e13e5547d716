/**
 * The test suite with CPU time logged per file and per test (bench/test-cpu/setup.ts):
 *
 *   TEST_CPU_LOG=/tmp/cpu.tsv npx vitest run --config bench/test-cpu/vitest.config.ts
 *   grep -P '\t$' /tmp/cpu.tsv | sort -rn | head   # the files that cost most
 *   FC_SEED=1 TEST_CPU_LOG=… npx vitest run --config … test/x.test.ts  # the same cases each run
 *
 * Chromium, CLI processes and esbuild are not in these figures; bench/test-cpu/tree-cpu.ts
 * counts a whole run's process tree.
 */
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import suite from "../../vitest.config.js";

export default mergeConfig(
  suite,
  defineConfig({
    root: fileURLToPath(new URL("../..", import.meta.url)),
    test: { setupFiles: [fileURLToPath(new URL("setup.ts", import.meta.url))] },
  }),
);
