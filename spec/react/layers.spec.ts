/**
 * The layer rules for src/adapters/react and its entry src/react.ts
 * (.dependency-cruiser.mjs) bite: they may import the ui adapter's store and
 * client but not ui's entry, src/ui.ts (which defines the panel element), nor
 * its prebuilt bundle, no other adapter, and no Node built-in.
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
  "src/adapters/ui/bundle.ts": ["../../ui.ts"],
  "src/ui.ts": ["./adapters/ui/assistantStore.ts", "./adapters/ui/panel.ts"],
  "src/adapters/react/reactPeer.ts": ["../peer.ts"],
  "src/adapters/react/useAssistant.ts": ["../ui/assistantStore.ts", "./reactPeer.ts"],
  "src/react.ts": [
    "./adapters/react/reactPeer.ts",
    "./adapters/react/useAssistant.ts",
    "./adapters/ui/assistantStore.ts",
    "./adapters/web/wire.ts",
    "./runtime/command.ts",
  ],
};

describe.concurrent("the rules for src/adapters/react and src/react.ts", () => {
  it("pass a tree where they import the ui adapter's store", async () => {
    const { code, output } = await cruise("clean", CLEAN);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  });

  it.each([
    ["react-binds-the-browser-store", "src/react.ts", "ui's entry", "./ui.ts"],
    [
      "react-binds-the-browser-store",
      "src/adapters/react/useAssistant.ts",
      "ui's entry",
      "../../ui.ts",
    ],
    ["react-binds-the-browser-store", "src/react.ts", "ui's bundle", "./adapters/ui/bundle.ts"],
    [
      "react-binds-the-browser-store",
      "src/react.ts",
      "another adapter",
      "./adapters/http/handler.ts",
    ],
    [
      "react-binds-the-browser-store",
      "src/adapters/react/useAssistant.ts",
      "another adapter",
      "../http/handler.ts",
    ],
    ["browser-entry-has-no-node", "src/react.ts", "a Node built-in", "node:fs"],
    [
      "browser-entry-has-no-node",
      "src/adapters/react/useAssistant.ts",
      "a Node built-in",
      "node:fs",
    ],
  ])("refuse a tree that breaks %s: %s imports %s", async (rule, from, _, to) => {
    const { code, output } = await cruise(
      `${rule}-${from.replace(/\W/g, "")}-${to.replace(/\W/g, "")}`,
      {
        ...CLEAN,
        [from]: [to],
      },
    );
    expect(output).toContain(`error ${rule}:`);
    expect(code).not.toBe(0);
  });
});
