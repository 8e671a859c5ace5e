/**
 * The layer rules for src/adapters/react (.dependency-cruiser.mjs) bite: it
 * may import the ui adapter's store and client but not ui's entry (which
 * defines the panel element), no other adapter, and no Node built-in.
 */
import { describe, expect, it } from "vitest";
import { layerCruiser } from "../fixtures/cruise.ts";

const cruise = layerCruiser("elyra-react-layers-");

const CLEAN = {
  "src/runtime/command.ts": [],
  "src/adapters/peer.ts": [],
  "src/adapters/web/wire.ts": ["../../runtime/command.ts"],
  "src/adapters/http/handler.ts": ["../web/wire.ts"],
  "src/adapters/ui/panel.ts": ["./assistantStore.ts"],
  "src/adapters/ui/assistantStore.ts": ["../web/wire.ts"],
  "src/adapters/ui/index.ts": ["./assistantStore.ts", "./panel.ts"],
  "src/adapters/react/reactPeer.ts": ["../peer.ts"],
  "src/adapters/react/index.ts": [
    "./reactPeer.ts",
    "../ui/assistantStore.ts",
    "../web/wire.ts",
    "../../runtime/command.ts",
  ],
};

describe.concurrent("the rules for src/adapters/react", () => {
  it("pass a tree where it imports the ui adapter's store", async () => {
    const { code, output } = await cruise("clean", CLEAN);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  });

  it.each([
    ["react-binds-the-browser-store", "ui's entry", "../ui/index.ts"],
    ["react-binds-the-browser-store", "another adapter", "../http/handler.ts"],
    ["browser-entry-has-no-node", "a Node built-in", "node:fs"],
  ])("refuse a tree that breaks %s: it imports %s", async (rule, _, to) => {
    const { code, output } = await cruise(`${rule}-${to.replace(/\W/g, "")}`, {
      ...CLEAN,
      "src/adapters/react/index.ts": ["./reactPeer.ts", to],
    });
    expect(output).toContain(`error ${rule}:`);
    expect(code).not.toBe(0);
  });
});
