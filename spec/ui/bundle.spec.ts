/**
 * The browser entry bundles for the browser: no Node built-ins, and small
 * (effect's schemas stay out); and the prebuilt module the library build
 * ships (scripts/browserBundle.mjs) is one file a page loads as it is. Node
 * environment on purpose: esbuild runs in Node, and needs no DOM.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as ui from "elyra-assistant/ui";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { BUNDLE_FILE, buildBrowserBundle } from "../../scripts/browserBundle.mjs";
import { buildUiBundle } from "./uiBundle.ts";

describe("elyra-assistant/ui in a browser bundle", () => {
  it("builds for the browser with no Node built-ins and without effect", async () => {
    const result = await buildUiBundle();
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((path) => /(^|\/)node:|node_modules\/(effect|@types\/node)\//.test(path)),
    ).toEqual([]);
    const code = result.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).not.toContain("innerHTML");
    expect(code).not.toContain("insertAdjacentHTML");
    expect(code).not.toContain("dangerouslyAllowBrowser");
    // 75 KB: the panel with its list of conversations (issue 33) weighs about 71 KB.
    expect(code.length).toBeLessThan(75_000);
  });
});

describe("elyra-assistant/ui/bundle.js, the prebuilt module", () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const built = buildBrowserBundle(root, {
    outfile: join(root, "spec-out", "bundle.js"),
    write: false,
  });
  const code = async () =>
    (await built).outputFiles?.find((file) => file.path.endsWith(".js"))?.text ?? "";

  it("is the library build's: written over dist/adapters/ui/bundle.js, which the exports map names", () => {
    expect(BUNDLE_FILE).toBe("dist/adapters/ui/bundle.js");
    expect(pkg.exports["./ui/bundle.js"].default).toBe(`./${BUNDLE_FILE}`);
    expect(readFileSync(join(root, "scripts", "buildLib.mjs"), "utf8")).toContain(
      "await buildBrowserBundle(root, { outfile: join(root, BUNDLE_FILE) });",
    );
  });

  it("is one file with no import left in it: no bare specifier for a page to resolve", async () => {
    const result = await built;
    expect(result.errors).toEqual([]);
    const outputs = Object.values(result.metafile.outputs);
    expect(outputs.map((output) => output.imports)).toEqual([[], []]); // the module and its map
    const text = await code();
    expect(text).not.toMatch(/\bimport\s*[("'`{*]|\bfrom\s*["'`]|\brequire\s*\(/);
    expect(text).not.toMatch(/\bprocess\.env\b/);
  });

  it("exports what elyra-assistant/ui does, and holds no effect and no Node built-in (decision (u))", async () => {
    const result = await built;
    const entry = Object.values(result.metafile.outputs).find((output) => output.entryPoint);
    expect([...(entry?.exports ?? [])].sort()).toEqual(Object.keys(ui).sort());
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((path) => /(^|\/)node:|node_modules\/(effect|fast-check)\//.test(path)),
    ).toEqual([]);
    const text = await code();
    expect(text).not.toContain("effect/");
    expect(text).not.toContain("innerHTML");
  });

  it("weighs what docs/ui.md says, within a tenth", async () => {
    const bytes = Buffer.byteLength(await code());
    const gzipped = gzipSync(await code(), { level: 9 }).length;
    const docs = readFileSync(join(root, "docs", "ui.md"), "utf8");
    const said = /about (\d+) KB\s+minified\s+\(about (\d+) KB\s+gzipped\)/.exec(docs);
    expect(said, "docs/ui.md states the prebuilt module's size").not.toBeNull();
    const [kb, gzKb] = [Number(said?.[1]) * 1000, Number(said?.[2]) * 1000];
    expect(Math.abs(bytes - kb) / kb).toBeLessThan(0.1);
    expect(Math.abs(gzipped - gzKb) / gzKb).toBeLessThan(0.1);
    expect(bytes).toBeLessThan(75_000);
  });
});
