import { defineConfig } from "vitest/config";

export default defineConfig({
  // tsconfig.json's `paths` resolve `elyra-assistant/*` to src/, not the compiled dist/.
  resolve: { tsconfigPaths: true },
  test: {
    include: ["spec/**/*.spec.ts"],
    exclude: ["spec/package/**", "**/node_modules/**"],
    pool: "threads",
    testTimeout: 30_000,
  },
});
