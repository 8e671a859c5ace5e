/**
 * The tarball itself: what it holds, what it weighs, and what the packaging
 * linters say of it (arethetypeswrong for an ESM-only package, publint).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { figure, megabytes, REPO, run, tool } from "./project.ts";

const tarball = inject("tarball");
const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
  .trim()
  .split("\n")
  .map((path) => path.replace(/^package\//, ""));

describe("the tarball", () => {
  it("holds the compiled entry points, their types and maps, the sources they map to, the CLI and the papers", () => {
    const targets = Object.values(pkg.exports).filter(
      (target): target is Record<"types" | "default", string> => typeof target === "object",
    );
    // Every entry but ./package.json maps to compiled types and JavaScript.
    expect(targets).toHaveLength(Object.keys(pkg.exports).length - 1);
    for (const target of targets) {
      const paths = [
        target.default,
        `${target.default}.map`,
        target.types,
        // The source its map points to.
        target.default.replace("./dist/", "./src/").replace(/\.js$/, ".ts"),
      ];
      for (const path of paths) expect(files).toContain(path.slice(2));
    }
    for (const paper of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "bin/elyra-assistant.mjs",
    ]) {
      expect(files).toContain(paper);
    }
    expect(
      files.filter((path) => /^(spec|bench|examples|scripts|node_modules)\//.test(path)),
    ).toEqual([]);
    expect(
      files.filter((path) => /\.(db|sqlite|tgz|log)$|tsconfig|vitest|biome/.test(path)),
    ).toEqual([]);
    const bytes = statSync(tarball).size;
    figure("tarball", `${megabytes(bytes)}, ${files.length} files`);
    // What a user downloads: a regression past this is worth a look. At 1.04 MB (issue 29), then
    // 1.20 MB (issue 32: tool search, the cache layout, summaries, budgets, usage), then
    // 1.31 MB (issue 33: threads, their index in each store, erasure, the panel's list) it is the
    // sources the maps point to, the compiled code with its maps and types (dist 2.8 MB unpacked),
    // and the docs (0.62 MB unpacked); nothing in it is there by mistake.
    expect(bytes).toBeLessThan(1_400_000);
  });

  it("has no import of a .ts file left in its JavaScript", () => {
    const dist = join(REPO, "dist");
    const javascript = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((path) =>
      path.endsWith(".js"),
    );
    expect(javascript.length).toBeGreaterThan(50);
    const left = javascript.filter((path) =>
      /(from |import\()"\.{1,2}\/[^"]*\.ts"/.test(readFileSync(join(dist, path), "utf8")),
    );
    expect(left).toEqual([]);
  });

  it("passes arethetypeswrong as an ESM-only package", async () => {
    // attw exits 1 on any problem outside the resolutions the profile ignores (node10, CJS).
    const ran = await run(tool("attw"), [tarball, "--profile", "esm-only"], { cwd: REPO });
    expect(ran.stdout).toMatch(
      /"elyra-assistant\/testing"\s+node16 \(from ESM\): 🟢 \(ESM\)\s+bundler: 🟢/u,
    );
  });

  it("passes publint, warnings counted as errors", async () => {
    const ran = await run(tool("publint"), ["run", tarball, "--strict"], { cwd: REPO });
    expect(ran.stdout).toMatch(/All good!/);
  });
});
