/**
 * The public surface: a change to what each entry point exports shows up
 * here. The entry points are package.json's `exports`, read from it: a new
 * subpath `./x` is its line there and its file src/x.ts (and its snapshot,
 * written by `vitest -u`); the specs below hold every entry to that.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };

type Target = Record<"types" | "default", string>;
const entries = Object.entries(pkg.exports).filter(
  (entry): entry is [string, Target] => entry[0] !== "./package.json",
);
const REPO = join(import.meta.dirname, "..");
const BUNDLE_KEY = "./ui/bundle.js";
/** The source a compiled file is built from: dist/x.js from src/x.ts. */
const sourceOf = (compiled: string) =>
  compiled.replace("./dist/", "./src/").replace(/\.js$/, ".ts");
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

  it("each subpath ./x is the file src/x.ts, compiled to dist/x.js (the root is src/index.ts)", () => {
    // The one convention for entry points: a new subpath is its line in package.json's
    // `exports` and its file src/<subpath>.ts; `./ui/bundle.js` is the one special case.
    for (const [key, target] of entries) {
      const stem = key === "." ? "index" : key === BUNDLE_KEY ? "adapters/ui/bundle" : key.slice(2);
      expect(target.default, key).toBe(`./dist/${stem}.js`);
      expect(
        existsSync(join(REPO, sourceOf(target.default))),
        `${key}: ${sourceOf(target.default)}`,
      ).toBe(true);
    }
    // And the other way round: every src/*.ts is an entry, and no folder has an index.ts entry.
    const sources = new Set(entries.map(([, target]) => sourceOf(target.default)));
    const top = readdirSync(join(REPO, "src")).filter((name) => name.endsWith(".ts"));
    for (const name of top) expect(sources, `src/${name}`).toContain(`./src/${name}`);
    const indexes = readdirSync(join(REPO, "src"), { recursive: true, encoding: "utf8" }).filter(
      (path) => /(^|\/)index\.ts$/.test(path),
    );
    expect(indexes).toEqual(["index.ts"]);
  });

  it("package.json's sideEffects name the ui entry and its bundle, compiled and as sources", () => {
    const ui = [pkg.exports["./ui"].default, pkg.exports[BUNDLE_KEY].default];
    expect([...pkg.sideEffects].sort()).toEqual([...ui, ...ui.map(sourceOf)].sort());
  });

  it("tsconfig.json's paths send each entry point (and #cli) to the source of its compiled file", () => {
    // How this repository runs its sources (tsc, tsx, Vitest, esbuild, dependency-cruiser
    // all follow `paths`): one wildcard, elyra-assistant/x read as src/x.ts, besides the root,
    // the prebuilt bundle and #cli.
    const text = readFileSync(join(REPO, "tsconfig.json"), "utf8");
    const paths: Record<string, string[]> = JSON.parse(text).compilerOptions.paths;
    expect(paths).toEqual({
      "elyra-assistant": ["./src/index.ts"],
      "elyra-assistant/ui/bundle.js": [sourceOf(pkg.exports[BUNDLE_KEY].default)],
      "elyra-assistant/*": ["./src/*.ts"],
      "#cli": [sourceOf(pkg.imports["#cli"])],
    });
    // As TypeScript resolves a specifier: an exact key, else the wildcard.
    const resolve = (specifier: string) =>
      paths[specifier]?.[0] ??
      paths["elyra-assistant/*"]?.[0]?.replace("*", specifier.slice("elyra-assistant/".length));
    for (const [key, target] of entries)
      expect(resolve(specifierOf(key)), key).toBe(sourceOf(target.default));
  });

  it("the README's table of entry points names each entry of the exports map, and only those", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const listed = [...readme.matchAll(/^\| `(elyra-assistant(?:\/[a-z]+)*(?:\.js)?)` +\|/gm)].map(
      (m) => m[1],
    );
    const exported = Object.keys(pkg.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? "elyra-assistant" : `elyra-assistant/${key.slice(2)}`));
    expect([...listed].sort()).toEqual(exported.sort());
  });
});
