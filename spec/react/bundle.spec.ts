/**
 * elyra-assistant/react in a page's bundle (esbuild, React left to the app):
 * no Node built-ins, not the built-in panel, and effect (which the
 * missing-React sentence needs) only in a chunk loaded when React failed to
 * load. Node environment on purpose: esbuild runs in Node.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("elyra-assistant/react in a browser bundle", () => {
  it("keeps effect out of the entry's chunk, and the panel and Node out of all", async () => {
    const result = await build({
      entryPoints: ["src/react.ts"],
      bundle: true,
      splitting: true,
      outdir: "react-bundle",
      platform: "browser",
      format: "esm",
      minify: true,
      write: false,
      metafile: true,
      external: ["react"],
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const outputs = Object.values(result.metafile.outputs);
    const entry = outputs.find((o) => o.entryPoint === "src/react.ts");
    const inputsOf = (o: (typeof outputs)[number]) => Object.keys(o.inputs);
    expect(inputsOf(entry!).filter((path) => path.includes("node_modules/effect/"))).toEqual([]);
    const all = outputs.flatMap(inputsOf);
    expect(all.filter((path) => /(^|\/)node:|^src\/ui\.ts$|ui\/panel\.ts$/.test(path))).toEqual([]);
    // The sentence is still there, behind a dynamic import.
    expect(all).toContain("src/adapters/peer.ts");
    expect(entry!.bytes).toBeLessThan(40_000);
  });
});
