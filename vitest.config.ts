import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // README examples import the package by name, as a user would.
    alias: [
      { find: /^guarded-graph\/middleware$/, replacement: src("middleware/index.ts") },
      { find: /^guarded-graph\/mcp$/, replacement: src("mcp/index.ts") },
      { find: /^guarded-graph\/(memory|testing|graphs)$/, replacement: src("entry/$1.ts") },
      { find: /^guarded-graph$/, replacement: src("index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at a time: vitest's default on a 2-core machine is one (cores - 1), and most of
    // the slow files wait on child processes, servers or disk rather than the CPU. The tests that
    // compare timings measure their own process's CPU time.
    maxWorkers: 2,
  },
});
