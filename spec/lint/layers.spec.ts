/**
 * The layer rules `npm run lint` enforces (.dependency-cruiser.mjs) bite: a
 * small tree shaped like src/ with one deliberate violation each is refused,
 * naming the rule; the same tree without it passes. The entry points
 * (src/<subpath>.ts) are held to the rules of the folder each re-exports.
 */
import { describe, expect, it } from "vitest";
import { layerCruiser } from "../fixtures/cruise.ts";

const cruise = layerCruiser("elyra-layers-");

const CLEAN = {
  "src/runtime/command.ts": [],
  "src/machines/conversation.ts": ["../runtime/command.ts"],
  "src/actors/host.ts": ["../machines/conversation.ts", "../runtime/command.ts"],
  "src/adapters/web/body.ts": ["../../runtime/command.ts"],
  "src/adapters/http/handler.ts": ["../../actors/host.ts", "../web/body.ts"],
  "src/adapters/ui/client.ts": ["../web/body.ts"],
  "src/adapters/ui/bundle.ts": ["../../ui.ts"],
  "src/testing/fakeModel.ts": ["../actors/host.ts"],
  // The entry points, src/<subpath>.ts: each re-exports its folder.
  "src/machines.ts": ["./machines/conversation.ts", "./runtime/command.ts"],
  "src/http.ts": ["./adapters/http/handler.ts", "./adapters/web/body.ts"],
  "src/ui.ts": ["./adapters/ui/client.ts", "./runtime/command.ts"],
  "src/testing.ts": ["./testing/fakeModel.ts", "./actors/host.ts"],
};

describe.concurrent("the layer rules", () => {
  it("pass a tree that keeps them", async () => {
    const { code, output } = await cruise("clean", CLEAN);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  });

  it.each([
    ["runtime-is-the-floor", { "src/runtime/command.ts": ["../actors/host.ts"] }],
    ["machines-import-only-runtime", { "src/machines/conversation.ts": ["../actors/host.ts"] }],
    [
      "actors-import-runtime-and-machines",
      { "src/actors/host.ts": ["../adapters/http/handler.ts"] },
    ],
    ["adapters-import-inward", { "src/adapters/ui/client.ts": ["../http/handler.ts"] }],
    ["web-toolkit-is-shared-not-sharing", { "src/adapters/web/body.ts": ["../http/handler.ts"] }],
    ["browser-entry-has-no-node", { "src/adapters/ui/client.ts": ["node:fs"] }],
    ["machines-import-only-runtime", { "src/machines.ts": ["./actors/host.ts"] }],
    ["testing-is-a-user-of-the-core", { "src/testing.ts": ["./adapters/http/handler.ts"] }],
    ["adapter-entry-imports-its-adapter", { "src/http.ts": ["./adapters/ui/client.ts"] }],
    ["adapter-entry-imports-its-adapter", { "src/ui.ts": ["./machines.ts"] }],
    ["ui-bundle-is-the-ui-entry", { "src/adapters/ui/bundle.ts": ["./client.ts"] }],
    ["browser-entry-has-no-node", { "src/ui.ts": ["node:fs"] }],
    [
      "no-circular",
      { "src/runtime/command.ts": ["./other.ts"], "src/runtime/other.ts": ["./command.ts"] },
    ],
  ])("refuse a tree that breaks %s: %j", async (rule, breaking) => {
    // One tree per case: a rule may be broken from more than one file.
    const name = `${rule}-${Object.keys(breaking).join("-").replace(/\W/g, "")}`;
    const { code, output } = await cruise(name, { ...CLEAN, ...breaking });
    expect(output).toContain(`error ${rule}:`);
    expect(code).not.toBe(0);
  });
});
