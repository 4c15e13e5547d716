import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Makes PGlite's cached empty image once, before the workers start (test/support/pglite.ts).
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default leaves one core idle: on two cores that is one worker for everything.
    maxWorkers: availableParallelism(),
    // Files in one worker share loaded modules: importing the compiler, PGlite and Kysely once
    // per worker instead of once per file. Tests keep no module-level state between files.
    isolate: false,
    experimental: {
      // Transformed modules are kept on disk (under node_modules) for the next run, keyed by
      // their content and the configuration (bench/RESULTS.md, "Test suite time").
      fsModuleCache: true,
    },
  },
});
