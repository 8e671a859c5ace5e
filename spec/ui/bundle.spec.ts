/**
 * The browser entry bundles for the browser: no Node built-ins, and small
 * (effect's schemas stay out). Node environment on purpose: esbuild runs in
 * Node, and needs no DOM.
 */

import { describe, expect, it } from "vitest";
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
    expect(code.length).toBeLessThan(60_000);
  });
});
