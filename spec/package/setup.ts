/**
 * The package check's global setup: the tools it runs (another Node, Bun,
 * Deno, pnpm, attw, publint) installed from their own lockfile, the package
 * packed once (`npm pack`, which builds dist/ through `prepack`), and at the
 * end the figures the checks measured, printed as a table.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { FIGURES_FILE, REPO, run, TOOLS } from "./project.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The packed tarball's path. */
    tarball: string;
    /** A fresh directory the checks make their projects in. */
    work: string;
  }
}

const TOOL_BINS = ["attw", "bun", "deno", "node", "pnpm", "publint"];

export default async function setup(project: TestProject) {
  if (!TOOL_BINS.every((bin) => existsSync(join(TOOLS, "node_modules", ".bin", bin)))) {
    await run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: TOOLS });
  }
  const work = mkdtempSync(join(tmpdir(), "elyra-package-"));
  const packed = await run(
    "npm",
    ["pack", "--json", "--pack-destination", work, "--loglevel=error"],
    { cwd: REPO },
  );
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{
    filename: string;
  }>;
  if (info === undefined)
    throw new Error(`npm pack said nothing of its tarball:\n${packed.stdout}`);
  const tarball = join(work, info.filename);
  rmSync(FIGURES_FILE, { force: true });
  project.provide("tarball", tarball);
  project.provide("work", work);

  return () => {
    if (existsSync(FIGURES_FILE)) {
      const figures = readFileSync(FIGURES_FILE, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const width = Math.max(...figures.map((f: { name: string }) => f.name.length));
      console.log("\nPackage figures:");
      for (const f of figures as Array<{ name: string; value: string }>) {
        console.log(`  ${f.name.padEnd(width)}  ${f.value}`);
      }
    }
    if (process.env.ELYRA_KEEP_PACKAGE_WORK === undefined)
      rmSync(work, { recursive: true, force: true });
    else console.log(`Projects kept in ${work}: ${readdirSync(work).join(", ")}`);
  };
}
