/**
 * `loadApp`: the app a module exports, or why there is none, as a tagged
 * value; a TypeScript module the runtime can't load, with no tsx to load it
 * through, is told in one sentence (`TypeScriptNotLoadable`).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadApp, TypeScriptNotLoadable } from "../../src/cli/loadApp.ts";

// As if tsx were not installed.
vi.mock("tsx/esm/api", () => {
  throw new Error("Cannot find package 'tsx'");
});

const dir = mkdtempSync(join(tmpdir(), "load-app-"));
const module = (name: string, source: string) => writeFileSync(join(dir, name), source);

describe("loadApp", () => {
  it("an app module is Loaded, with the app", async () => {
    module(
      "app.mjs",
      "export default { commands: new Map(), userAbilities: () => [], assistant: undefined, mcp: undefined };",
    );
    const loaded = await loadApp("app.mjs", dir);
    expect(loaded._tag).toBe("Loaded");
    expect(loaded._tag === "Loaded" && loaded.app.commands).toEqual(new Map());
  });

  it("a missing file, or a module without an app, is NotLoaded with the reason", async () => {
    expect(await loadApp("missing.mjs", dir)).toEqual({
      _tag: "NotLoaded",
      reason: "missing.mjs: no such file",
    });
    module("other.mjs", "export const other = 1;");
    expect(await loadApp("other.mjs", dir)).toEqual({
      _tag: "NotLoaded",
      reason: "other.mjs has no default or `app` export: export the App made by createApp",
    });
  });

  it("TypeScript the runtime refuses, with no tsx: NotLoaded, saying what to do", async () => {
    // The runtime's refusal of a .ts file, as Node gives it without type stripping.
    module(
      "app.ts",
      'throw Object.assign(new Error("Unknown file extension \\".ts\\""), { code: "ERR_UNKNOWN_FILE_EXTENSION" });',
    );
    expect(await loadApp("app.ts", dir)).toEqual({
      _tag: "NotLoaded",
      reason: `app.ts could not be loaded: it is TypeScript, which Node ${process.version} can't load by itself: install tsx beside elyra-assistant (npm install -D tsx), run Node 22.18 or later, or name its compiled .js`,
    });
  });

  it("TypeScriptNotLoadable is a tagged error whose message names the runtime", () => {
    const error = new TypeScriptNotLoadable({ nodeVersion: "v20.19.0" });
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("TypeScriptNotLoadable");
    expect(error.message).toBe(
      "it is TypeScript, which Node v20.19.0 can't load by itself: install tsx beside elyra-assistant (npm install -D tsx), run Node 22.18 or later, or name its compiled .js",
    );
  });
});
