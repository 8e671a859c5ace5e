import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  test: {
    include: ["spec/**/*.spec.ts"],
    pool: "threads",
    testTimeout: 30_000,
  },
});
