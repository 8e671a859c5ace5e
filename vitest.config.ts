import { defineConfig } from "vitest/config";
import { SOURCE_CONDITION } from "./spec/fixtures/sourceNode.ts";

/** The package's own export condition: `elyra-assistant/*` resolves to src/, not the compiled dist/. */
const conditions = [SOURCE_CONDITION];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["spec/**/*.spec.ts"],
    exclude: ["spec/package/**", "**/node_modules/**"],
    pool: "threads",
    testTimeout: 30_000,
  },
});
