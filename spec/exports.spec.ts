/**
 * The public surface: a change to what each entry point exports shows up
 * here. The entry points are package.json's `exports`, read from it: a new
 * subpath is its line there and its files (and its snapshot, written by
 * `vitest -u`).
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };

type Target = Record<"types" | "default", string>;
const entries = Object.entries(pkg.exports).filter(
  (entry): entry is [string, Target] => entry[0] !== "./package.json",
);
const specifierOf = (key: string) =>
  key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`;
const namesOf = async (specifier: string) =>
  Object.keys(await import(/* @vite-ignore */ specifier)).sort();

describe("public exports", () => {
  for (const [key] of entries)
    it(specifierOf(key), async () => {
      expect(await namesOf(specifierOf(key))).toMatchSnapshot();
    });

  it("elyra-assistant/ui/bundle.js, prebuilt for a page with no bundler, exports what elyra-assistant/ui does", async () => {
    expect(await namesOf("elyra-assistant/ui/bundle.js")).toEqual(
      await namesOf("elyra-assistant/ui"),
    );
  });

  it("package.json exports each entry to compiled types and JavaScript only", () => {
    for (const [, target] of entries) {
      // Nothing a consumer can reach names a .ts file: no condition selects the sources.
      expect(Object.keys(target)).toEqual(["types", "default"]);
      expect(target.default).toMatch(/^\.\/dist\/.*\.js$/);
      expect(target.types).toBe(target.default.replace(/\.js$/, ".d.ts"));
    }
    expect(pkg.exports["./package.json"]).toBe("./package.json");
    expect(pkg.imports).toEqual({ "#cli": "./dist/cli/main.js" });
    expect(JSON.stringify(pkg.exports)).not.toMatch(/(?<!\.d)\.ts"/);
  });

  it("tsconfig.json's paths send each entry point (and #cli) to the source of its compiled file", () => {
    // How this repository runs its sources (tsc, tsx, Vitest, esbuild, dependency-cruiser
    // all follow `paths`): the same map as package.json's, dist/x.js read as src/x.ts.
    const text = readFileSync(join(import.meta.dirname, "..", "tsconfig.json"), "utf8");
    const paths: Record<string, string[]> = JSON.parse(text).compilerOptions.paths;
    const sourceOf = (compiled: string) =>
      compiled.replace("./dist/", "./src/").replace(/\.js$/, ".ts");
    const expected: Record<string, string[]> = { "#cli": [sourceOf(pkg.imports["#cli"])] };
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      const name = key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`;
      expected[name] = [sourceOf(target.default)];
    }
    expect(paths).toEqual(expected);
    for (const [source] of Object.values(paths))
      expect(existsSync(join(import.meta.dirname, "..", source ?? ""))).toBe(true);
  });

  it("the README's table of entry points names each entry of the exports map, and only those", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const listed = [...readme.matchAll(/^\| `(elyra-assistant(?:\/[a-z]+)*(?:\.js)?)` +\|/gm)].map(
      (m) => m[1],
    );
    const exported = Object.keys(pkg.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`));
    expect([...listed].sort()).toEqual(exported.sort());
  });
});
