import { defineConfig } from "vitest/config";

export default defineConfig({
  // tsconfig.json's `paths` resolve `elyra-assistant/*` to src/, not the compiled dist/.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["spec/**/*.spec.ts", "spec/**/*.spec.tsx"],
    exclude: ["spec/package/**", "**/node_modules/**"],
    pool: "threads",
    testTimeout: 30_000,
    // A hook may launch Chromium or start a database: on 2 busy cores that can take over 10 s.
    hookTimeout: 60_000,
  },
});
