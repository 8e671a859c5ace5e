/**
 * The package check (`npm run check:package`): the packed tarball installed
 * into fresh projects and used as people use it. Apart from `npm test`: it
 * installs from the npm registry (or npm's cache) and takes minutes.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["spec/package/**/*.check.ts"],
    exclude: ["**/node_modules/**"],
    globalSetup: ["spec/package/setup.ts"],
    // One project at a time: each install and compile wants both cores.
    fileParallelism: false,
    pool: "forks",
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
