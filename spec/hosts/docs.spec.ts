/**
 * docs/backend.md shows each framework's recipe as the file its spec runs:
 * every block marked `<!-- spec/hosts/recipes/<name>.ts -->` (fenced with
 * four backticks: the recipes' examples hold fences of three) equals that
 * file, byte for byte, and every recipe is shown.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const docs = readFileSync(new URL("docs/backend.md", root), "utf8");
const recipes = readdirSync(new URL("spec/hosts/recipes/", root)).sort();

/** Each marked block of the docs, by the file it names. */
const shown = new Map(
  [...docs.matchAll(/<!-- (spec\/hosts\/recipes\/[\w.-]+\.ts) -->\n````ts\n([\s\S]*?)````\n/g)].map(
    (m) => [m[1] as string, m[2] as string],
  ),
);

describe("docs/backend.md's recipes", () => {
  it("shows every recipe, and nothing else under that mark", () => {
    expect(recipes).toEqual(["express.ts", "fastify.ts", "hono.ts"]);
    expect([...shown.keys()].sort()).toEqual(recipes.map((file) => `spec/hosts/recipes/${file}`));
  });

  it.each(recipes)("shows recipes/%s as the file is", (file) => {
    const path = `spec/hosts/recipes/${file}`;
    expect(shown.get(path)).toBe(readFileSync(new URL(path, root), "utf8"));
  });
});
