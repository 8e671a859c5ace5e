// The library build: dist/ emptied, then tsc (tsconfig.build.json) writes ESM
// JavaScript, .d.ts files and source maps for everything under src/, then
// esbuild writes the prebuilt browser module over dist/adapters/ui/bundle.js
// (./browserBundle.mjs).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE_FILE, buildBrowserBundle } from "./browserBundle.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(root, "dist"), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
try {
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
    stdio: "inherit",
  });
} catch {
  // tsc has printed its errors.
  process.exit(1);
}
try {
  await buildBrowserBundle(root, { outfile: join(root, BUNDLE_FILE) });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
