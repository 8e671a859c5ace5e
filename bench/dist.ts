/**
 * The compiled package (dist/), what users install, for the benches that
 * measure it: built with `npm run build:lib` when missing or older than src/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The mtimes (ms) of every file and folder under `dir`, itself included: a deleted file changes its folder's. */
const mtimes = (dir: string): number[] => [
  statSync(dir).mtimeMs,
  ...readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? mtimes(path) : [statSync(path).mtimeMs];
  }),
];

/** Builds dist/ (`npm run build:lib`, quiet unless it fails) when it is missing or older than src/. */
export const buildIfStale = (): "built" | "up to date" => {
  const dist = join(root, "dist");
  const stale =
    !existsSync(join(dist, "index.js")) ||
    !existsSync(join(dist, "testing.js")) ||
    Math.min(...mtimes(dist)) < Math.max(...mtimes(join(root, "src")));
  if (!stale) return "up to date";
  try {
    execFileSync("npm", ["run", "--silent", "build:lib"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    process.stderr.write(stdout ?? "");
    process.stderr.write(stderr ?? "");
    throw new Error("npm run build:lib failed: this bench measures dist/");
  }
  return "built";
};
